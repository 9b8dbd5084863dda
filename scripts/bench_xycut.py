"""Benchmark the xycut segmenter: a synthetic 1366x10,000 page and the Webis sample screenshots.

Usage: .venv/bin/python scripts/bench_xycut.py [--runs 5] [--sample ../shared/webis-webseg-20-sample]
Prints the median of the runs, with and without reading the PNG; target: <= 1 s for 1366x10,000.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from wps.model import PageCapture
from wps.segmenters.xycut import XYCutSegmenter, load_screenshot

DEFAULT_SAMPLE = Path("/work/shared/webis-webseg-20-sample")


def synthetic_page(path: Path, width: int = 1366, height: int = 10_000) -> None:
    """A tall page of text blocks in two columns, rules, and a coloured header and footer."""
    from PIL import Image, ImageDraw, ImageFont

    rng = random.Random(0)
    font = ImageFont.load_default(size=14)
    words = ["the", "quick", "brown", "fox", "jumps", "over", "a", "lazy", "dog", "while", "segment", "pages", "cut"]
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    draw.rectangle([0, 0, width - 1, 90], fill=(40, 60, 120))
    draw.text((40, 35), "Synthetic benchmark page", font=font, fill="white")
    top = 130
    while top < height - 300:
        for left, right in ((40, 900), (960, 1320)):
            lines = rng.randint(3, 12)
            for line in range(lines):
                text = " ".join(rng.choice(words) for _ in range((right - left) // 60))
                draw.text((left, top + 20 * line), text, font=font, fill="black")
        top += 20 * 12 + 30
        if rng.random() < 0.3:
            draw.line([40, top - 15, width - 40, top - 15], fill=(180, 180, 180))
    draw.rectangle([0, height - 200, width - 1, height - 1], fill=(50, 50, 50))
    image.save(path)


def median_seconds(function: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def bench(path: Path, runs: int, label: str) -> None:
    segmenter = XYCutSegmenter()
    from PIL import Image

    with Image.open(path) as image:
        width, height = image.size
    page = PageCapture(url=str(path), width=width, height=height, nodes=[], page_id=label,
                       screenshot=path)
    rgb = load_screenshot(page, label)
    segmenter.regions(rgb)  # warm up OpenCV
    whole = median_seconds(lambda: segmenter.segment(page), runs)
    cutting = median_seconds(lambda: segmenter.regions(rgb), runs)
    count = len(segmenter.segment(page).segments)
    print(f"{label:>12}  {width}x{height:<6}  segment (with PNG read) {whole:6.3f} s   "
          f"cut only {cutting:6.3f} s   {count} segments")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sample", type=Path, default=DEFAULT_SAMPLE)
    args = parser.parse_args()
    print(f"xycut, median of {args.runs} runs")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "synthetic.png"
        synthetic_page(path)
        bench(path, args.runs, "synthetic")
    for page_png in sorted(args.sample.glob("*/page.png")):
        bench(page_png, args.runs, page_png.parent.name)


if __name__ == "__main__":
    main()
