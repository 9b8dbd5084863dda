"""The decision's thresholds fitted on every public set at once, and held out by site.

Each set alone fits the thresholds to its own kind of page: readability-dev to articles,
nonarticle-dev to forums and index pages. Here the pages of all sets are dealt into folds
grouped by site (a site's pages are never on both sides, whatever set holds them); on each
fold's other pages the thresholds are fitted by coordinate ascent over :data:`FIT_GRID` from the
packaged defaults, and the fold's own pages are decided with them. What is fitted is the mean
over the sets of each set's own figure on its training pages (:func:`set_score`), so a small set
weighs as much as a large one. The thresholds fitted on all pages at once are the ones this fit
would package; the held-out figures say what the fit gives on sites it was not fitted on, to be
weighed against the packaged thresholds' figures.

Every candidate is decided once on every page (:class:`CandidateScores`); the folds only sum
its per-page figures.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..decide.step import DecisionRules
from ..decide.tuning import group_folds, objective
from .article_data import page_counts
from .detector import (
    DevPage,
    DevSet,
    check_segments,
    decided,
    detector_row,
    detector_text,
    heading_lines,
    label_row,
    label_totals,
    page_f1,
    without_headings,
)

__all__ = ["FIT_GRID", "CandidateScores", "all_set_folds", "coordinate_ascent",
           "cross_validate_all_sets", "fitted_fields", "page_key", "set_score"]

FIT_GRID: dict[str, list[Any]] = {
    "min_sentence_share": [0.05, 0.1, 0.15, 0.2],
    "min_page_prose_share": [0.05, 0.1, 0.2],
    "max_link_share": [0.3, 0.4, 0.5, 0.6],
    "rescue_sentence_share": [0.4, 0.5, 0.6, 0.7, 0.8],
    "min_words": [3, 5, 8, 12],
    "strict_sentence_share": [0.3, 0.5, 0.7],
    "strict_min_words": [10, 20, 40],
}
"""The thresholds fitted, each over its values (the others held), in this order."""
FIT_FIGURE = {"article-benchmark": "body_recall"}
"""A reference set's page figure, as its acceptance names it: recall against the article body
with its headings aside on the article benchmark, F1 against the reference elsewhere."""
MAX_ROUNDS = 3
"""Passes over the thresholds; the ascent stops earlier when a pass changes none."""


@dataclass(slots=True)
class CandidateScores:
    """Per-page figures of each candidate's rules, decided once on every page of every set: a
    reference set's :func:`page_figure`; a labelled set's check.py report (its inputs written
    under ``work``, each candidate over the last)."""

    sets: list[DevSet]
    datasets: dict[str, Any]
    """Labelled set name → its loaded data set (``nonarticle_data.load_dataset``)."""
    work: Path
    _memo: dict[DecisionRules, dict[str, Any]] = field(default_factory=dict)
    _references: dict[str, str] = field(default_factory=dict)
    """Page key → :func:`figure_reference`, made once (the same for every candidate)."""

    def __call__(self, rules: DecisionRules) -> dict[str, Any]:
        """Set name → its figures under ``rules`` (page figures, or check.py's report)."""
        if rules not in self._memo:
            scores: dict[str, Any] = {}
            for dev in self.sets:
                segments = {page.name: decided(page, "detector", rules) for page in dev.pages}
                if dev.kind == "reference":
                    scores[dev.name] = {page.name: page_figure(
                        dev, self._reference(dev, page), detector_text(segments[page.name]))
                        for page in dev.pages}
                else:
                    scores[dev.name] = check_segments(
                        self.datasets[dev.name],
                        self.work / "candidate" / dev.name, segments)
            self._memo[rules] = scores
        return self._memo[rules]

    def _reference(self, dev: DevSet, page: DevPage) -> str:
        key = page_key(dev, page.name)
        if key not in self._references:
            self._references[key] = figure_reference(dev, page)
        return self._references[key]

    @property
    def evaluated(self) -> int:
        return len(self._memo)

    def set_score(self, dev: DevSet, rules: DecisionRules, names: set[str]) -> float | None:
        return set_score(dev, self(rules)[dev.name], names, self.datasets.get(dev.name))


def figure_reference(dev: DevSet, page: DevPage) -> str:
    """What the page's :data:`FIT_FIGURE` measures against: the article body with its heading
    lines aside for recall, the reference for F1."""
    if FIT_FIGURE.get(dev.name) == "body_recall":
        return without_headings(page.gold, heading_lines(page.capture))
    return page.gold


def page_figure(dev: DevSet, reference: str, text: str) -> float:
    """The page's :data:`FIT_FIGURE` for ``text``, the detector's input, against its
    :func:`figure_reference`."""
    if FIT_FIGURE.get(dev.name) == "body_recall":
        tp, _, fn = page_counts(reference, text)
        return tp / (tp + fn) if tp + fn else 0.0
    return page_f1(reference, text)


def set_score(dev: DevSet, figures: dict[str, Any], names: set[str],
              dataset: Any = None) -> float | None:
    """One set's figure on its pages among ``names`` (``None`` where it has none there): the
    mean of :func:`page_figure` on a reference set (``figures``: page → figure); on a labelled
    set (``figures``: its check.py report) the objective of the decision's tuning
    (:func:`wps.decide.tuning.objective`: prose recall less leak rate less kept characters on
    pages without prose)."""
    from .nonarticle_scores import aggregate

    pages = figures if dev.kind == "reference" else figures["pages"]
    mine = sorted(name for name in names if name in pages)
    if not mine:
        return None
    if dev.kind == "reference":
        return sum(pages[name] for name in mine) / len(mine)
    return objective(label_totals(aggregate(pages[name] for name in mine), figures, mine,
                                  dataset))


def coordinate_ascent(start: DecisionRules, score: Callable[[DecisionRules], float],
                      grid: dict[str, list[Any]] = FIT_GRID,
                      rounds: int = MAX_ROUNDS) -> DecisionRules:
    """The rules ``score`` ranks best, reached one threshold at a time over its ``grid`` values
    with the others held. A value replaces the current one only when it scores strictly higher,
    so where values tie the packaged default stays."""
    best, best_score = start, score(start)
    for _ in range(rounds):
        changed = False
        for name, values in grid.items():
            for value in values:
                candidate = replace(best, **{name: value})
                if candidate == best:
                    continue
                if (candidate_score := score(candidate)) > best_score:
                    best, best_score, changed = candidate, candidate_score, True
        if not changed:
            break
    return best


def cross_validate_all_sets(sets: list[DevSet], base: DecisionRules, candidates: CandidateScores,
                            k: int) -> dict[str, Any]:
    """Each set's detector row held out by site over all sets' folds, the rules each fold
    chose and the rules fitted on every page.

    Returns ``{"sets": {set name: row}, "chosen": [fields per fold], "fitted": fields,
    "evaluated": candidates decided}``.
    """
    owner = {page_key(dev, page.name): dev for dev in sets for page in dev.pages}
    folds = all_set_folds(sets, k)

    def fit(keys: set[str]) -> DecisionRules:
        names = {dev.name: {key.split("/", 1)[1] for key in keys if owner[key] is dev}
                 for dev in sets}

        def score(rules: DecisionRules) -> float:
            values = [value for dev in sets
                      if (value := candidates.set_score(dev, rules, names[dev.name])) is not None]
            return sum(values) / len(values) if values else 0.0

        return coordinate_ascent(base, score)

    rules_of: dict[str, DecisionRules] = {}
    chosen = []
    for fold in folds:
        fold_rules = fit(set(owner) - fold)
        chosen.append(fitted_fields(fold_rules))
        rules_of.update(dict.fromkeys(fold, fold_rules))
    fitted = fit(set(owner))
    rows: dict[str, Any] = {}
    for dev in sets:
        if dev.kind == "reference":
            rows[dev.name] = detector_row(dev, lambda name, dev=dev: rules_of[page_key(dev, name)])
        else:
            report = check_segments(
                candidates.datasets[dev.name], candidates.work / "held-out" / dev.name,
                {page.name: decided(page, "detector", rules_of[page_key(dev, page.name)])
                 for page in dev.pages})
            rows[dev.name] = label_row(candidates.datasets[dev.name], report["pages"])
    return {"sets": rows, "chosen": chosen, "fitted": fitted_fields(fitted),
            "evaluated": candidates.evaluated}


def page_key(dev: DevSet, name: str) -> str:
    """A page's name among every set's: ``set/page``."""
    return f"{dev.name}/{name}"


def all_set_folds(sets: list[DevSet], k: int) -> list[set[str]]:
    """``k`` folds of every set's :func:`page_key`, no site split across folds (a site is its
    set's group of the page, within its set)."""
    site_of = {page_key(dev, page.name): f"{dev.name}/{dev.group_of(page.name)}"
               for dev in sets for page in dev.pages}
    return group_folds(site_of, site_of.__getitem__, k)


def fitted_fields(rules: DecisionRules) -> dict[str, Any]:
    """The fitted thresholds of ``rules``, by name."""
    return {name: getattr(rules, name) for name in FIT_GRID}
