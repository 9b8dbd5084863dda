"""The lazy-loading pass: scroll down in viewport steps, bounded in steps and time, then back up.

One ``evaluate`` runs the whole loop in the page (no round trip per step); it stops once the page
bottom is reached and the height stayed the same twice, or at the step or time bound. Native lazy
images (``loading=lazy``) are switched to eager first.
"""

from __future__ import annotations

from typing import Any

from .options import CaptureOptions

_SCROLL_JS = """async ([maxSteps, maxMs, pauseMs]) => {
  const started = performance.now();
  for (const image of document.querySelectorAll("img[loading=lazy]")) image.loading = "eager";
  const height = () => Math.max(document.documentElement.scrollHeight,
                                document.body ? document.body.scrollHeight : 0);
  let stable = 0, last = height(), steps = 0;
  while (steps < maxSteps && performance.now() - started < maxMs) {
    window.scrollBy(0, window.innerHeight);
    steps += 1;
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
    const now = height();
    const atBottom = window.scrollY + window.innerHeight >= now - 1;
    stable = (atBottom && now === last) ? stable + 1 : 0;
    last = now;
    if (stable >= 2) break;
  }
  window.scrollTo(0, 0);
  return stable >= 2 ? 0 : 1;
}"""


async def lazy_scroll(page: Any, options: CaptureOptions, seconds: float) -> bool:
    """Scroll down in viewport steps so lazy content loads; True if a bound stopped it."""
    if options.scroll_max_steps <= 0 or seconds <= 0:
        return False
    truncated = await page.evaluate(
        _SCROLL_JS, [options.scroll_max_steps, seconds * 1000, options.scroll_pause_s * 1000]
    )
    await page.evaluate("new Promise((resolve) => requestAnimationFrame(() => resolve(true)))")
    return bool(truncated)
