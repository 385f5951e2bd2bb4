/* rk — the look viewer of an image page ([data-viewer]); the page works without this file.
   - a swipe on the photo follows the page's a[rel=prev] / a[rel=next] (← → are rk.js's);
   - the filmstrip scrolls its current frame into view;
   - [data-fullscreen] (a link to the image without JavaScript) shows the photo full screen
     through the Fullscreen API; there ← →, swipes and the filmstrip's order step through the
     show's looks in place (read once from the page's JSON twin, /api/shows/<id>), and on
     leaving full screen the page of the look last shown is opened. */
(function () {
  "use strict";

  var viewer = document.querySelector("[data-viewer]");
  if (!viewer) return;
  var frame = viewer.querySelector(".photo__frame");
  var img = frame && frame.querySelector("img");
  if (!frame || !img) return;

  function follow(rel) {
    var link = viewer.querySelector('a[rel="' + rel + '"]');
    if (link) window.location.href = link.href;
  }

  function onSwipe(element, step) {
    var startX = 0, startY = 0, tracking = false;
    element.addEventListener("touchstart", function (event) {
      if (event.touches.length !== 1) { tracking = false; return; }
      tracking = true;
      startX = event.touches[0].clientX;
      startY = event.touches[0].clientY;
    }, { passive: true });
    element.addEventListener("touchend", function (event) {
      if (!tracking || !event.changedTouches.length) return;
      tracking = false;
      var dx = event.changedTouches[0].clientX - startX;
      var dy = event.changedTouches[0].clientY - startY;
      if (Math.abs(dx) > 50 && Math.abs(dx) > 1.5 * Math.abs(dy)) step(dx < 0 ? 1 : -1);
    }, { passive: true });
  }

  var strip = viewer.querySelector(".filmstrip__frames");
  var current = strip && strip.querySelector('[aria-current="true"]');
  if (current) {
    var item = current.parentElement;
    strip.scrollLeft = item.offsetLeft - strip.offsetLeft - (strip.clientWidth - item.offsetWidth) / 2;
  }

  var full = {
    items: null,
    at: -1,
    first: viewer.getAttribute("data-image"),
    caption: null
  };

  function inFullscreen() { return document.fullscreenElement === frame; }

  function label() {
    var noun = viewer.getAttribute("data-noun") || "Look";
    var n = full.items ? full.items.length : 0;
    return noun + " " + (full.at + 1) + " of " + n + " · ← → to move · Esc to leave";
  }

  function showAt(index) {
    if (!full.items || index < 0 || index >= full.items.length) return;
    var pic = full.items[index];
    full.at = index;
    img.removeAttribute("srcset");
    img.removeAttribute("sizes");
    img.src = pic.url;
    img.alt = pic.alt;
    if (img.parentElement.tagName === "A") img.parentElement.href = pic.url;
    if (pic.width && pic.height) { img.width = pic.width; img.height = pic.height; }
    if (full.caption) full.caption.textContent = label();
    window.history.replaceState(null, "", "/images/" + pic.image_id);
    var next = full.items[index + 1];
    if (next) new Image().src = next.url;
  }

  function step(by) {
    if (inFullscreen()) showAt(full.at + by);
    else follow(by > 0 ? "next" : "prev");
  }

  function loadShow() {
    if (full.items) return Promise.resolve();
    return fetch(viewer.getAttribute("data-show-api"), { headers: { "Accept": "application/json" } })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (show) {
        if (!show) return;
        var role = viewer.getAttribute("data-role");
        full.items = role === "look" ? show.looks : show.details;
        full.at = full.items.findIndex(function (p) { return String(p.image_id) === full.first; });
      })
      .catch(function () { /* full screen still shows this look */ });
  }

  onSwipe(frame, step);

  document.querySelectorAll("[data-fullscreen]").forEach(function (button) {
    if (!frame.requestFullscreen || !document.fullscreenEnabled) return;
    button.setAttribute("role", "button");
    button.addEventListener("click", function (event) {
      event.preventDefault();
      frame.requestFullscreen().then(loadShow).then(function () {
        if (!inFullscreen()) return;
        full.caption = document.createElement("p");
        full.caption.className = "photo__fullscreen-caption";
        frame.appendChild(full.caption);
        full.caption.textContent = full.items ? label() : "Esc to leave";
      }).catch(function () { window.location.href = button.href; });
    });
  });

  window.addEventListener("keydown", function (event) {
    if (!inFullscreen() || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key !== "ArrowLeft" && event.key !== "ArrowRight") return;
    event.preventDefault();
    event.stopPropagation();
    showAt(full.at + (event.key === "ArrowRight" ? 1 : -1));
  }, true);

  document.addEventListener("fullscreenchange", function () {
    if (inFullscreen()) return;
    if (full.caption) { full.caption.remove(); full.caption = null; }
    var shown = full.items && full.items[full.at];
    if (shown && String(shown.image_id) !== full.first) {
      window.location.replace("/images/" + shown.image_id);
    }
  });
})();
