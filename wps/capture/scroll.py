"""The lazy-loading pass: scroll down in viewport steps, bounded in steps and time, then back up.

One ``evaluate`` runs the whole loop in the page (no round trip per step); it stops once the page
bottom is reached and the height stayed the same twice, or at the step or time bound. Native lazy
images (``loading=lazy``) are switched to eager first.

The pass is skipped on pages that cannot react to it: no intersection observer built, no
``scroll``/``wheel``/``touchmove`` listener added (both counted by :data:`SCROLL_WATCH_JS`, which
runs before the page's own scripts), no ``onscroll`` handler and no native lazy image or frame, in
the page and in each of its frames. Scrolling such a page changes nothing the capture reads, and the
pass was the largest single share of a saved page's rendering time. Missed: listeners added after
the settle time and CSS scroll-driven animations (``CaptureOptions.scroll_always`` scrolls every
page).

Pages whose document does not scroll but one large element does (``html, body {height: 100%;
overflow: hidden}`` around an ``overflow: auto`` app shell) are scrolled through that element,
then :func:`expand_scroll_container` lets it grow to its content (overflow visible, height auto on
it and its ancestors) so the walk, page height and screenshot see all of it. So are pages whose
document scrolls under a large fixed overlay that scrolls on its own (a post and its comments
opened over a feed): the reader reads the overlay, and its comments would otherwise stay below its
box, unreached. Trade-off: layouts that size children by the container's height (``height:
100%`` descendants, sticky headers) are captured in that expanded layout, which the reader never
saw; a ``position: fixed`` container or ancestor is made ``absolute`` for the same reason (the
page behind an overlay stays in the capture, under it).
"""

from __future__ import annotations

import asyncio
from typing import Any

from .options import CaptureOptions
from .quiet import QUIET_FN, STEP_QUIET_MS, bounded

# The element that scrolls the page when the document itself cannot: the largest visible element
# (at least half the viewport each way) whose content overflows with overflow-y auto|scroll|overlay.
_FIND_CONTAINER_JS = """() => {
  const before = window.scrollY;
  window.scrollTo(0, before + 1);
  let documentScrolls = window.scrollY !== before;
  if (!documentScrolls && before > 0) {  // already at the bottom
    window.scrollTo(0, before - 1);
    documentScrolls = window.scrollY !== before;
  }
  window.scrollTo(0, before);
  const fixed = (el) => {
    for (let node = el; node && node !== document.body; node = node.parentElement) {
      if (getComputedStyle(node).position === "fixed") return true;
    }
    return false;
  };
  let best = null, bestArea = 0;
  for (const el of document.body ? document.body.querySelectorAll("*") : []) {
    if (el.scrollHeight <= el.clientHeight + 1) continue;
    if (el.clientHeight < innerHeight / 2 || el.clientWidth < innerWidth / 2) continue;
    if (!/^(auto|scroll|overlay)$/.test(getComputedStyle(el).overflowY)) continue;
    if (documentScrolls && !fixed(el)) continue;  // the page scrolls: only an overlay beats it
    const area = el.clientWidth * el.clientHeight;
    if (area > bestArea) { best = el; bestArea = area; }
  }
  if (documentScrolls) return best;
  const body = document.body;
  if (!best && body && body.scrollHeight > body.clientHeight + 1
      && /^(auto|scroll|overlay)$/.test(getComputedStyle(body).overflowY)) best = body;
  return best;
}"""

SCROLL_WATCH_JS = """(() => {
  if (window.__wpsScrollWatch) return;
  const seen = {observers: 0, listeners: 0};
  Object.defineProperty(window, "__wpsScrollWatch", {value: seen});
  const Observer = window.IntersectionObserver;
  if (Observer) {
    window.IntersectionObserver = new Proxy(Observer, {
      construct(target, args, newTarget) {
        seen.observers += 1;
        return Reflect.construct(target, args, newTarget);
      },
    });
  }
  const kinds = new Set(["scroll", "scrollend", "wheel", "touchmove"]);
  const add = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function (type, ...rest) {
    if (kinds.has(type)) seen.listeners += 1;
    return add.call(this, type, ...rest);
  };
})()"""
"""Installed in every frame before the page's scripts: counts what could react to scrolling."""

_REACTS_JS = """() => {
  const seen = window.__wpsScrollWatch;
  return !seen || seen.observers > 0 || seen.listeners > 0
    || window.onscroll !== null || window.onwheel !== null || document.onscroll !== null
    || document.querySelector(
      "[onscroll], [onwheel], img[loading=lazy], iframe[loading=lazy]") !== null;
}"""

_SCROLL_JS = """async ([maxSteps, maxMs, pauseMs, quietMs]) => {
  const started = performance.now();
  const pause = quietMs < 0
    ? () => new Promise((resolve) => setTimeout(resolve, pauseMs))
    : () => (QUIET_FN)([pauseMs, quietMs, 2]);
  for (const image of document.querySelectorAll("img[loading=lazy]")) image.loading = "eager";
  const container = (FIND_CONTAINER)();
  const height = container ? () => container.scrollHeight
    : () => Math.max(document.documentElement.scrollHeight,
                     document.body ? document.body.scrollHeight : 0);
  const step = container ? () => container.clientHeight : () => window.innerHeight;
  const position = container ? () => container.scrollTop : () => window.scrollY;
  const scrollBy = container ? (y) => container.scrollBy(0, y) : (y) => window.scrollBy(0, y);
  let stable = 0, last = height(), steps = 0;
  while (steps < maxSteps && performance.now() - started < maxMs) {
    scrollBy(step());
    steps += 1;
    await pause();
    const now = height();
    const atBottom = position() + step() >= now - 1;
    stable = (atBottom && now === last) ? stable + 1 : 0;
    last = now;
    if (stable >= 2) break;
  }
  if (container) container.scrollTop = 0;
  window.scrollTo(0, 0);
  return stable >= 2 ? 0 : 1;
}""".replace("FIND_CONTAINER", _FIND_CONTAINER_JS).replace("QUIET_FN", QUIET_FN)

_EXPAND_JS = """() => {
  const container = (FIND_CONTAINER)();
  if (!container) return false;
  const important = (el, name, value) => el.style.setProperty(name, value, "important");
  window.scrollTo(0, 0);  // a fixed box made absolute stays where the reader saw it
  for (let el = container; el && el.nodeType === 1; el = el.parentElement) {
    if (getComputedStyle(el).position === "fixed") important(el, "position", "absolute");
    important(el, "overflow", "visible");
    important(el, "height", "auto");
    important(el, "max-height", "none");
  }
  return true;
}""".replace("FIND_CONTAINER", _FIND_CONTAINER_JS)

_NEXT_FRAME_JS = "new Promise((resolve) => requestAnimationFrame(() => resolve(true)))"


MAX_CHECKED_FRAMES = 20
"""A page with more frames than this is scrolled without checking them all."""
FRAME_CHECK_S = 0.5
"""A frame that does not answer within this time (a script keeps it busy) counts as reacting."""


async def reacts_to_scrolling(page: Any) -> bool:
    """Could scrolling change what ``page`` or one of its frames shows? (True in a document where
    :data:`SCROLL_WATCH_JS` did not run, or that could not be asked.)"""
    from playwright.async_api import Error

    frames = page.frames
    if len(frames) > MAX_CHECKED_FRAMES:
        return True
    for frame in frames:  # the main frame first; blocked frames hold Chromium's error page
        if frame.is_detached():
            continue
        try:
            if await asyncio.wait_for(frame.evaluate(_REACTS_JS), FRAME_CHECK_S):
                return True
        except (Error, asyncio.TimeoutError, TimeoutError):  # a busy frame: scroll to be sure
            if not frame.is_detached():
                return True
    return False


async def lazy_scroll(page: Any, options: CaptureOptions, seconds: float) -> bool:
    """Scroll down in viewport steps so lazy content loads; True if a bound stopped it."""
    if options.scroll_max_steps <= 0 or seconds <= 0:
        return False
    quiet_ms = -1 if options.settle_fixed else STEP_QUIET_MS
    truncated = await bounded(page.evaluate(
        _SCROLL_JS,
        [options.scroll_max_steps, seconds * 1000, options.scroll_pause_s * 1000, quiet_ms]),
        seconds + options.scroll_pause_s)
    if truncated is None:  # the page stopped its timers and frames: the pass ended unfinished
        return True
    await bounded(page.evaluate(_NEXT_FRAME_JS), 0)
    return bool(truncated)


# Inner scrolling containers (comment overlays, chat panes, code boxes) whose content goes on below
# their visible box: the capture holds only what they show, so they are reported, not guessed at.
_UNREACHED_JS = """(limit) => {
  const found = [];
  for (const el of document.querySelectorAll("body *")) {
    const hidden = el.scrollHeight - el.clientHeight;
    if (hidden < limit || el.clientHeight === 0) continue;
    const overflow = getComputedStyle(el).overflowY;
    if (overflow !== "auto" && overflow !== "scroll" && overflow !== "overlay") continue;
    const r = el.getBoundingClientRect();
    found.push({tag: el.tagName, class: (el.getAttribute("class") || "").slice(0, 80),
                hidden_px: Math.round(hidden),
                box: [r.left + scrollX, r.top + scrollY, r.right + scrollX, r.bottom + scrollY]
                  .map(Math.round)});
  }
  return found.sort((a, b) => b.hidden_px - a.hidden_px).slice(0, 20);
}"""
UNREACHED_MIN_PX = 100
"""Content hidden below a scrolling container's box by less than this is not reported."""


async def unreached_scroll_content(page: Any) -> list[dict[str, Any]]:
    """The inner scrolling containers whose content the capture could not reach (largest first,
    at most 20): tag, class, hidden pixels and the container's box."""
    from .dom import well_formed

    found = list(await page.evaluate(_UNREACHED_JS, UNREACHED_MIN_PX))
    for item in found:  # a class name is the page's text
        item["class"] = well_formed(str(item.get("class", "")))
    return found


async def expand_scroll_container(page: Any) -> bool:
    """Let the element that scrolls instead of the document grow to its content; True if found.

    Run after the lazy pass and before the walk and screenshot (see the module docstring for the
    trade-off). A page whose document scrolls is left alone.
    """
    expanded = bool(await page.evaluate(_EXPAND_JS))
    if expanded:
        await bounded(page.evaluate(_NEXT_FRAME_JS), 0)
    return expanded
