"""Benchmark page capture: DOM capture of a 5,000-element page and a 1366x10,000 screenshot.

Usage: .venv/bin/python scripts/bench_capture.py [--runs 5]
Prints the median of the runs; target: DOM capture <= 0.5 s for 5,000 elements.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from wps.capture import Browser, CaptureOptions, discard_screenshot


def element_page(count: int) -> str:
    """A page of ``count`` elements: sections of headings, paragraphs with links and lists."""
    parts, made = [], 1  # BODY
    while made < count:
        parts.append("<section><h2>Heading</h2><p>Some text with <a href='#'>a link</a> "
                     "and <b>bold</b> words.</p><ul><li>one</li><li>two</li></ul></section>")
        made += 8
    return "<!doctype html><html><body>" + "".join(parts) + "</body></html>"


def tall_page(height: int) -> str:
    return ("<!doctype html><html><body style='margin:0'>"
            f"<div style='height:{height}px;background:linear-gradient(#fff,#06c)'></div>"
            "</body></html>")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--elements", type=int, default=5000)
    parser.add_argument("--height", type=int, default=10_000)
    args = parser.parse_args()
    base = CaptureOptions(settle_s=0, scroll_max_steps=0)
    with tempfile.TemporaryDirectory() as folder, Browser(base) as browser:
        dense = Path(folder) / "dense.html"
        dense.write_text(element_page(args.elements), encoding="utf-8")
        tall = Path(folder) / "tall.html"
        tall.write_text(tall_page(args.height), encoding="utf-8")
        browser.capture(dense, CaptureOptions(settle_s=0, scroll_max_steps=0, screenshot=False))
        dom, totals, shots, nodes = [], [], [], 0
        for _ in range(args.runs):
            capture = browser.capture(
                dense, CaptureOptions(settle_s=0, scroll_max_steps=0, screenshot=False))
            dom.append(capture.timings["dom_s"])
            totals.append(capture.timings["total_s"])
            nodes = len(capture.nodes)
        for _ in range(args.runs):
            capture = browser.capture(tall, base)
            shots.append(capture.timings["screenshot_s"])
            discard_screenshot(capture.screenshot)
    print(f"DOM capture, {args.elements} elements ({nodes} nodes incl. text): "
          f"median {statistics.median(dom):.3f} s (walk + parse + page.content), "
          f"runs {[round(value, 3) for value in dom]}")
    print("whole page without screenshot (navigate .. dom): "
          f"median {statistics.median(totals):.3f} s")
    print(f"screenshot 1366x{args.height}: median {statistics.median(shots):.3f} s, "
          f"runs {[round(value, 3) for value in shots]}")


if __name__ == "__main__":
    main()
