"""Choose the decision's thresholds by cross-validation over labelled pages, and report what
they give on pages they were not chosen on.

The pages are ``../shared/nonarticle-dev`` (labels and scorer ``check.py`` stay there). Pages
are split into folds grouped by site (:func:`group_folds`: no site's pages on both sides, so a
threshold is judged on sites it was not chosen on); for each fold, every candidate value is
scored on the other folds' pages and the best one decides the fold's own pages; ``check.py``
then scores all folds' outputs together: held-out figures.
"""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..model import PageCapture, Segment
from .step import DecisionRules, decide_segments

NO_PROSE_TYPES = ("index", "login", "table")
"""Page types of the data set with no prose at all (check.py's "non-article" pages)."""


@dataclass(slots=True)
class DevPage:
    name: str
    type: str
    capture: PageCapture
    segments: list[Segment]
    """The page's segments after every step before the decision."""


def load_pages(data: Path, captures: Path, steps: list[Any]) -> list[DevPage]:
    """Run ``steps`` on each page's saved capture (``captures/<name>/capture``, as
    ``scripts/benchmark_nonarticle.py`` leaves them)."""
    from ..executor import InProcessExecutor
    from ..state import PageState, run_steps

    labels = json.loads((data / "labels.json").read_text(encoding="utf-8"))

    def load(name: str) -> DevPage:
        capture = PageCapture.load(captures / name / "capture")
        state = run_steps(steps, PageState(capture))
        return DevPage(name, labels[name]["type"], capture, state.segments)

    return list(InProcessExecutor().run(sorted(labels), load))


def nonarticle_site(name: str) -> str:
    """The host part of a nonarticle-dev name: ``www.mindfactory.de-2`` → ``www.mindfactory.de``;
    the trafilatura pages (``toptal.com.python``) are one page per host, their whole name."""
    return re.sub(r"-\d+$", "", name)


def group_folds(names: Iterable[str], group_of: Callable[[str], str], k: int) -> list[set[str]]:
    """``k`` folds of ``names``, no group split across folds: groups by size (largest first),
    each into the fold with the fewest pages so far, as scikit-learn's ``GroupKFold`` deals them
    (no scikit-learn needed)."""
    groups: dict[str, list[str]] = {}
    for name in sorted(names):
        groups.setdefault(group_of(name), []).append(name)
    k = max(1, min(k, len(groups)))
    folds: list[set[str]] = [set() for _ in range(k)]
    for _, members in sorted(groups.items(), key=lambda item: (-len(item[1]), item[0])):
        min(folds, key=len).update(members)
    return folds


def site_folds(pages: list[DevPage], k: int) -> list[set[str]]:
    """``k`` folds of the pages' names, each site's pages in one fold."""
    return group_folds((page.name for page in pages), nonarticle_site, k)


def write_decided(pages: Iterable[DevPage], rules: DecisionRules | None, out: Path) -> None:
    """Decide copies of the pages' segments (``None``: no decision) and write what check.py
    reads: ``out/<name>/segments.jsonl``."""
    for page in pages:
        segments = copy.deepcopy(page.segments)
        if rules is not None:
            decide_segments(page.capture, segments, rules)
        folder = out / page.name
        folder.mkdir(parents=True, exist_ok=True)
        with open(folder / "segments.jsonl", "w", encoding="utf-8") as handle:
            for segment in segments:
                handle.write(json.dumps({"text": segment.text, "main_text": segment.main_text,
                                         "kept": segment.kept}, ensure_ascii=False) + "\n")


def check(data: Path, out: Path) -> dict[str, Any]:
    """check.py's totals over the pages written to ``out``."""
    return json.loads(_run_check(data, out).read_text(encoding="utf-8"))["total"]


NON_ARTICLE_CHARS_UNIT = 50_000
"""Kept characters on index, login and table pages that cost as much as all prose recall
(about what the pipeline kept there without a decision)."""


def objective(totals: dict[str, Any]) -> float:
    """Prose recall, minus leak rate, minus kept characters on pages with no prose: the three
    headline figures of the mission."""
    recall = totals.get("prose_found", 0) / max(totals.get("prose", 0), 1)
    leaks = totals.get("leaks", 0) / max(totals.get("not_prose", 0), 1)
    return recall - leaks - totals.get("kept_chars_nonarticle", 0) / NON_ARTICLE_CHARS_UNIT


def candidate_rules(base: DecisionRules, grid: dict[str, list[Any]]) -> list[DecisionRules]:
    """Every combination of the ``grid`` values on top of ``base``."""
    import itertools

    fields = sorted(grid)
    return [replace(base, **dict(zip(fields, values)))
            for values in itertools.product(*(grid[field] for field in fields))]


def cross_validate(data: Path, pages: list[DevPage], candidates: list[DecisionRules],
                   folds: int, work: Path) -> tuple[dict, list[DecisionRules]]:
    """Held-out totals with the rules chosen per fold among ``candidates``, and each fold's
    choice. Every candidate decides every page once; folds only choose among the scores."""
    scores: list[dict[str, dict[str, Any]]] = []
    for number, rules in enumerate(candidates):
        out = work / f"candidate-{number}"
        write_decided(pages, rules, out)
        scores.append(json.loads(_run_check(data, out).read_text(encoding="utf-8"))["pages"])
    held_out = work / "held-out"
    chosen = []
    for fold in site_folds(pages, folds):
        train = {page.name for page in pages} - fold
        best = max(range(len(candidates)), key=lambda i: objective(_sum(scores[i], train)))
        chosen.append(candidates[best])
        write_decided([page for page in pages if page.name in fold], candidates[best], held_out)
    return check(data, held_out), chosen


def _run_check(data: Path, out: Path) -> Path:
    report_path = out / "check-report.json"
    subprocess.run([sys.executable, str(data / "check.py"), str(out), "--json",
                    str(report_path), "--quiet"], check=True, capture_output=True, text=True)
    return report_path


def _sum(pages: dict[str, dict[str, Any]], names: set[str]) -> dict[str, float]:
    """check.py's per-page figures of ``names`` added up, as its totals are."""
    totals: dict[str, float] = {"kept_chars_nonarticle": 0}
    for name in names:
        page = pages[name]
        for key, value in page.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                totals[key] = totals.get(key, 0) + value
        if page.get("type") in NO_PROSE_TYPES:
            totals["kept_chars_nonarticle"] += page.get("kept_chars", 0)
    return totals
