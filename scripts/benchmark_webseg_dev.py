#!/usr/bin/env python3
"""Every segmenter on folders of Webis-format pages (webseg-dev, the Webis sample): one table per set.

Each page folder needs ``nodes.csv``, ``nodes-texts.csv``, the edge PNGs and ``ground-truth.json``
(folders without ground truth are skipped). A run is a segmenter name with options,
``NAME;KEY=VALUE;...`` (values as ``wps segment -O`` reads them). Per run and set the table gives
mean P / R / F per size function, segments per page and the median wall time of ``segment()``
per page (screenshot decoding included). ``--tune vips:pdoc=5,6,7`` adds a leave-one-page-out
row: each page is scored with the value that gave the best mean F on the other pages of its set.

Reproduces ``eval/results/webseg-dev.md``::

    .venv/bin/python scripts/benchmark_webseg_dev.py --out eval/results/webseg-dev.md
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

SIZE_FUNCTIONS = ("pixels", "edges-fine", "edges-coarse", "nodes", "chars")
DEFAULT_SETS = ("webseg-dev=../shared/webseg-dev/pages",
                "webis-webseg-20-sample=../shared/webis-webseg-20-sample")
DEFAULT_RUNS = (
    "baseline",
    "dom-cohesion",
    "xycut",
    "vips",
    "vips;granularity=coarse",
    "vips;granularity=fine",
    "ensemble;members=dom-cohesion,vips,xycut;min_votes=2",
    "ensemble;members=dom-cohesion,vips,xycut;min_votes=3",
)
DEFAULT_TUNE = ("vips:pdoc=5,5.5,6,6.5,7,7.5",)


@dataclass(slots=True)
class PageScore:
    page: str
    scores: dict[str, tuple[float, float, float]]
    """size function → (P, R, F)."""
    segments: int
    seconds: float


@dataclass(slots=True)
class RunResult:
    label: str
    pages: list[PageScore] = field(default_factory=list)


def parse_run(spec: str) -> tuple[str, dict]:
    from wps.cli.segment import parse_segmenter_options

    name, *items = [part.strip() for part in spec.split(";")]
    return name, parse_segmenter_options([item for item in items if item])


def score_page(folder: Path, capture, name: str, options: dict) -> PageScore:
    from wps.evaluation import evaluate
    from wps.segmenters import build_segmenter
    from wps.webis import to_webis

    segmenter = build_segmenter(name, **options)
    started = time.perf_counter()
    segmentation = segmenter.segment(capture)
    seconds = time.perf_counter() - started
    result = evaluate(to_webis(segmentation, name), folder / "ground-truth.json",
                      default_segmentation=True)
    scores = {str(function): (float(s.precision), float(s.recall), float(s.f1))
              for function, s in result.results.items()}
    return PageScore(folder.name, scores, len(segmentation.segments), seconds)


def mean_f(page: PageScore) -> float:
    return statistics.fmean(page.scores[function][2] for function in SIZE_FUNCTIONS)


def leave_one_page_out(per_value: dict[float, list[PageScore]], label: str) -> RunResult:
    """Each page scored with the value that is best (mean F over the five size functions) on
    the set's other pages; the chosen values are named in the label."""
    values = list(per_value)
    pages = [score.page for score in per_value[values[0]]]
    result, chosen = RunResult(label), []
    for index, _ in enumerate(pages):
        def others(value: float) -> float:
            return statistics.fmean(mean_f(s) for i, s in enumerate(per_value[value])
                                    if i != index)
        best = max(values, key=others)
        chosen.append(best)
        result.pages.append(per_value[best][index])
    result.label = f"{label} (leave-one-page-out; chosen {', '.join(f'{v:g}' for v in chosen)})"
    return result


def table(set_name: str, folders: list[Path], results: list[RunResult]) -> str:
    lines = [f"### {set_name} ({len(folders)} page{'s' if len(folders) != 1 else ''}: "
             f"{', '.join(folder.name for folder in folders)})", "",
             "Cells: mean P / mean R / mean F.", "",
             "| run | " + " | ".join(SIZE_FUNCTIONS) + " | mean F | segments/page | "
             "median s/page |",
             "|---|" + "---|" * (len(SIZE_FUNCTIONS) + 3)]
    for run in results:
        cells = []
        for function in SIZE_FUNCTIONS:
            p, r, f = (statistics.fmean(page.scores[function][k] for page in run.pages)
                       for k in range(3))
            cells.append(f"{p:.3f} / {r:.3f} / **{f:.3f}**")
        overall = statistics.fmean(mean_f(page) for page in run.pages)
        segments = statistics.fmean(page.segments for page in run.pages)
        seconds = statistics.median(page.seconds for page in run.pages)
        lines.append(f"| `{run.label}` | " + " | ".join(cells)
                     + f" | {overall:.3f} | {segments:.1f} | {seconds:.3f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="benchmark_webseg_dev.py", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", action="append", metavar="NAME=DIR",
                        help=f"a folder of page folders (repeatable; default {DEFAULT_SETS})")
    parser.add_argument("--run", action="append", metavar="NAME;KEY=VALUE",
                        help="a segmenter with options (repeatable; default: all of them)")
    parser.add_argument("--tune", action="append", metavar="NAME:KEY=V1,V2",
                        help="leave-one-page-out over these values (repeatable)")
    parser.add_argument("--out", type=Path, help="write the Markdown report here")
    args = parser.parse_args(argv)

    from wps.errors import WpsError
    from wps.webis import capture_from_webis

    try:
        sections = []
        for item in args.set or DEFAULT_SETS:
            set_name, _, directory = item.partition("=")
            folders = sorted(folder for folder in Path(directory).iterdir()
                             if (folder / "ground-truth.json").is_file())
            if not folders:
                raise SystemExit(f"benchmark_webseg_dev.py: error: {directory}: no page folder "
                                 f"with ground-truth.json")
            captures = [capture_from_webis(folder) for folder in folders]
            results = []
            for spec in args.run or DEFAULT_RUNS:
                name, options = parse_run(spec)
                run = RunResult(spec)
                for folder, capture in zip(folders, captures):
                    run.pages.append(score_page(folder, capture, name, options))
                results.append(run)
                print(f"{set_name}: {spec} done", file=sys.stderr)
            tunes = args.tune if args.tune is not None else DEFAULT_TUNE
            for tune in tunes if len(folders) > 1 else ():  # one page cannot be held out
                name, _, rest = tune.partition(":")
                key, _, values = rest.partition("=")
                per_value = {}
                for value in (float(v) for v in values.split(",")):
                    per_value[value] = [score_page(folder, capture, name, {key: value})
                                        for folder, capture in zip(folders, captures)]
                results.append(leave_one_page_out(per_value, f"{name};{key}=tuned"))
                print(f"{set_name}: {tune} done", file=sys.stderr)
            sections.append(table(set_name, folders, results))
    except WpsError as err:
        print(f"benchmark_webseg_dev.py: error: {err}", file=sys.stderr)
        return err.exit_code
    command = " ".join(["scripts/benchmark_webseg_dev.py", *(argv if argv is not None
                                                             else sys.argv[1:])])
    report = "\n\n".join([f"Produced by `.venv/bin/python {command}`.", *sections]) + "\n"
    if args.out:
        args.out.write_text(report, encoding="utf-8")
    print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
