// SOLBench leaderboard: sortable tables and result filters. No dependencies, no network.
(function () {
  "use strict";

  function cellValue(row, index) {
    var cell = row.cells[index];
    if (!cell) return "";
    return cell.hasAttribute("data-sort") ? cell.getAttribute("data-sort") : cell.textContent.trim();
  }

  function compare(a, b, numeric) {
    // Empty values (missing metrics) sort last in either direction; handled by the caller.
    if (numeric) return parseFloat(a) - parseFloat(b);
    return a.localeCompare(b, undefined, { numeric: true, sensitivity: "base" });
  }

  function sortTable(table, index, th) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var descending = th.getAttribute("aria-sort") !== "descending";
    var values = rows.map(function (r) { return cellValue(r, index); });
    var numeric = values.every(function (v) { return v === "" || !isNaN(parseFloat(v)) && isFinite(v); });
    var order = rows.map(function (r, i) { return i; });
    order.sort(function (i, j) {
      var a = values[i], b = values[j];
      if (a === "" && b === "") return i - j;
      if (a === "") return 1;
      if (b === "") return -1;
      var c = compare(a, b, numeric);
      if (c === 0) return i - j;
      return descending ? -c : c;
    });
    order.forEach(function (i) { body.appendChild(rows[i]); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", descending ? "descending" : "ascending");
  }

  function makeSortable(table) {
    if (!table.tHead || !table.tBodies.length) return;
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, index) {
      th.setAttribute("tabindex", "0");
      th.addEventListener("click", function () { sortTable(table, index, th); });
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sortTable(table, index, th); }
      });
    });
  }

  function applyFilters(form) {
    var table = document.getElementById(form.getAttribute("data-table"));
    if (!table) return;
    var wanted = {};
    Array.prototype.forEach.call(form.querySelectorAll("select[data-filter]"), function (s) {
      wanted[s.getAttribute("data-filter")] = s.value;
    });
    var rows = table.tBodies[0].rows, shown = 0;
    Array.prototype.forEach.call(rows, function (row) {
      var ok = Object.keys(wanted).every(function (key) {
        if (!wanted[key]) return true;
        var have = (row.getAttribute("data-" + key) || "").split(" ");
        return have.indexOf(wanted[key]) !== -1;
      });
      row.hidden = !ok;
      if (ok) shown += 1;
    });
    var count = form.querySelector(".count");
    if (count) count.textContent = "showing " + shown + " of " + rows.length;
  }

  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), makeSortable);
  Array.prototype.forEach.call(document.querySelectorAll("form.filters"), function (form) {
    form.addEventListener("change", function () { applyFilters(form); });
    form.addEventListener("submit", function (e) { e.preventDefault(); });
    applyFilters(form);
  });
})();
