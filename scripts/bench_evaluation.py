"""Benchmark of ``wps.evaluation.evaluate``: all five size functions on Webis page 000000, and
peak memory on a synthetic 1366 × 16,384 page.

Usage: python scripts/bench_evaluation.py [--sample ../shared/webis-webseg-20-sample] [--runs 5]
Runs on one thread (OMP/OPENBLAS/MKL set to 1 before numpy loads).
"""

from __future__ import annotations

import os

for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_variable] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import resource  # noqa: E402
import statistics  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import tracemalloc  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from wps.evaluation import evaluate  # noqa: E402
from wps.evaluation.resources import load_page  # noqa: E402

CASES = [
    ("ground truth vs itself", "000000/ground-truth.json", ".*"),
    ("baseline", "reference-outputs/algorithm-inputs/baseline.json", ".*"),
    ("fitted annotation 3IO1", "000000/fitted-annotations.json", "3IO1"),
    ("MMDetection raw segms (100)",
     "extras/cikm20-repo-history/segmentations/mmdetection/000000.json", "segms"),
]


def time_sample(sample: Path, runs: int) -> None:
    truth = sample / "000000" / "ground-truth.json"
    start = time.perf_counter()
    evaluate(sample / CASES[0][1], truth)
    print(f"first call, resources read (nodes, 2 edge PNGs): {time.perf_counter() - start:.3f} s")
    for label, file, pattern in CASES:
        wall, cpu = [], []
        for _ in range(runs):
            wall_start, cpu_start = time.perf_counter(), time.process_time()
            evaluate(sample / file, truth, algorithm_segmentation=pattern)
            wall.append(time.perf_counter() - wall_start)
            cpu.append(time.process_time() - cpu_start)
        print(f"{label:32s} all 5 size functions: median {statistics.median(wall):.3f} s wall, "
              f"{statistics.median(cpu):.3f} s CPU (min {min(wall):.3f} s, {runs} runs)")


def _boxes(rng: np.random.Generator, count: int, width: int, height: int) -> np.ndarray:
    left = rng.integers(0, width - 50, count)
    top = rng.integers(0, height - 50, count)
    return np.stack([left, top, left + rng.integers(10, 400, count).clip(max=width - left),
                     top + rng.integers(10, 300, count)], axis=1)


def _segments(rng: np.random.Generator, count: int, width: int, height: int) -> list:
    boxes = _boxes(rng, count, width, height)
    return [[[[[l, t], [l, b], [r, b], [r, t], [l, t]]]] for l, t, r, b in boxes.tolist()]


def synthetic_page(folder: Path, width: int = 1366, height: int = 16384) -> Path:
    from PIL import Image

    rng = np.random.default_rng(0)
    nodes = _boxes(rng, 5000, width, height)
    lines = ["left,bottom,right,top,xpath"]
    texts = ['"xpath","ncharacter","text"']
    for index, (l, t, r, b) in enumerate(nodes.tolist()):
        xpath = f"/HTML[1]/BODY[1]/DIV[{index + 1}]/text()[1]"
        lines.append(f"{l},{b},{r},{t},{xpath}")
        texts.append(f'"{xpath}",{index % 50},"x"')
    (folder / "nodes.csv").write_text("\n".join(lines) + "\n")
    (folder / "nodes-texts.csv").write_text("\n".join(texts) + "\n")
    for name, density in (("fine", 0.12), ("coarse", 0.02)):
        mask = rng.random((height, width)) < density
        Image.fromarray(mask).convert("1").save(folder / f"screenshot-edges-{name}.png")
    truth = {"id": "synthetic", "width": width, "height": height,
             "segmentations": {"majority-vote": _segments(rng, 30, width, height)}}
    (folder / "ground-truth.json").write_text(json.dumps(truth))
    return folder / "ground-truth.json"


def memory_synthetic() -> None:
    rng = np.random.default_rng(1)
    with tempfile.TemporaryDirectory() as temp:
        truth = synthetic_page(Path(temp))
        algorithm = {"id": "synthetic", "width": 1366, "height": 16384,
                     "segmentations": {"alg": _segments(rng, 30, 1366, 16384)}}
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        tracemalloc.start()
        start = time.perf_counter()
        evaluate(algorithm, truth)
        elapsed = time.perf_counter() - start
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        edges = load_page(Path(temp)).edge_pixels("edges-fine").xs.size
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(f"synthetic 1366x16384, 30+30 segments, 5000 nodes, {edges} fine edge pixels: "
              f"{elapsed:.2f} s (cold, PNGs read), tracemalloc peak {peak / 2**20:.0f} MiB, "
              f"max RSS {after / 1024:.0f} MiB (was {before / 1024:.0f} MiB before)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=Path,
                        default=Path(__file__).resolve().parents[1].parent / "shared"
                        / "webis-webseg-20-sample")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    time_sample(args.sample, args.runs)
    memory_synthetic()


if __name__ == "__main__":
    main()
