// wps batch report: sort the pages table by a column (click its heading; again to reverse).
"use strict";
(function () {
  const table = document.getElementById("pages");
  const body = table.tBodies[0];
  const headings = Array.from(table.tHead.rows[0].cells);

  function key(row, column, numeric) {
    const value = row.cells[column].dataset.value;
    if (!numeric) return value.toLowerCase();
    return value === "" ? -Infinity : Number(value);
  }

  headings.forEach((heading, column) => {
    heading.querySelector("button").addEventListener("click", () => {
      const numeric = heading.dataset.type === "num";
      const ascending = heading.getAttribute("aria-sort") !== "ascending";
      const rows = Array.from(body.rows);
      rows.sort((a, b) => {
        const x = key(a, column, numeric), y = key(b, column, numeric);
        const order = x < y ? -1 : x > y ? 1 : 0;
        return ascending ? order : -order;
      });
      for (const other of headings) other.setAttribute("aria-sort", "none");
      heading.setAttribute("aria-sort", ascending ? "ascending" : "descending");
      body.append(...rows);
    });
  });
})();
