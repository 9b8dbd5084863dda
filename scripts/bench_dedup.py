#!/usr/bin/env python3
"""Speed of the de-duplication stage: Rabin chunking throughput and dedup time per page.

Example::

    .venv/bin/python scripts/bench_dedup.py --megabytes 50 --runs 5 --pages 200

Chunking is timed end to end on the normalised bytes (boundaries + xxh3 digests), in the compiled
form where numba is installed and in the numpy form, then the numpy form stage by
stage, CPU time beside wall clock since the machine may be shared. Text comes from the article
bodies of ../shared/article-extraction-benchmark (paragraphs shuffled with a fixed seed until the
size is reached); synthetic words when that folder is missing. The per-page figure covers the
whole ``Deduplicator.process`` call (chunking, SimHash, shingles, MinHash, SQLite lookups and
inserts in one transaction) on pages of one site sharing a header and a footer.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import xxhash

from wps.dedup import Deduplicator
from wps.dedup.rabin import (
    MAX_CHUNK,
    _compiled,
    _cut_candidates,
    _select_cuts,
    chunk_digests,
    chunk_digests_numpy,
    normalise_text,
)
from wps.model import Segment

SHARED = Path(__file__).resolve().parent.parent.parent / "shared"


def paragraphs(seed: int) -> list[str]:
    truth = SHARED / "article-extraction-benchmark" / "ground-truth.json"
    if truth.is_file():
        bodies = [page.get("articleBody", "") for page in json.loads(truth.read_text()).values()]
        found = [p.strip() for body in bodies for p in body.split("\n") if len(p.strip()) > 40]
        if found:
            return found
    rng = random.Random(seed)
    words = "the of and to in a is that for it as was with be by on river valley water".split()
    return [" ".join(rng.choice(words) for _ in range(60)) + "." for _ in range(2000)]


def corpus(size: int, seed: int) -> str:
    """About ``size`` bytes of text: shuffled paragraphs, one a line."""
    rng = random.Random(seed)
    pool = paragraphs(seed)
    parts: list[str] = []
    total = 0
    while total < size:
        paragraph = rng.choice(pool)
        parts.append(paragraph)
        total += len(paragraph.encode()) + 1
    return "\n".join(parts)


def _timed(function: Callable[[], object], runs: int) -> tuple[list[float], list[float]]:
    """Wall-clock and CPU seconds of ``runs`` calls (CPU time says more on a shared machine)."""
    wall, cpu = [], []
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        function()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return wall, cpu


def bench_chunking(text: str, runs: int) -> None:
    """Boundaries + xxh3 digests end to end, compiled and numpy forms, then each stage of the
    numpy form alone (normalisation apart: the dedup stage runs it before chunking)."""
    data = normalise_text(text)
    megabytes = len(data) / 1e6
    ends, _ = chunk_digests(data)
    forms = {"rabin chunking (numpy form)": chunk_digests_numpy}
    if _compiled() is not None:  # loads (and on first use compiles) the numba form: not timed
        forms = {"rabin chunking (compiled, the form in use)": chunk_digests, **forms}
    else:
        print("rabin chunking: numba is not installed (the fast extra), numpy form in use")
    for label, chunker in forms.items():
        wall, cpu = _timed(lambda chunker=chunker: chunker(data), runs)
        print(
            f"{label}: {megabytes:.1f} MB, {len(ends)} chunks (mean {len(data) / len(ends):.1f}"
            f" B), median of {runs}: wall {megabytes / statistics.median(wall):.1f} MB/s,"
            f" cpu {megabytes / statistics.median(cpu):.1f} MB/s"
            f" (best wall {megabytes / min(wall):.1f} MB/s)"
        )
    candidates = _cut_candidates(data)
    cuts = _select_cuts(candidates, len(data), MAX_CHUNK).tolist()
    digest = xxhash.xxh3_64_intdigest
    stages: dict[str, Callable[[], object]] = {
        "normalise_text (NFKC, whitespace; text in)": lambda: normalise_text(text),
        "window hashes (_cut_candidates)": lambda: _cut_candidates(data),
        "cut selection (_select_cuts + tolist)": lambda: _select_cuts(
            candidates, len(data), MAX_CHUNK
        ).tolist(),
        "xxh3 digests": lambda: [digest(data[a:b]) for a, b in zip([0, *cuts[:-1]], cuts)],
    }
    for label, function in stages.items():
        _, cpu = _timed(function, runs)
        seconds = statistics.median(cpu)
        print(f"  {label}: cpu {seconds * 1000:.1f} ms, {megabytes / seconds:.1f} MB/s")


def bench_pages(pages: int, seed: int) -> None:
    rng = random.Random(seed)
    pool = paragraphs(seed)
    header = "Home | World | Business | Sport | Culture | Opinion | Subscribe | Sign in"
    footer = (
        "Copyright 2026 Example News Group. All rights reserved. Reproduction of any material "
        "from this site without written permission is prohibited. Privacy policy. Terms."
    )
    with tempfile.TemporaryDirectory() as folder:
        with Deduplicator(Path(folder) / "bench.sqlite3") as dedup:
            timings, cpu_timings, sizes, counts = [], [], [], []
            for page in range(pages):
                texts = [header, *rng.sample(pool, rng.randint(4, 12)), footer]
                segments = [
                    Segment(id=f"{page}:{i}", polygons=[], text=t) for i, t in enumerate(texts)
                ]
                sizes.append(sum(len(normalise_text(t)) for t in texts))
                counts.append(len(texts))
                start, start_cpu = time.perf_counter(), time.process_time()
                dedup.process(f"https://news.example.com/{page}", segments)
                timings.append(time.perf_counter() - start)
                cpu_timings.append(time.process_time() - start_cpu)
    timings_ms = sorted(t * 1000 for t in timings)
    print(
        f"dedup per page: {pages} pages of one site, mean {statistics.mean(sizes) / 1000:.1f} kB"
        f" text in {statistics.mean(counts):.1f} segments;"
        f" wall median {statistics.median(timings_ms):.2f} ms,"
        f" p90 {timings_ms[int(0.9 * (len(timings_ms) - 1))]:.2f} ms;"
        f" cpu median {statistics.median(cpu_timings) * 1000:.2f} ms;"
        f" last 20 pages wall median {statistics.median(timings[-20:]) * 1000:.2f} ms"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench_dedup.py", description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=float, default=50.0, help="chunking corpus size")
    parser.add_argument("--runs", type=int, default=5, help="chunking runs (median reported)")
    parser.add_argument("--pages", type=int, default=200, help="synthetic pages of one site")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    bench_chunking(corpus(int(args.megabytes * 1e6), args.seed), args.runs)
    bench_pages(args.pages, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
