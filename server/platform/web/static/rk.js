/* rk — small progressive enhancements; every page works without this file.
   - <time data-ts> stays relative ("3 min ago") while the page is open;
   - forms with data-confirm="…" ask before they submit;
   - a checkbox with data-select-all selects every checkbox of its form;
   - an element with data-refresh="SECONDS" and an id is re-fetched from the same URL
     while the page is visible; a [data-refresh-toggle] button pauses and resumes it;
   - ← and → follow a[rel=prev] / a[rel=next] inside [data-arrow-nav] (not while typing);
   - a photo dropped on [data-drop-search] is put in its file input and the form is sent;
   - on a review page ([data-review]): ← → move between images, Enter (or a click) opens
     the large view, a / r submit the form marked data-key="a" / "r" (or open the <details>
     so marked, its first field focused: a rejection asks why), ? lists the keys;
   - an input with data-brand-search offers matching brand names as you type. */
(function () {
  "use strict";

  function relative(ts) {
    var delta = Math.round(Date.now() / 1000 - ts), ahead = delta < 0;
    delta = Math.abs(delta);
    if (delta < 45) return "just now";
    var units = [["year", 31536000], ["month", 2592000], ["day", 86400], ["h", 3600], ["min", 60]];
    for (var i = 0; i < units.length; i++) {
      if (delta >= units[i][1]) {
        var n = Math.round(delta / units[i][1]), name = units[i][0];
        var label = (name === "h" || name === "min") ? name : name + (n === 1 ? "" : "s");
        return ahead ? "in " + n + " " + label : n + " " + label + " ago";
      }
    }
    return "just now";
  }

  function refreshTimes(root) {
    (root || document).querySelectorAll("time[data-ts]").forEach(function (el) {
      el.textContent = relative(parseInt(el.getAttribute("data-ts"), 10));
    });
  }

  function typing(target) {
    var tag = target && target.tagName;
    return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || (target && target.isContentEditable);
  }

  document.addEventListener("submit", function (event) {
    var form = event.target, question = form.getAttribute("data-confirm");
    var submitter = event.submitter;
    if (submitter && submitter.getAttribute("data-confirm")) question = submitter.getAttribute("data-confirm");
    if (question && !window.confirm(question)) event.preventDefault();
  });

  document.addEventListener("change", function (event) {
    var box = event.target;
    if (!box.matches || !box.matches("input[data-select-all]")) return;
    var scope = box.form || document;
    scope.querySelectorAll('input[type=checkbox]:not([data-select-all])').forEach(function (other) {
      other.checked = box.checked;
    });
  });

  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || typing(event.target)) return;
    var nav = document.querySelector("[data-arrow-nav]");
    if (!nav) return;
    var rel = event.key === "ArrowLeft" ? "prev" : event.key === "ArrowRight" ? "next" : null;
    var link = rel && nav.querySelector('a[rel="' + rel + '"]');
    if (link) { event.preventDefault(); window.location.href = link.href; }
  });

  document.querySelectorAll("[data-back]").forEach(function (el) {
    el.addEventListener("click", function (event) {
      if (window.history.length > 1) { event.preventDefault(); window.history.back(); }
    });
  });

  function live(el) {
    var seconds = Math.max(2, parseInt(el.getAttribute("data-refresh"), 10) || 5);
    var toggle = document.querySelector('[data-refresh-toggle="' + el.id + '"]');
    var paused = false;
    if (toggle) {
      toggle.hidden = false;
      toggle.addEventListener("click", function () {
        paused = !paused;
        toggle.textContent = paused ? "Resume live refresh" : "Pause live refresh";
        toggle.setAttribute("aria-pressed", paused ? "true" : "false");
      });
    }
    window.setInterval(function () {
      if (paused || document.hidden) return;
      fetch(window.location.href, { headers: { "Accept": "text/html" }, credentials: "same-origin" })
        .then(function (r) { return r.ok ? r.text() : null; })
        .then(function (html) {
          if (!html) return;
          var fresh = new DOMParser().parseFromString(html, "text/html").getElementById(el.id);
          if (fresh) { el.innerHTML = fresh.innerHTML; refreshTimes(el); }
        })
        .catch(function () { /* the next tick tries again */ });
    }, seconds * 1000);
  }

  document.querySelectorAll("[data-drop-search]").forEach(function (box) {
    var input = box.querySelector("input[type=file]");
    if (!input || input.disabled) return;
    box.addEventListener("dragover", function (event) {
      event.preventDefault();
      box.classList.add("search-box--drop");
    });
    box.addEventListener("dragleave", function () { box.classList.remove("search-box--drop"); });
    box.addEventListener("drop", function (event) {
      event.preventDefault();
      box.classList.remove("search-box--drop");
      if (!event.dataTransfer || !event.dataTransfer.files.length) return;
      input.files = event.dataTransfer.files;
      input.form.submit();
    });
  });

  function reviewKeys(review) {
    var tiles = Array.prototype.slice.call(review.querySelectorAll("[data-large]"));
    var loupe = document.querySelector("[data-loupe]");
    var help = document.querySelector("[data-keys-help]");
    var current = -1;
    function show() {
      if (!loupe || current < 0) return;
      var tile = tiles[current], img = loupe.querySelector("[data-loupe-img]");
      var small = tile.querySelector("img");
      img.src = tile.getAttribute("data-large");
      img.alt = small ? small.alt : "";
      loupe.querySelector("[data-loupe-label]").textContent =
        tile.getAttribute("data-label") + " (" + (current + 1) + " of " + tiles.length + ")";
      if (!loupe.open) loupe.showModal();
    }
    function select(index) {
      if (!tiles.length) return;
      current = (index + tiles.length) % tiles.length;
      tiles.forEach(function (tile, k) { tile.classList.toggle("is-current", k === current); });
      if (!loupe || !loupe.open) tiles[current].focus();
      else show();
    }
    tiles.forEach(function (tile, k) {
      tile.addEventListener("click", function (event) {
        if (event.metaKey || event.ctrlKey || event.shiftKey) return;
        event.preventDefault();
        select(k);
        show();
      });
    });
    document.querySelectorAll("[data-loupe-close], [data-keys-close]").forEach(function (button) {
      button.addEventListener("click", function () { button.closest("dialog").close(); });
    });
    document.addEventListener("keydown", function (event) {
      if (typing(event.target) || event.metaKey || event.ctrlKey || event.altKey) return;
      if (event.key === "ArrowRight" || event.key === "ArrowLeft") {
        event.preventDefault();
        select(current + (event.key === "ArrowRight" ? 1 : -1));
      } else if (event.key === "Enter" && current >= 0 && !(loupe && loupe.open)) {
        event.preventDefault();
        show();
      } else if (event.key === "a" || event.key === "r") {
        var target = review.querySelector('[data-key="' + event.key + '"]');
        if (!target) return;
        event.preventDefault();
        if (target.tagName === "DETAILS") {
          target.open = true;
          var first = target.querySelector("input:not([type=hidden])");
          if (first) first.focus();
        } else if (target.requestSubmit) target.requestSubmit(); else target.submit();
      } else if (event.key === "?" && help) {
        help.showModal();
      }
    });
  }

  function brandSearch(input) {
    var list = input.list, timer = null;
    if (!list) return;
    input.addEventListener("input", function () {
      window.clearTimeout(timer);
      var q = input.value.trim();
      if (!q) return;
      timer = window.setTimeout(function () {
        fetch("/admin/brands/search?q=" + encodeURIComponent(q), { credentials: "same-origin" })
          .then(function (r) { return r.ok ? r.json() : []; })
          .then(function (items) {
            list.innerHTML = "";
            items.forEach(function (item) {
              var option = document.createElement("option");
              option.value = item.name;
              list.appendChild(option);
            });
          })
          .catch(function () { /* typing again retries */ });
      }, 150);
    });
  }

  document.querySelectorAll("[data-review]").forEach(reviewKeys);
  document.querySelectorAll("input[data-brand-search]").forEach(brandSearch);
  document.querySelectorAll("[data-refresh][id]").forEach(live);
  refreshTimes();
  window.setInterval(refreshTimes, 30000);
})();
