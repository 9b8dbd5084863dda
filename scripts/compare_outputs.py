#!/usr/bin/env python
"""Compare the pipeline's outputs of two code trees on saved captures: the same pages, page by page.

Usage:
    scripts/compare_outputs.py --old /tmp/base --new . --captures /work/captures/articles-nojs \
        /work/captures/nonarticle /work/captures/readability --work /tmp/compare \
        [--profile detector --profile article]

Each tree runs ``wps``'s own :func:`wps.pipeline.segment_into` (what ``wps segment CAPTURE --out``
runs) in a process of its own, with ``PYTHONPATH`` set to the tree, over every capture folder
found under ``--captures`` (a folder with ``capture.json``, or with ``capture/capture.json``), and
writes ``WORK/{old,new}/PROFILE/SET/PAGE/``. Then ``segments.jsonl``, ``main-text.json`` and
``segmentation.json`` are compared byte for byte per page, and every ``segments.jsonl`` the new
tree wrote must come back byte for byte when its own code reads it as records and writes them
again (``wps filter``, ``wps dedup`` and ``wps binoculars`` do that). The old tree's finished run is
reused (``WORK/old/PROFILE/.complete``) unless ``--fresh``; the new tree runs every time
(``--reuse-new``: not when finished, e.g. by ``--write`` runs started by hand side by side). Exit 0 when every page is the
same, 1 otherwise. A refactoring (a faster step, a module split) must leave these unchanged.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

COMPARED = ("segments.jsonl", "main-text.json", "segmentation.json")
"""The page outputs compared (``capture/``, ``overlay.png`` and ``report.html`` are left out)."""


def capture_folders(roots: list[Path]) -> list[tuple[str, Path]]:
    """``(SET/PAGE, capture folder)`` for every capture under ``roots``, sorted."""
    found = []
    for root in roots:
        for page in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
            for folder in (page, page / "capture"):
                if (folder / "capture.json").is_file():
                    found.append((f"{root.name}/{page.name}", folder))
                    break
    return found


def write_outputs(roots: list[Path], profile: str, out: Path, timeout_s: float) -> int:
    """In the tree under test: segment every capture into ``out/SET/PAGE``; failures recorded
    in ``out/failures.jsonl`` (a page that fails in both trees alike is the same outcome).
    ``timeout_s``: the page deadline, roomy, so that a loaded machine does not make a page
    fail in one tree only."""
    from wps.capture.options import CaptureOptions
    from wps.config import load_config
    from wps.pipeline import PipelineOptions, segment_into

    options = PipelineOptions(config=load_config(profile=profile), report=False,
                              capture_options=CaptureOptions(timeout_s=timeout_s)).checked()
    failures = []
    for name, folder in capture_folders(roots):
        try:
            segment_into(folder, out / name, options, capture_folder=False, overlay=False)
        except Exception as err:  # noqa: BLE001 - a page's failure is an outcome to compare
            failures.append({"page": name, "error": f"{type(err).__name__}: {err}"})
    (out / "failures.jsonl").write_text("".join(json.dumps(f) + "\n" for f in failures))
    (out / ".complete").write_text("")
    return 0


def run_tree(tree: Path, roots: list[Path], profile: str, out: Path, fresh: bool,
             timeout_s: float) -> None:
    """Run :func:`write_outputs` with ``tree`` first on ``PYTHONPATH`` (skipped when done,
    unless ``fresh``)."""
    if (out / ".complete").exists() and not fresh:
        print(f"reusing {out}", file=sys.stderr)
        return
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    env = dict(os.environ, PYTHONPATH=str(tree.resolve()))
    command = [sys.executable, __file__, "--write", str(out), "--profile", profile,
               "--timeout", str(timeout_s), "--captures", *map(str, roots)]
    subprocess.run(command, env=env, check=True, cwd=tree)


def round_trips(out: Path) -> int:
    """In the tree under test: read every ``segments.jsonl`` under ``out`` as records, write
    them again and compare the bytes; prints the count and each file that differs."""
    import tempfile

    from wps.records import read_segment_lines, write_segment_records

    files = sorted(out.rglob("segments.jsonl"))
    differ = []
    with tempfile.TemporaryDirectory() as scratch:
        again = Path(scratch) / "segments.jsonl"
        for path in files:
            write_segment_records((line.record() for line in read_segment_lines(path)), again)
            if again.read_bytes() != path.read_bytes():
                differ.append(path)
    print(f"round trip: {len(files) - len(differ)} of {len(files)} segments.jsonl files "
          "byte for byte the same")
    for path in differ:
        print(f"  differs: {path}")
    return int(bool(differ) or not files)


def compare(old: Path, new: Path, roots: list[Path]) -> dict[str, list[str]]:
    """Pages whose compared outputs are the same / differ (with the files that differ)."""
    result: dict[str, list[str]] = {"same": [], "differ": []}
    for name, _ in capture_folders(roots):
        differing = [file for file in COMPARED
                     if _read(old / name / file) != _read(new / name / file)]
        if differing:
            result["differ"].append(f"{name}: {', '.join(differing)}")
        else:
            result["same"].append(name)
    if _read(old / "failures.jsonl") != _read(new / "failures.jsonl"):
        result["differ"].append("failures.jsonl")
    return result


def _read(path: Path) -> bytes | None:
    return path.read_bytes() if path.is_file() else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path)
    parser.add_argument("--new", type=Path)
    parser.add_argument("--captures", type=Path, nargs="+", required=True)
    parser.add_argument("--work", type=Path, default=Path("/tmp/wps-compare"))
    parser.add_argument("--profile", action="append", choices=("detector", "article"))
    parser.add_argument("--fresh", action="store_true", help="run the old tree again too")
    parser.add_argument("--reuse-new", action="store_true",
                        help="reuse the new tree's finished run too (run apart, by --write)")
    parser.add_argument("--timeout", type=float, default=600.0,
                        help="page deadline in seconds (default 600: a loaded machine must not "
                        "make one tree's page time out)")
    parser.add_argument("--write", type=Path, help=argparse.SUPPRESS)  # the per-tree run
    parser.add_argument("--round-trip", type=Path, help=argparse.SUPPRESS)  # in the new tree
    args = parser.parse_args(argv)
    profiles = args.profile or ["detector", "article"]
    if args.write:
        return write_outputs(args.captures, profiles[0], args.write, args.timeout)
    if args.round_trip:
        return round_trips(args.round_trip)
    if args.old is None or args.new is None:
        parser.error("--old and --new name the two code trees")
    status = 0
    for profile in profiles:
        run_tree(args.old, args.captures, profile, args.work / "old" / profile, args.fresh,
                 args.timeout)
        run_tree(args.new, args.captures, profile, args.work / "new" / profile,
                 not args.reuse_new, args.timeout)
        result = compare(args.work / "old" / profile, args.work / "new" / profile, args.captures)
        print(f"{profile}: {len(result['same'])} pages the same, {len(result['differ'])} differ")
        for line in result["differ"]:
            print(f"  differs: {line}")
        status = status or int(bool(result["differ"]))
        again = subprocess.run([sys.executable, __file__, "--round-trip",
                                str(args.work / "new" / profile), "--captures",
                                *map(str, args.captures)],
                               env=dict(os.environ, PYTHONPATH=str(args.new.resolve())),
                               cwd=args.new, check=False)
        status = status or again.returncode
    return status


if __name__ == "__main__":
    sys.exit(main())
