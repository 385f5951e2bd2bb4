/* rk boards — save looks to a board kept in this browser, then share it (issue 33).
   Every page works without this file: it adds the Save buttons itself.
   - each look tile (a.tile to /images/N) and the image page ([data-image]) get a Save button;
   - the header's Board link shows how many items the board holds;
   - on /boards ([data-local-board]) the board is drawn from localStorage: title, notes,
     move up/down, remove, and Share, which POSTs /api/boards and shows both links. */
(function () {
  "use strict";

  var STORE = "rk.board", MAX_NOTE = 1000;

  function load() {
    try {
      var board = JSON.parse(window.localStorage.getItem(STORE) || "null");
      if (board && Array.isArray(board.items)) return board;
    } catch (e) { /* a broken entry starts a new board */ }
    return { title: "", items: [] };
  }

  function store(board) {
    window.localStorage.setItem(STORE, JSON.stringify(board));
    countLink(board);
  }

  function indexOf(board, id) {
    for (var i = 0; i < board.items.length; i++) if (board.items[i].image_id === id) return i;
    return -1;
  }

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (name) { node.setAttribute(name, attrs[name]); });
    if (text) node.textContent = text;
    return node;
  }

  function countLink(board) {
    document.querySelectorAll("[data-board-link]").forEach(function (link) {
      link.textContent = board.items.length ? "Board (" + board.items.length + ")" : "Board";
    });
  }

  function paint(button, saved) {
    button.setAttribute("aria-pressed", saved ? "true" : "false");
    button.textContent = saved ? "Saved" : "Save";
  }

  function saveButton(id, img, extra) {
    var button = el("button", { type: "button", "class": "btn btn--small board-save " + extra, "data-save": String(id) });
    button.setAttribute("aria-label", "Save to board: " + (img ? img.alt : "image " + id));
    paint(button, indexOf(load(), id) >= 0);
    button.addEventListener("click", function (event) {
      event.preventDefault();
      var board = load(), at = indexOf(board, id);
      if (at >= 0) board.items.splice(at, 1);
      else board.items.push({ image_id: id, note: "", thumb: img ? (img.currentSrc || img.src) : "", alt: img ? img.alt : "" });
      store(board);
      document.querySelectorAll('[data-save="' + id + '"]').forEach(function (b) { paint(b, at < 0); });
    });
    return button;
  }

  function imageId(href) {
    var match = /^\/images\/(\d+)$/.exec(href || "");
    return match ? parseInt(match[1], 10) : 0;
  }

  function addSaveButtons() {
    document.querySelectorAll("a.tile").forEach(function (tile) {
      var id = imageId(tile.getAttribute("href"));
      if (!id || tile.parentNode.classList.contains("board-pin")) return;
      var pin = el("div", { "class": "board-pin" });
      tile.parentNode.insertBefore(pin, tile);
      pin.appendChild(tile);
      pin.appendChild(saveButton(id, tile.querySelector("img"), "board-save--tile"));
    });
    var photo = document.querySelector("[data-image]"), actions = document.querySelector(".photo__actions");
    if (photo && actions) {
      var id = parseInt(photo.getAttribute("data-image"), 10);
      if (id > 0) actions.appendChild(saveButton(id, photo.querySelector("img"), ""));
    }
  }

  function move(board, i, j) {
    var item = board.items[i];
    board.items[i] = board.items[j];
    board.items[j] = item;
  }

  function itemRow(board, item, i, root) {
    var li = el("li", { "class": "board-edit-item" });
    var link = el("a", { "class": "board-edit-item__image", href: "/images/" + item.image_id });
    if (/^(\/|https?:)/.test(item.thumb || "")) link.appendChild(el("img", { src: item.thumb, alt: item.alt || "" }));
    else link.textContent = "Image " + item.image_id;
    li.appendChild(link);
    var body = el("div", { "class": "board-form" });
    body.appendChild(el("p", { "class": "board-item__caption" }, (i + 1) + ". " + (item.alt || "Image " + item.image_id)));
    var field = el("div", { "class": "field" });
    field.appendChild(el("label", { "for": "local-note-" + i }, "Note"));
    var note = el("textarea", { id: "local-note-" + i, rows: "2", maxlength: String(MAX_NOTE) });
    note.value = item.note || "";
    note.addEventListener("change", function () { var b = load(); b.items[i].note = note.value; store(b); });
    field.appendChild(note);
    body.appendChild(field);
    var actions = el("div", { "class": "board-form__actions" });
    [["up", "Move up", i > 0], ["down", "Move down", i < board.items.length - 1], ["remove", "Remove", true]].forEach(function (spec) {
      if (!spec[2]) return;
      var button = el("button", { type: "button", "class": "btn btn--small" + (spec[0] === "remove" ? " btn--danger" : ""), "data-action": spec[0] }, spec[1]);
      button.appendChild(el("span", { "class": "visually-hidden" }, " item " + (i + 1)));
      button.addEventListener("click", function () {
        var b = load();
        if (spec[0] === "up") move(b, i, i - 1);
        else if (spec[0] === "down") move(b, i, i + 1);
        else b.items.splice(i, 1);
        store(b);
        drawLocal(root);
      });
      actions.appendChild(button);
    });
    body.appendChild(actions);
    li.appendChild(body);
    return li;
  }

  function share(root, status) {
    var board = load();
    var body = { title: board.title || "", items: board.items.map(function (item) { return { image_id: item.image_id, note: item.note || "" }; }) };
    status.textContent = "Sharing…";
    fetch("/api/boards", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) })
      .then(function (response) { return response.json().then(function (json) { return { ok: response.ok, json: json }; }); })
      .then(function (answer) {
        if (!answer.ok) { status.textContent = "Not shared: " + (answer.json.error || "error"); return; }
        var origin = window.location.origin;
        status.textContent = "";
        var out = el("div", { "class": "board-links", "data-shared": "" });
        var view = el("p", {}, "View link: ");
        view.appendChild(el("a", { href: answer.json.view_url, "data-view-link": "" }, origin + answer.json.view_url));
        var edit = el("p", {}, "Edit link (keep it private): ");
        edit.appendChild(el("a", { href: answer.json.edit_url, "data-edit-link": "" }, origin + answer.json.edit_url));
        out.appendChild(view);
        out.appendChild(edit);
        status.appendChild(out);
      })
      .catch(function () { status.textContent = "Not shared: the server could not be reached."; });
  }

  function drawLocal(root) {
    var board = load();
    root.textContent = "";
    root.hidden = false;
    var field = el("div", { "class": "field" });
    field.appendChild(el("label", { "for": "local-title" }, "Title"));
    var title = el("input", { type: "text", id: "local-title", maxlength: "200" });
    title.value = board.title || "";
    title.addEventListener("change", function () { var b = load(); b.title = title.value; store(b); });
    field.appendChild(title);
    root.appendChild(field);
    if (!board.items.length) {
      root.appendChild(el("p", { "class": "empty__title" }, "Nothing saved yet: use Save on a look."));
      return;
    }
    var list = el("ol", { "class": "board-edit-list", "aria-label": "Saved items" });
    board.items.forEach(function (item, i) { list.appendChild(itemRow(board, item, i, root)); });
    root.appendChild(list);
    var status = el("div", { role: "status", "class": "board-status" });
    var button = el("button", { type: "button", "class": "btn btn--primary", "data-share": "" }, "Share board");
    button.addEventListener("click", function () { share(root, status); });
    root.appendChild(button);
    root.appendChild(status);
  }

  function start() {
    countLink(load());
    addSaveButtons();
    var root = document.querySelector("[data-local-board]");
    if (!root) return;
    document.querySelectorAll("[data-no-js-note]").forEach(function (note) { note.hidden = true; });
    drawLocal(root);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
