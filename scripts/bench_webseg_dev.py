"""Speed targets on the webseg-dev pages: the default segmenter (``wps.pipeline.DEFAULT_SEGMENTER``)
at most 0.1 s per page (issue 23), vips and the ensemble at most 0.5 s (issue 10).

Each page is segmented ``--repeats`` times (screenshot decoding included: nothing is cached
between runs); a page's time is the fastest run (the least disturbed by other work on a shared
machine), the verdict is on the median over pages. Exits 1 when a segmenter misses the target.

    .venv/bin/python scripts/bench_webseg_dev.py [--segmenters dom-cohesion,vips,ensemble] [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PAGES = REPO.parent / "shared" / "webseg-dev" / "pages"
TARGET_S = 0.5
DEFAULT_TARGET_S = 0.1
"""The default segmenter runs on every page of a batch: it has the tighter target."""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--segmenters", default="dom-cohesion,vips,ensemble")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--pages", type=Path, default=PAGES)
    args = parser.parse_args()

    from wps.pipeline import DEFAULT_SEGMENTER
    from wps.segmenters import build_segmenter
    from wps.webis import capture_from_webis

    folders = sorted(p for p in args.pages.iterdir() if (p / "nodes.csv").is_file())
    captures = [capture_from_webis(folder) for folder in folders]
    missed = []
    for name in args.segmenters.split(","):
        segmenter = build_segmenter(name)
        fastest = []
        for capture in captures:
            runs = []
            for _ in range(args.repeats):
                started = time.perf_counter()
                segmenter.segment(capture)
                runs.append(time.perf_counter() - started)
            fastest.append(min(runs))
        median = statistics.median(fastest)
        target = DEFAULT_TARGET_S if name == DEFAULT_SEGMENTER else TARGET_S
        verdict = "ok" if median <= target else "MISSED"
        if median > target:
            missed.append(name)
        pages = " ".join(f"{folder.name}={seconds:.3f}" for folder, seconds in
                         zip(folders, fastest))
        print(f"{name}: median {median:.3f} s/page, max {max(fastest):.3f} "
              f"(target {target} s: {verdict}) [{pages}]")
    print(f"load average: {' '.join(f'{v:.1f}' for v in os.getloadavg())}, "
          f"{os.cpu_count()} CPUs")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
