"""Waiting for a page to go quiet: the settle wait and the lazy-scroll pauses end as soon as
nothing the page started can still change what the capture reads, instead of after a fixed time.

:data:`QUIET_WATCH_JS` runs in every frame before the page's own scripts and keeps what is still
under way: one-shot timers (``setTimeout``, ``requestIdleCallback``) with their due times,
``fetch`` and ``XMLHttpRequest`` requests in flight, and the time of the last DOM mutation. A
page is quiet when, in it and in its same-origin frames, no such timer falls due before the wait's
bound, no request is in flight, no finite CSS animation or transition is running and the DOM has
not changed for :data:`QUIET_MS` (the wait's shortest form: a page that parsed that long ago).
Repeating work (``setInterval``, animation frames, infinite animations) never ends, so it does not
hold the wait; the bound (``settle_s``, ``scroll_pause_s``) still caps it, as the fixed wait did.

A page whose scripts change the DOM at load + 300 ms through a timer is waited for, as before; one
that changes it through something not watched (a ``postMessage`` chain, a worker) after
:data:`QUIET_MS` of calm is captured before that change (``CaptureOptions.settle_fixed`` waits the
whole bound). Most saved and served pages are quiet within a frame or two of ``load``: a fixed half
second of idle rendering was most of a batch page's latency and a fifth of Chromium's CPU.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from typing import Any

QUIET_MS = 100
"""How long the DOM must not have changed (ms) for the settle wait to end."""
STEP_QUIET_MS = 40
"""The same, after each step of the lazy-scroll pass (an intersection observer fires on the next
frame; what it fetches and the timers it sets are waited for)."""
GRACE_S = 1.0
"""How much longer than its bound an in-page wait may take before it is given up: the page owns
the timers and frames the wait polls with, and a hostile page can stop them."""

QUIET_WATCH_JS = """(() => {
  if (window.__wpsQuiet) return;
  const timers = new Map(), state = {requests: 0, changed: performance.now(), timers,
                                     raw: {setTimeout, clearTimeout}};
  Object.defineProperty(window, "__wpsQuiet", {value: state});
  const wrapTimer = (setName, clearName) => {
    const set = window[setName], clear = window[clearName];
    if (typeof set !== "function") return;
    window[setName] = function (callback, delay, ...rest) {
      if (typeof callback !== "function") return set.call(window, callback, delay, ...rest);
      let id;
      const due = performance.now() + (setName === "setTimeout" ? Math.max(0, +delay || 0) : 0);
      id = set.call(window, function (...args) {
        timers.delete(id);
        return callback.apply(this, args);
      }, delay, ...rest);
      timers.set(id, due);
      return id;
    };
    if (typeof clear === "function") {
      window[clearName] = function (id) {
        timers.delete(id);
        return clear.call(window, id);
      };
    }
  };
  wrapTimer("setTimeout", "clearTimeout");
  wrapTimer("requestIdleCallback", "cancelIdleCallback");
  const fetch = window.fetch;
  if (typeof fetch === "function") {
    window.fetch = function (...args) {
      state.requests += 1;
      let pending;
      try {
        pending = fetch.apply(this, args);
      } catch (error) {
        state.requests -= 1;
        throw error;
      }
      const done = () => { state.requests -= 1; };
      Promise.resolve(pending).then(done, done);
      return pending;
    };
  }
  const Request = window.XMLHttpRequest;
  if (Request) {
    const send = Request.prototype.send;
    Request.prototype.send = function (...args) {
      state.requests += 1;
      this.addEventListener("loadend", () => { state.requests -= 1; }, {once: true});
      try {
        return send.apply(this, args);
      } catch (error) {
        state.requests -= 1;
        throw error;
      }
    };
  }
  new MutationObserver(() => { state.changed = performance.now(); }).observe(
    document, {childList: true, subtree: true, attributes: true, characterData: true});
})()"""
"""Installed in every frame before the page's scripts: what could still change the page."""

QUIET_FN = """async ([boundMs, quietMs, minFrames]) => {
  const started = performance.now(), until = started + boundMs;
  const raw = window.__wpsQuiet ? window.__wpsQuiet.raw : {setTimeout, clearTimeout};
  const windows = () => {
    const found = [window];
    for (let index = 0; index < found.length && found.length < 50; index += 1) {
      for (let child = 0; child < found[index].frames.length; child += 1) {
        try {
          if (found[index].frames[child].__wpsQuiet) found.push(found[index].frames[child]);
        } catch (error) {}  // another origin's frame
      }
    }
    return found;
  };
  const busy = (win, now) => {
    const state = win.__wpsQuiet;
    if (!state) return false;  // a document the watch did not reach: nothing known to wait for
    if (state.requests > 0 || now - state.changed < quietMs) return true;
    for (const due of state.timers.values()) if (due <= until) return true;
    const doc = win.document;
    if (doc.fonts && doc.fonts.status === "loading") return true;
    for (const image of doc.images) if (!image.complete && image.loading !== "lazy") return true;
    for (const animation of doc.getAnimations ? doc.getAnimations() : []) {
      if (animation.playState !== "running" || !animation.effect) continue;
      if (Number.isFinite(animation.effect.getComputedTiming().endTime)) return true;
    }
    return false;
  };
  const frame = () => new Promise((resolve) => {
    const timer = raw.setTimeout.call(window, resolve, 50);  // no frames in a hidden page
    requestAnimationFrame(() => { raw.clearTimeout.call(window, timer); resolve(); });
  });
  for (let frames = 0; ; frames += 1) {
    const now = performance.now();
    if (now >= until) return false;
    if (frames >= minFrames && !windows().some((win) => { try { return busy(win, now); }
                                                         catch (error) { return false; } }))
      return true;
    await frame();
  }
}"""
"""Wait (in the page) until it is quiet or ``boundMs`` have passed, after at least ``minFrames``
animation frames; true if it went quiet."""

_WAIT_QUIET_JS = f"([boundMs, quietMs]) => ({QUIET_FN})([boundMs, quietMs, 0])"


async def wait_until_quiet(page: Any, bound_s: float, quiet_ms: int = QUIET_MS) -> None:
    """Wait until ``page`` is quiet (see the module docstring), at most ``bound_s`` seconds.

    A navigation under way destroys the page's context: the rest of the bound is then waited as
    a fixed time, as before (the caller captures where the page lands).
    """
    from playwright.async_api import Error

    if bound_s <= 0:
        return
    until = time.perf_counter() + bound_s
    try:
        await bounded(page.evaluate(_WAIT_QUIET_JS, [bound_s * 1000, quiet_ms]), bound_s)
    except Error:
        left = until - time.perf_counter()
        if left > 0:
            await page.wait_for_timeout(left * 1000)


async def bounded(wait: Awaitable[Any], bound_s: float) -> Any:
    """``wait`` (an in-page wait of at most ``bound_s``), or ``None`` once it has taken
    :data:`GRACE_S` longer: the page stopped the timers and frames it polls with."""
    try:
        return await asyncio.wait_for(wait, bound_s + GRACE_S)
    except (asyncio.TimeoutError, TimeoutError):
        return None
