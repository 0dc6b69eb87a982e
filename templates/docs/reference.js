// The field filter: rows whose path, type or description hold every word typed stay;
// kinds with none left are hidden, and the count says how many fields match. Offline:
// nothing here fetches anything.
(function () {
  "use strict";
  var input = document.getElementById("filter");
  var count = document.getElementById("count");
  var kinds = Array.prototype.slice.call(document.querySelectorAll("section.kind"));
  function apply() {
    var words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
    var shown = 0;
    kinds.forEach(function (kind) {
      var rows = kind.querySelectorAll("tr[data-search]");
      var kindName = kind.getAttribute("data-kind").toLowerCase();
      var any = false;
      Array.prototype.forEach.call(rows, function (row) {
        var text = kindName + " " + row.getAttribute("data-search");
        var match = words.every(function (w) { return text.indexOf(w) >= 0; });
        row.classList.toggle("hidden", !match);
        if (match) { any = true; shown += 1; }
      });
      kind.classList.toggle("hidden", words.length > 0 && !any);
    });
    count.textContent = words.length ? shown + " fields match" : "";
  }
  input.addEventListener("input", apply);
  apply();
})();
