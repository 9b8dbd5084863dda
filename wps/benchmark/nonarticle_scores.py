"""Scoring a run of the non-article dev set: the data set's own ``check.py`` (run as its README
says, and imported for its matching where wps adds ``posts_alone``), and the run's figures:
totals, per-type sums, per-page rows, timing."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ..errors import InputFileError
from .nonarticle_data import NONARTICLE_TYPES, TYPE_ORDER, Dataset, PageRun

__all__ = ["add_posts_alone", "aggregate", "figures", "run_check", "timing"]

REPORT_FILE = "check-report.json"
PAGE_FIELDS = ("prose", "prose_found", "not_prose", "leaks", "kept_chars")
FORUM_FIELDS = ("posts", "posts_scorable", "posts_whole", "posts_whole_kept", "segments_mixing",
                "posts_alone", "posts_alone_units")
"""check.py's per-page numbers summed into totals (forum ones only on pages with posts)."""


def run_check(dataset: Dataset, out: Path) -> dict[str, Any]:
    """The data set's own scorer, run as its README says; its JSON report."""
    report_path = out / REPORT_FILE
    command = [sys.executable, str(dataset.check_script), str(out), "--json", str(report_path),
               "--quiet"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900, check=False)
    if done.returncode != 0 or not report_path.is_file():
        lines = (done.stderr or done.stdout).strip().splitlines()
        cause = lines[-1] if lines else f"exit status {done.returncode}"
        raise InputFileError(f"{dataset.check_script}: failed on {out} ({cause})")
    return json.loads(report_path.read_text(encoding="utf-8"))


def add_posts_alone(dataset: Dataset, out: Path, report: dict[str, Any]) -> None:
    """Add ``posts_alone`` to each forum page of check.py's report: posts whole in a kept
    segment that holds no other post (the issue's "each kept as a segment of its own"), by
    check.py's own matching (its word 3-grams, coverage thresholds and quote removal); and
    ``posts_alone_units``, the same over the detector's units (:func:`unit_lines`: what
    ``wps binoculars`` judges as one text)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("nonarticle_check", dataset.check_script)
    assert spec is not None and spec.loader is not None
    check = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(check)
    for name, entry in report["pages"].items():
        posts = dataset.labels.get(name, {}).get("posts")
        path = out / name / "segments.jsonl"
        if not posts or entry.get("missing") or not path.is_file():
            continue
        bodies = check.post_bodies(check.parse_page(dataset.root / "pages" / f"{name}.html.gz"),
                                   posts)
        lines = check.load_segments(path)
        entry["posts_alone"] = count_posts_alone(check, bodies, lines)
        entry["posts_alone_units"] = count_posts_alone(check, bodies, unit_lines(lines))


def unit_lines(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The kept lines of a page joined per detector unit (``unit``; a line without one is a
    unit of its own), as one kept line each, in the order of their first line."""
    from ..records import UNIT_SEPARATOR

    units: dict[Any, list[dict[str, Any]]] = {}
    for index, line in enumerate(lines):
        if line.get("kept"):
            units.setdefault(line.get("unit") or index, []).append(line)
    return [{"text": UNIT_SEPARATOR.join(line.get("text") or "" for line in members),
             "kept": True} for members in units.values()]


def count_posts_alone(check: Any, bodies: list[str], segments: list[dict[str, Any]]) -> int:
    def grams(text: str, n: int = 3) -> set[tuple[str, ...]]:
        found: set[tuple[str, ...]] = set()
        for piece in text.split(check.GAP):
            w = check.words(piece)
            found |= {tuple(w[i:i + n]) for i in range(len(w) - n + 1)} if len(w) >= n \
                else ({tuple(w)} if w else set())
        return found

    body_grams = [grams(body, min(3, len(check.words(body)))) for body in bodies]
    seg_words = [check.words(check.norm(s.get("text") or "")) for s in segments]
    seg_grams: dict[int, list[set[tuple[str, ...]]]] = {}

    def grams_of_segments(n: int) -> list[set[tuple[str, ...]]]:
        """Every segment's word n-grams, built once per n (as check.py's forum_stats does)."""
        if n not in seg_grams:
            seg_grams[n] = [check.ngrams(w) if n == 3 else
                            {tuple(w[k:k + n]) for k in range(len(w) - n + 1)}
                            for w in seg_words]
        return seg_grams[n]

    count: dict[tuple[str, ...], int] = {}
    for g in body_grams:
        for x in g:
            count[x] = count.get(x, 0) + 1
    distinct = [{x for x in g if count[x] == 1} for g in body_grams]
    alone = 0
    for i, g in enumerate(body_grams):
        if not g:
            continue
        n = min(3, len(check.words(bodies[i])))
        for j, sg in enumerate(grams_of_segments(n)):
            if not segments[j].get("kept") or len(g & sg) / len(g) < check.WHOLE_COVERAGE:
                continue
            sg3 = grams_of_segments(3)[j]
            others = sum(1 for k, d in enumerate(distinct) if k != i
                         and len(d) >= check.MIX_MIN_NGRAMS
                         and len(d & sg3) / len(d) >= check.MIX_COVERAGE)
            if not others:
                alone += 1
                break
    return alone


def aggregate(entries: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """check.py's per-page numbers summed over ``entries`` (the same sums check.py's total
    makes, restricted to the pages of this run)."""
    total = dict.fromkeys(("pages", "scored", *PAGE_FIELDS, "forum_pages", *FORUM_FIELDS,
                           "segments_forum"), 0)
    for entry in entries:
        total["pages"] += 1
        if entry.get("missing"):
            continue
        total["scored"] += 1
        for key in PAGE_FIELDS:
            total[key] += entry[key]
        if "posts" in entry:
            total["forum_pages"] += 1
            total["segments_forum"] += entry["segments"]
            for key in FORUM_FIELDS:
                total[key] += entry.get(key, 0)
            total["has_posts_alone"] = total.get("has_posts_alone", False) or \
                "posts_alone" in entry  # runs before the figure existed show "–"
            total["has_posts_alone_units"] = total.get("has_posts_alone_units", False) or \
                "posts_alone_units" in entry
    return total


def figures(dataset: Dataset, names: list[str], report: dict[str, Any],
            runs: dict[str, PageRun]) -> dict[str, Any]:
    """Totals, per-type sums, per-page rows, failures and timing of one run."""
    pages = {name: {**report["pages"].get(name, {"missing": True}),
                    "type": dataset.page_type(name), "run": asdict(runs[name])}
             for name in names}
    by_type = {kind: aggregate(pages[n] for n in names if dataset.page_type(n) == kind)
               for kind in _types(dataset, names)}
    totals = aggregate(pages.values())
    totals["kept_chars_nonarticle"] = sum(by_type.get(kind, {}).get("kept_chars", 0)
                                          for kind in NONARTICLE_TYPES)
    totals["nonarticle_pages"] = sum(by_type.get(kind, {}).get("scored", 0)
                                     for kind in NONARTICLE_TYPES)
    failed = [asdict(run) for run in runs.values() if run.mode == "failed"]
    totals["prose_on_failed_pages"] = sum(len(dataset.labels[run["name"]].get("prose", []))
                                          for run in failed)
    return {"totals": totals, "by_type": by_type, "pages": pages, "failed": failed,
            "timing": timing(runs.values())}


def _types(dataset: Dataset, names: list[str]) -> list[str]:
    present = {dataset.page_type(name) for name in names}
    return [kind for kind in TYPE_ORDER if kind in present] + sorted(present - set(TYPE_ORDER))


def timing(runs: Iterable[PageRun]) -> dict[str, Any]:
    """Median seconds per page, by how the page was made (the last measurement of each)."""
    runs = list(runs)
    rendered = [r.seconds for r in runs if r.render_s is not None and r.seconds is not None]
    renders = [r.render_s for r in runs if r.render_s is not None]
    segmented = [r.seconds for r in runs if r.render_s is None and r.seconds is not None]
    return {
        "median_page_s": _median(rendered),
        "median_render_s": _median(renders),
        "median_from_capture_s": _median(segmented),
        "pages_timed_rendered": len(rendered),
        "pages_timed_from_capture": len(segmented),
        "modes": {mode: sum(r.mode == mode for r in runs)
                  for mode in ("rendered", "from-capture", "reused", "failed")},
    }


def _median(values: list[float]) -> float | None:
    return round(statistics.median(values), 2) if values else None
