// wps page report: selection, hover preview, filters and keyboard navigation.
// Page text is shown with textContent only; it never becomes markup.
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("segment-data").textContent);
  const stage = document.getElementById("stage");
  const list = document.getElementById("items");
  const detail = document.getElementById("detail");
  const announce = document.getElementById("announce");  // selection only, not every hover
  const hint = detail.innerHTML;
  const page = document.getElementById("page");
  const stageWidth = Number(stage.dataset.width);
  const boxes = [], items = [];
  for (const box of stage.querySelectorAll(".seg")) boxes[Number(box.dataset.index)] = box;
  for (const item of list.querySelectorAll(".item")) items[Number(item.dataset.index)] = item;
  let selected = -1, hovered = -1;

  function el(tag, text, cls) {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (cls) node.className = cls;
    return node;
  }

  function table(object) {
    const body = el("table");
    for (const [key, value] of Object.entries(object)) {
      const row = body.insertRow();
      row.appendChild(el("th", key));
      const shown = typeof value === "number" && !Number.isInteger(value)
        ? value.toFixed(4) : typeof value === "object" ? JSON.stringify(value) : value;
      row.appendChild(el("td", shown));
    }
    return body;
  }

  function fields(object) {
    // one key above its value, full width: a long value (a main text before trimming) stays
    // readable instead of squeezed into a table column
    const list = el("dl", null, "fields");
    for (const [key, value] of Object.entries(object)) {
      list.appendChild(el("dt", key));
      const shown = typeof value === "object" ? JSON.stringify(value) : String(value);
      const cell = el("dd");
      cell.appendChild(el(shown.length > 80 ? "pre" : "span", shown));
      list.appendChild(cell);
    }
    return list;
  }

  function render(index) {
    detail.replaceChildren();
    if (index < 0) { detail.innerHTML = hint; return; }
    const seg = data[index];
    const word = seg.kept ? "kept" : "dropped";
    detail.appendChild(el("h2", "Segment " + seg.n + " \u2014 " + (seg.kept ? "\u2713 " : "\u2717 ") + word));
    const facts = {id: seg.id};
    if (seg.kind) facts.kind = seg.kind;
    if (seg.prose_score !== null && seg.prose_score !== undefined) facts["prose score"] = seg.prose_score;
    detail.appendChild(table(facts));
    if (boxes[index].classList.contains("beyond")) {
      detail.appendChild(el("p", "Below the screenshot: the page was taller than the screenshot, " +
        "so the outline marks an area the picture does not show.", "beyond-note"));
    }
    detail.appendChild(el("h3", "Reasons"));
    if (seg.reasons.length) {
      const reasons = el("ul", null, "reasons");
      seg.reasons.forEach((reason, i) => {  // what it means (wps/reasons.toml) on hover
        reasons.appendChild(el("li", reason)).title = seg.why[i] || "";
      });
      detail.appendChild(reasons);
    } else {
      detail.appendChild(el("p", seg.kept ? "none (kept)" : "none given"));
    }
    detail.appendChild(el("h3", "Text (" + seg.text.length + " characters)"));
    detail.appendChild(el("pre", seg.text || "(no text)", "text"));
    detail.appendChild(el("h3", "Main text"));
    detail.appendChild(seg.main_text === null ? el("p", "none (no text step)")
      : el("pre", seg.main_text || "(none of the page's main text is here)", "main-text"));
    if (Object.keys(seg.stats).length) {
      detail.appendChild(el("h3", "Statistics"));
      detail.appendChild(table(seg.stats));
    }
    if (Object.keys(seg.fields).length) {
      detail.appendChild(el("h3", "Other fields"));
      detail.appendChild(fields(seg.fields));
    }
  }

  function showInList(item) {
    // Scroll the list only: scrollIntoView would scroll the page under the pointer too. The
    // position is measured, not read from offsetTop: each entry is contained
    // (content-visibility), so it is its own button's offsetParent and offsetTop is 0.
    const entry = item.parentElement;
    const top = entry.getBoundingClientRect().top - list.getBoundingClientRect().top + list.scrollTop;
    const bottom = top + entry.offsetHeight;
    if (top < list.scrollTop) list.scrollTop = top;
    else if (bottom > list.scrollTop + list.clientHeight) list.scrollTop = bottom - list.clientHeight;
  }

  function select(index, scrollPage) {
    if (selected >= 0) {
      boxes[selected].classList.remove("selected");
      items[selected].removeAttribute("aria-current");
    }
    selected = index;
    render(index);
    if (index < 0) return;
    announce.textContent = boxes[index].getAttribute("aria-label");
    boxes[index].classList.add("selected");
    items[index].setAttribute("aria-current", "true");
    showInList(items[index]);
    if (scrollPage) boxes[index].scrollIntoView({block: "center", inline: "nearest"});
  }

  const decisionInputs = document.querySelectorAll("input[name=decision]");
  const reasonFilter = document.getElementById("reason-filter");
  const kindFilter = document.getElementById("kind-filter");
  const shown = document.getElementById("shown");

  function visible(index) {
    const seg = data[index];
    const decision = document.querySelector("input[name=decision]:checked").value;
    if (decision === "kept" && !seg.kept) return false;
    if (decision === "dropped" && seg.kept) return false;
    if (reasonFilter.value && !seg.reasons.includes(reasonFilter.value)) return false;
    if (kindFilter && kindFilter.value && seg.kind !== kindFilter.value) return false;
    return true;
  }

  function applyFilters() {
    let count = 0;
    for (let i = 0; i < data.length; i++) {
      const show = visible(i);
      boxes[i].hidden = !show;
      items[i].parentElement.hidden = !show;
      count += show;
    }
    shown.textContent = count + " of " + data.length + " segments shown";
    if (selected >= 0 && !visible(selected)) select(-1, false);
  }

  function step(direction) {
    let i = selected;
    for (let n = 0; n < data.length; n++) {
      i = i < 0 ? (direction > 0 ? 0 : data.length - 1) : i + direction;
      if (i < 0 || i >= data.length) return;
      if (visible(i)) { select(i, true); items[i].focus({preventScroll: true}); return; }
    }
  }

  function boxAt(event) {
    // A number label belongs to its box; elsewhere the smallest shown box under the pointer
    // wins, whichever is drawn on top: a post's outline around its body, a selected box raised
    // above the others, never hide the segments inside them.
    const label = event.target.closest(".label");
    if (label) return Number(label.parentElement.dataset.index);
    const rect = stage.getBoundingClientRect();
    const scale = rect.width / stageWidth;
    const x = (event.clientX - rect.left) / scale, y = (event.clientY - rect.top) / scale;
    let best = -1, bestArea = Infinity;
    for (let i = 0; i < data.length; i++) {
      const [left, top, width, height] = data[i].box;
      if (boxes[i].hidden || x < left || y < top || x > left + width || y > top + height) continue;
      if (width * height < bestArea) { best = i; bestArea = width * height; }
    }
    return best;
  }

  function hover(index) {
    if (index === hovered) return;
    if (hovered >= 0) boxes[hovered].classList.remove("hovered");
    hovered = index;
    if (index >= 0) boxes[index].classList.add("hovered");
    render(index >= 0 ? index : selected);
  }

  stage.addEventListener("click", (event) => {
    const index = boxAt(event);
    if (index >= 0) select(index, false);
  });
  let pointer = null;  // the latest move, handled once per frame
  stage.addEventListener("mousemove", (event) => {
    if (pointer === null) requestAnimationFrame(() => {
      if (pointer !== null) hover(boxAt(pointer));
      pointer = null;
    });
    pointer = event;
  });
  stage.addEventListener("mouseleave", () => { pointer = null; hover(-1); });
  list.addEventListener("click", (event) => {
    const item = event.target.closest(".item");
    if (item) select(Number(item.dataset.index), true);
  });
  for (const input of decisionInputs) input.addEventListener("change", applyFilters);
  reasonFilter.addEventListener("change", applyFilters);
  if (kindFilter) kindFilter.addEventListener("change", applyFilters);
  const zoom = document.getElementById("zoom");
  function applyZoom() {
    // "fit width": the whole page width in view, never enlarged
    const style = getComputedStyle(page);
    const room = page.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    stage.style.zoom = zoom.value === "fit" ? Math.min(1, room / stageWidth) : zoom.value;
  }
  zoom.addEventListener("change", applyZoom);
  window.addEventListener("resize", () => { if (zoom.value === "fit") applyZoom(); });
  document.getElementById("filters").addEventListener("submit", (event) => event.preventDefault());
  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const inForm = event.target.closest("select, textarea, input:not([type=radio])");
    const inList = list.contains(event.target);
    if (!inForm && (event.key === "j" || (inList && event.key === "ArrowDown"))) {
      step(1); event.preventDefault();
    } else if (!inForm && (event.key === "k" || (inList && event.key === "ArrowUp"))) {
      step(-1); event.preventDefault();
    } else if (event.key === "Enter" && !inForm && !inList && selected >= 0) {
      boxes[selected].scrollIntoView({block: "center", inline: "nearest"});
      event.preventDefault();
    } else if (event.key === "Escape") {
      select(-1, false);
    }
  });
  applyZoom();
  applyFilters();
})();
