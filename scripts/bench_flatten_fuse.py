"""Benchmark of ``wps flatten`` and ``wps fuse`` on many segments (issue 25, item 11).

The input is square tiles, each touching its neighbours, in rows of 100: one annotator's
(every tile once), or ``--annotators`` annotators drawing the same tiles (fusion then keeps and
clusters every tile). Each command runs as the CLI does, in a subprocess; the target is to
finish well within ``--limit`` seconds (120) on 200,000 segments. Prints the wall time of each
run and the load average before it (the machine is shared).

Usage: python scripts/bench_flatten_fuse.py [--segments 200000] [--annotators 1 3] [--limit 120]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def write_tiles(path: Path, segments: int, annotators: int) -> None:
    """``segments`` tiles of 10 pixels in all, split evenly between the annotators."""
    per_annotator = segments // annotators
    tiles = [[[[[x, y], [x + 10, y], [x + 10, y + 10], [x, y + 10], [x, y]]]]
             for x, y in ((10 * (n % 100), 10 * (n // 100)) for n in range(per_annotator))]
    path.write_text(json.dumps({
        "id": "tiles", "width": 1000, "height": max(10, per_annotator // 10),
        "segmentations": {f"annotator{a}": tiles for a in range(annotators)}}),
        encoding="utf-8")


def run(command: str, tiles: Path, out: Path, limit: float) -> tuple[float, str]:
    """Wall seconds of one CLI run, and how it ended."""
    started = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, "-m", "wps", command, "--input", str(tiles),
                               "--output", str(out)], capture_output=True, text=True,
                              timeout=limit * 3, check=False)
    except subprocess.TimeoutExpired:
        return time.perf_counter() - started, f"killed after {limit * 3:g} s"
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        return seconds, f"exit {done.returncode}: {done.stderr.strip()[-200:]}"
    result = json.loads(out.read_text(encoding="utf-8"))["segmentations"]
    return seconds, f"{sum(len(s) for s in result.values())} segments out"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--segments", type=int, default=200_000)
    parser.add_argument("--annotators", type=int, nargs="+", default=[1, 3])
    parser.add_argument("--commands", nargs="+", default=["flatten", "fuse"])
    parser.add_argument("--limit", type=float, default=120.0)
    args = parser.parse_args()
    failed = False
    with tempfile.TemporaryDirectory() as folder:
        for annotators in args.annotators:
            tiles = Path(folder) / f"tiles-{annotators}.json"
            write_tiles(tiles, args.segments, annotators)
            for command in args.commands:
                load = os.getloadavg()[0]
                seconds, outcome = run(command, tiles, Path(folder) / "out.json", args.limit)
                verdict = "ok" if seconds < args.limit and "segments out" in outcome else "SLOW"
                failed |= verdict != "ok"
                print(f"{command:8} {args.segments} segments, {annotators} annotator(s): "
                      f"{seconds:7.1f} s  ({outcome}; load {load:.1f})  {verdict}", flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
