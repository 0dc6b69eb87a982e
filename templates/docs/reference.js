// The field filter: rows whose text (path, type, description, validations) holds
// every word typed stay; kinds with none left are hidden, in the page and in the
// navigation, and the count says how many fields match. Offline: nothing here fetches
// anything.
(function () {
  "use strict";
  var input = document.getElementById("filter");
  var count = document.getElementById("count");
  var links = {};
  Array.prototype.forEach.call(document.querySelectorAll("nav li a"), function (a) {
    links[a.getAttribute("href").slice(1)] = a.parentNode;
  });
  var kinds = Array.prototype.slice.call(document.querySelectorAll("section.kind")).map(function (kind) {
    var name = kind.getAttribute("data-kind").toLowerCase();
    var rows = Array.prototype.map.call(kind.querySelectorAll("tr.row"), function (row) {
      return { row: row, text: name + " " + row.textContent.toLowerCase() };
    });
    return { section: kind, rows: rows, link: links[kind.id] };
  });
  function apply() {
    var words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
    var shown = 0;
    kinds.forEach(function (kind) {
      var any = false;
      kind.rows.forEach(function (r) {
        var match = words.every(function (w) { return r.text.indexOf(w) >= 0; });
        r.row.classList.toggle("hidden", !match);
        if (match) { any = true; shown += 1; }
      });
      var hide = words.length > 0 && !any;
      kind.section.classList.toggle("hidden", hide);
      if (kind.link) { kind.link.classList.toggle("hidden", hide); }
    });
    count.textContent = words.length ? shown + (shown === 1 ? " field matches" : " fields match") : "";
  }
  input.addEventListener("input", apply);
  apply();
})();
