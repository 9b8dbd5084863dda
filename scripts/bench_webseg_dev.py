"""Speed target of issue 10: vips and the ensemble at most 0.5 s per page on the webseg-dev pages.

Each page is segmented ``--repeats`` times (screenshot decoding included: nothing is cached
between runs); a page's time is the fastest run (the least disturbed by other work on a shared
machine), the verdict is on the median over pages. Exits 1 when a segmenter misses the target.

    .venv/bin/python scripts/bench_webseg_dev.py [--segmenters vips,ensemble] [--repeats 3]
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--segmenters", default="vips,ensemble")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--pages", type=Path, default=PAGES)
    args = parser.parse_args()

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
        verdict = "ok" if median <= TARGET_S else "MISSED"
        if median > TARGET_S:
            missed.append(name)
        pages = " ".join(f"{folder.name}={seconds:.3f}" for folder, seconds in
                         zip(folders, fastest))
        print(f"{name}: median {median:.3f} s/page, max {max(fastest):.3f} "
              f"(target {TARGET_S} s: {verdict}) [{pages}]")
    print(f"load average: {' '.join(f'{v:.1f}' for v in os.getloadavg())}, "
          f"{os.cpu_count()} CPUs")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
