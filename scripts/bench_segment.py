"""Segmenter speed without rendering: Webis page 000000, the 121 article pages, a 5,000-node page.

Article pages are rendered once (offline) into a cache folder shared with the article benchmark
(``.wps-cache/articles``; ``--cache /work/captures/articles-nojs`` reads a finished one); only
segmentation is timed, as the median of several runs per page, wall clock and CPU time (the machine
may be shared).

    .venv/bin/python scripts/bench_segment.py [--repeats 5] [--segmenter dom-cohesion] [--pages N]

The Webis and generated pages use the segmenter's default options. On the article pages, a
segmenter with a ``use_screenshot`` option (dom-cohesion's Canny tightening, vips's visual
separators) is timed with it off and on, on the pages whose capture has a screenshot; any other
segmenter (``ensemble``, ``xycut``) is timed with its defaults.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from pathlib import Path

from wps.benchmark.articles import cached_captures, load_benchmark
from wps.benchmark.synthetic import generated_capture
from wps.errors import SegmentationError, UsageError
from wps.model import PageCapture
from wps.segmenters import Segmenter, build_segmenter
from wps.webis import capture_from_webis

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"


def median_seconds(segmenter: Segmenter, capture: PageCapture, repeats: int) -> tuple[float, float]:
    """Median wall-clock and CPU seconds of ``repeats`` segmentations of ``capture``."""
    wall, cpu = [], []
    for _ in range(repeats):
        started, started_cpu = time.perf_counter(), time.process_time()
        segmenter.segment(capture)
        wall.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
    return statistics.median(wall), statistics.median(cpu)


def screenshot_variants(name: str) -> dict[str, Segmenter]:
    """The segmenter with ``use_screenshot`` off and on, or with its defaults where it has no
    such option (the registry rejects options a segmenter does not take)."""
    try:
        return {
            "use_screenshot=False": build_segmenter(name, use_screenshot=False),
            "use_screenshot=True (PNG decode included)": build_segmenter(name, use_screenshot=True),
        }
    except UsageError:
        return {"default options": build_segmenter(name)}


def has_screenshot(capture: PageCapture) -> bool:
    return capture.screenshot is not None and Path(capture.screenshot).is_file()


def summary(times: list[float]) -> str:
    times = sorted(times)
    p90 = times[math.ceil(0.9 * len(times)) - 1]  # nearest rank
    return (f"median {statistics.median(times) * 1000:.1f} ms, p90 {p90 * 1000:.1f} ms, "
            f"max {times[-1] * 1000:.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--segmenter", default="dom-cohesion")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--webis-page", type=Path, default=SHARED / "webis-webseg-20-sample/000000")
    parser.add_argument("--articles", type=Path, default=SHARED / "article-extraction-benchmark")
    parser.add_argument("--cache", type=Path, default=REPO / ".wps-cache" / "articles")
    parser.add_argument("--pages", type=int, default=None, help="first N article pages only")
    parser.add_argument("--nodes", type=int, default=5000)
    args = parser.parse_args()
    segmenter = build_segmenter(args.segmenter)

    webis = capture_from_webis(args.webis_page)
    generated = generated_capture(args.nodes, seed=1)
    elements = sum(not node.is_text for node in generated.nodes)
    for label, capture in (
        (f"webis {args.webis_page.name} ({len(webis.nodes)} nodes)", webis),
        (f"generated page ({elements} elements, {len(generated.nodes)} nodes)", generated),
    ):
        try:
            wall, cpu = median_seconds(segmenter, capture, args.repeats)
        except SegmentationError as err:  # xycut and the vision segmenters need a screenshot
            print(f"{label}, default options: not timed ({err})")
            continue
        print(f"{label}, default options: median wall {wall * 1000:.1f} ms, "
              f"cpu {cpu * 1000:.1f} ms")

    _, files = load_benchmark(args.articles)
    if args.pages is not None:
        files = dict(list(files.items())[: args.pages])
    variants = screenshot_variants(args.segmenter)
    walls: dict[str, list[float]] = {label: [] for label in variants}
    cpus: dict[str, list[float]] = {label: [] for label in variants}
    sizes, failures, without_screenshot = [], 0, 0
    for _key, capture, _error in cached_captures(files, args.cache):
        if capture is None:
            failures += 1
            continue
        if len(variants) > 1 and not has_screenshot(capture):
            without_screenshot += 1  # use_screenshot=True would time the DOM steps again
            continue
        for label, variant in variants.items():
            wall, cpu = median_seconds(variant, capture, args.repeats)
            walls[label].append(wall)
            cpus[label].append(cpu)
        sizes.append(len(capture.nodes))
    print(f"articles: {len(sizes)} pages timed ({failures} failed to render, {without_screenshot} "
          f"without a screenshot left out), nodes median {statistics.median(sizes):.0f}, "
          f"max {max(sizes)}")
    for label in variants:
        print(f"  {args.segmenter}, {label}: wall {summary(walls[label])}; "
              f"cpu {summary(cpus[label])}")


if __name__ == "__main__":
    main()
