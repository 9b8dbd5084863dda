#!/usr/bin/env python3
"""Speed of the Webis-WebSeg-20 loader and the benchmark runner (median of several runs).

Builds a throw-away dataset of N copies of the sample's page 000000 in a temporary folder, packs
it as zip parts with ``wps.webis.write_zip_parts``, then times (1) opening every page (zip:
extraction of its members) and (2) ``wps.benchmark.run_benchmark`` with the baseline on both
layouts. Prints seconds per page.

    .venv/bin/python scripts/bench_webseg20_loader.py --pages 10 --runs 3
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from wps.benchmark import BenchmarkOptions, run_benchmark
from wps.webis import WebisDataset, write_zip_parts

SAMPLE_PAGE = Path(__file__).resolve().parents[1].parent / "shared/webis-webseg-20-sample/000000"


def _copy_pages(target: Path, count: int) -> Path:
    dataset = target / "webis-webseg-20"
    for number in range(count):
        page_id = f"{number:06d}"
        shutil.copytree(SAMPLE_PAGE, dataset / page_id)
        for path in (dataset / page_id).iterdir():
            path.chmod(0o644)
        for name in ("ground-truth.json", "annotations.json", "fitted-annotations.json"):
            data = json.loads((dataset / page_id / name).read_text(encoding="utf-8"))
            data["id"] = page_id
            (dataset / page_id / name).write_text(json.dumps(data), encoding="utf-8")
    return dataset


def _median_seconds(function, runs: int) -> float:
    timings = []
    for _ in range(runs):
        started = time.perf_counter()
        function()
        timings.append(time.perf_counter() - started)
    return statistics.median(timings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=10)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="wps-bench-webseg20-") as scratch:
        root = Path(scratch)
        folder = _copy_pages(root, args.pages)
        zips = root / "zips"
        write_zip_parts(WebisDataset(folder), zips)

        def open_all(data: Path) -> None:
            with WebisDataset(data) as dataset:
                for page in dataset:
                    with page.open() as page_dir:
                        if not (page_dir / "nodes.csv").is_file():
                            raise SystemExit(f"{page_dir}: page opened without nodes.csv")

        def benchmark(data: Path, out: Path) -> None:
            run_benchmark(BenchmarkOptions(data=data, segmenters=["baseline"], out=out,
                                           progress=False, fresh=True))

        print(f"{args.pages} pages (copies of 000000), median of {args.runs} runs, s/page:")
        for label, data in (("folder", folder), ("zip parts", zips)):
            out = root / f"out-{label}"
            opening = _median_seconds(lambda data=data: open_all(data), args.runs) / args.pages
            running = _median_seconds(lambda data=data, out=out: benchmark(data, out),
                                      args.runs) / args.pages
            print(f"  {label:10s} open page {opening:.4f}   baseline benchmark {running:.3f}")


if __name__ == "__main__":
    main()
