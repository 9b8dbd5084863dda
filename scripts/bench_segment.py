"""Segmenter speed without rendering: Webis page 000000, the 121 article pages, a 5,000-node page.

Article pages are rendered once (offline) into a cache folder shared with the article benchmark
(``.wps-cache/articles``); only segmentation is timed, as the median of several runs per page.

    .venv/bin/python scripts/bench_segment.py [--repeats 5] [--segmenter dom-cohesion]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from wps.benchmark.articles import cached_captures, load_benchmark
from wps.benchmark.synthetic import generated_capture
from wps.model import PageCapture
from wps.segmenters import build_segmenter
from wps.webis import capture_from_webis

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"


def median_seconds(segmenter, capture: PageCapture, repeats: int) -> float:
    runs = []
    for _ in range(repeats):
        started = time.perf_counter()
        segmenter.segment(capture)
        runs.append(time.perf_counter() - started)
    return statistics.median(runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--segmenter", default="dom-cohesion")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--webis-page", type=Path, default=SHARED / "webis-webseg-20-sample/000000")
    parser.add_argument("--articles", type=Path, default=SHARED / "article-extraction-benchmark")
    parser.add_argument("--cache", type=Path, default=REPO / ".wps-cache" / "articles")
    parser.add_argument("--nodes", type=int, default=5000)
    args = parser.parse_args()
    segmenter = build_segmenter(args.segmenter)

    webis = capture_from_webis(args.webis_page)
    seconds = median_seconds(segmenter, webis, args.repeats)
    print(f"webis {args.webis_page.name}: {len(webis.nodes)} nodes, median {seconds * 1000:.1f} ms")

    generated = generated_capture(args.nodes, seed=1)
    seconds = median_seconds(segmenter, generated, args.repeats)
    elements = sum(not node.is_text for node in generated.nodes)
    print(f"generated page: {elements} elements ({len(generated.nodes)} nodes), "
          f"median {seconds * 1000:.1f} ms")

    _, files = load_benchmark(args.articles)
    dom_only = build_segmenter(args.segmenter, use_screenshot=False)
    with_canny, without_canny, sizes, failures = [], [], [], 0
    for _key, capture, _error in cached_captures(files, args.cache):
        if capture is None:
            failures += 1
            continue
        with_canny.append(median_seconds(segmenter, capture, args.repeats))
        without_canny.append(median_seconds(dom_only, capture, args.repeats))
        sizes.append(len(capture.nodes))
    print(f"articles: {len(sizes)} pages ({failures} failed to render), nodes median "
          f"{statistics.median(sizes):.0f}, max {max(sizes)}")
    for label, times in (("DOM steps only", without_canny),
                         ("with Canny tightening (PNG decode included)", with_canny)):
        times.sort()
        print(f"  {label}: median {statistics.median(times) * 1000:.1f} ms, p90 "
              f"{times[int(0.9 * (len(times) - 1))] * 1000:.1f} ms, max {times[-1] * 1000:.1f} ms")

if __name__ == "__main__":
    main()
