"""One benchmark for the detector's input: what the kept segments' ``main_text`` holds on every
public dev set, for the detector profile and the article profile, next to trafilatura's on the
same pages, held out by site.

Per page, the capture is segmented once and every step before the prose decision runs per
profile (:func:`prepare_pages`); the decision, the only part with fitted thresholds, then runs
per candidate (:func:`cross_validate`): the pages are dealt into folds grouped by site
(:func:`group_folds`, scikit-learn's ``GroupKFold`` assignment), each fold's thresholds are chosen
on the other folds' pages only, and the fold's own pages are scored with them. The figures:

* ``readability-dev`` and the article benchmark: precision, recall and F1 of the kept text
  against the reference with the benchmark's metric (:mod:`.article_data`, as
  ``readability-dev/score.py``), pages under 0.5, and the article benchmark's recall against
  the body with the page's heading lines aside on both sides;
* ``nonarticle-dev``: its ``check.py``'s figures (:mod:`.nonarticle`).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..decide.step import DecisionRules, decide_segments
from ..decide.tuning import group_folds, nonarticle_site
from ..model import TEXT_TAG, PageCapture, Segment
from ..records import UNIT_SEPARATOR, segment_units
from ..records import detector_text as piece_text
from .article_data import page_counts, score_predictions

__all__ = [
    "ALL_SETS_ROW",
    "GRID",
    "DevPage",
    "DevSet",
    "article_site",
    "cross_validate_labels",
    "cross_validate_reference",
    "detector_text",
    "group_folds",
    "heading_lines",
    "nonarticle_site",
    "prepare_pages",
    "readability_site",
]

PROFILES = ("detector", "article")
GRID: dict[str, list[Any]] = {
    "min_sentence_share": [0.05, 0.1, 0.15],
    "min_page_prose_share": [0.05, 0.1, 0.2],
}
"""The decision's thresholds chosen per fold (on the other folds' pages)."""
FOLDS = 5
ALL_SETS_ROW = "detector (held out, all sets)"
"""The row of the thresholds fitted on every set's other folds at once (:mod:`.detector_fit`)."""


def readability_site(name: str) -> str:
    """``nytimes-3`` → ``nytimes``: readability-dev names one site per name without ``-N``."""
    return re.sub(r"-\d+$", "", name)


def article_site(name: str) -> str:
    """The article benchmark has one page per site (mostly): each page is its own group."""
    return name


@dataclass(slots=True)
class DevPage:
    """One page of a set, with its segments after every step before the decision, per profile."""

    name: str
    capture: PageCapture | None
    html: str = ""
    gold: str = ""
    before: dict[str, list[Segment]] = field(default_factory=dict)
    error: str = ""


@dataclass(slots=True)
class DevSet:
    name: str
    pages: list[DevPage]
    group_of: Callable[[str], str]
    kind: str
    """``reference`` (scored against a reference text) or ``labels`` (nonarticle-dev)."""
    root: Path


def prepare_pages(pages: list[DevPage], configs: dict[str, dict[str, Any]],
                  segmenter_name: str = "dom-cohesion", progress: bool = False) -> None:
    """Segment each capture once and run each profile's steps before the decision on copies."""
    from ..pipeline import PipelineOptions, build_steps
    from ..steps import PageState, run_steps

    steps = {profile: [step for step in build_steps(PipelineOptions(segmenter=segmenter_name,
                                                                    config=config))
                       if step.name != "decision"]
             for profile, config in configs.items()}
    segment_step = next(iter(steps.values()))[0]
    for page in _progress(pages, progress, "steps"):
        if page.capture is None:
            continue
        try:
            state = PageState(page.capture)
            segment_step.run(state)
            for profile, profile_steps in steps.items():
                copy_state = PageState(page.capture, copy.deepcopy(state.segmentation))
                run_steps(profile_steps[1:], copy_state)
                page.before[profile] = copy_state.segments
        except Exception as err:  # noqa: BLE001 - one broken page scores empty, not a crash
            page.error = f"{type(err).__name__}: {err}"
            page.before.clear()


def detector_text(segments: list[Segment], posts_aside: bool = False) -> str:
    """The detector's input: the kept segments' ``main_text`` (``text`` where it is empty), in
    file order (what ``wps/detector/jsonl.py`` scores). ``posts_aside``: without the pieces of
    posts (comments, answers), which the detector keeps by design and an article reference
    leaves out."""
    return "\n".join(piece_text(segment) for segment in segments
                     if segment.kept and not (posts_aside and segment.post_record is not None))


def largest_unit_text(segments: list[Segment]) -> str:
    """The text of the page's largest detector unit (:mod:`wps.decide.units`; the article's,
    on an article page): what one Binoculars verdict covers."""
    return max((UNIT_SEPARATOR.join(piece_text(segment) for segment in members)
                for members in segment_units(segments).values()), key=len, default="")


def decided(page: DevPage, profile: str, rules: DecisionRules | None) -> list[Segment]:
    """Copies of the page's segments for ``profile``, decided by ``rules`` (``None``: as the
    profile leaves them, no decision)."""
    segments = copy.deepcopy(page.before.get(profile, []))
    if rules is not None and segments and page.capture is not None:
        decide_segments(page.capture, segments, rules)
    return segments


def candidate_rules(base: DecisionRules) -> list[DecisionRules]:
    import itertools

    fields = sorted(GRID)
    return [replace(base, **dict(zip(fields, values)))
            for values in itertools.product(*(GRID[name] for name in fields))]


# ------------------------------------------------------------------ reference-text sets
def reference_scores(pages: list[DevPage], texts: dict[str, str]) -> dict[str, Any]:
    """P/R/F1 (the benchmark's metric), pages under 0.5 F1, per-page F1."""
    truth = {page.name: {"articleBody": page.gold} for page in pages}
    score = score_predictions(truth, {name: {"articleBody": texts.get(name, "")}
                                      for name in truth}).to_json()
    per_page = {page.name: page_f1(page.gold, texts.get(page.name, "")) for page in pages}
    score["under_half"] = sorted(name for name, value in per_page.items() if value < 0.5)
    score["per_page"] = per_page
    return score


def page_f1(gold: str, text: str) -> float:
    tp, fp, fn = page_counts(gold, text)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    return round(2 * precision * recall / (precision + recall), 4) if precision + recall else 0.0


HEADING_TAGS = frozenset({"H1", "H2", "H3", "H4", "H5", "H6"})
CODE_TAGS = frozenset({"PRE", "CODE"})
MIN_CODE_LINE_CHARS = 4
"""A reference line this short (squeezed) is not taken for code by occurring in a code block."""


def element_texts(capture: PageCapture | None, tags: frozenset[str]) -> frozenset[str]:
    """The squeezed texts of the page's elements of ``tags`` (outermost ones)."""
    if capture is None:
        return frozenset()
    texts: dict[int, list[str]] = {}
    owner_of: dict[int, int] = {}
    for node in capture.nodes:
        parent = node.parent
        owner = owner_of.get(parent) if parent is not None else None
        if owner is None and node.tag in tags:
            owner = node.id
        if owner is not None:
            owner_of[node.id] = owner
            if node.tag == TEXT_TAG:
                texts.setdefault(owner, []).append(node.text)
    return frozenset("".join("".join(parts).split()) for parts in texts.values())


def heading_lines(capture: PageCapture | None) -> frozenset[str]:
    """The squeezed texts of the page's headings (``H1``-``H6``)."""
    return element_texts(capture, HEADING_TAGS)


def without_headings(gold: str, headings: frozenset[str]) -> str:
    """``gold`` without its lines that are one of the page's headings."""
    return "\n".join(line for line in gold.splitlines() if "".join(line.split()) not in headings)


def without_code(gold: str, code: frozenset[str]) -> str:
    """``gold`` without its lines that stand in one of the page's ``pre``/``code`` blocks (a
    program's lines; the detector leaves code out by design)."""
    blocks = "\n".join(code)
    return "\n".join(line for line in gold.splitlines()
                     if len(squeezed := "".join(line.split())) < MIN_CODE_LINE_CHARS
                     or squeezed not in blocks)


def body_recall(pages: list[DevPage], texts: dict[str, str]) -> float:
    """Macro recall of the bodies' prose: the page's heading lines aside on both sides, the
    reference's and the kept text's (a heading kept between two paragraphs would otherwise
    break the 4-grams that run across it in the reference without headings)."""
    truth, predicted = {}, {}
    for page in pages:
        headings = heading_lines(page.capture)
        truth[page.name] = {"articleBody": without_headings(page.gold, headings)}
        predicted[page.name] = {"articleBody": without_headings(texts.get(page.name, ""),
                                                                headings)}
    return round(score_predictions(truth, predicted).recall, 4)


def by_design_scores(pages: list[DevPage], texts: dict[str, str]) -> dict[str, Any]:
    """P/R/F1 against the reference with what the detector leaves out by design aside: its
    lines of code, and the page's heading lines on both sides (the title and the headings that
    close an article go by design; ``texts``: with the pieces of posts aside, where the row
    keeps posts)."""
    truth, predicted = {}, {}
    for page in pages:
        headings = heading_lines(page.capture)
        truth[page.name] = {"articleBody": without_code(without_headings(page.gold, headings),
                                                        element_texts(page.capture, CODE_TAGS))}
        predicted[page.name] = {"articleBody": without_headings(texts.get(page.name, ""),
                                                                headings)}
    score = score_predictions(truth, predicted)
    return {"precision": round(score.precision, 4), "recall": round(score.recall, 4),
            "f1": round(score.f1, 4)}


def fold_choice(pages: list[DevPage], folds: list[set[str]],
                candidates: list[DecisionRules], score: Callable[[int, set[str]], float],
                ) -> tuple[dict[str, int], list[int]]:
    """Per page, the index of the candidate chosen on the other folds; each fold's choice."""
    choice: dict[str, int] = {}
    chosen = []
    names = {page.name for page in pages}
    for fold in folds:
        best = max(range(len(candidates)), key=lambda i: score(i, names - fold))
        chosen.append(best)
        choice.update(dict.fromkeys(fold, best))
    return choice, chosen


def cross_validate_reference(dev: DevSet, base: DecisionRules, k: int = FOLDS) -> dict[str, Any]:
    """The detector profile held out by site on a reference-text set, the article profile and
    trafilatura on the same pages."""
    candidates = candidate_rules(base)
    texts = [{page.name: detector_text(decided(page, "detector", rules)) for page in dev.pages}
             for rules in candidates]
    f1s = [{page.name: page_f1(page.gold, text[page.name]) for page in dev.pages}
           for text in texts]
    folds = group_folds((page.name for page in dev.pages), dev.group_of, k)
    choice, chosen = fold_choice(dev.pages, folds, candidates,
                                 lambda i, train: sum(f1s[i][name] for name in train))
    rows = {
        "article": {page.name: detector_text(decided(page, "article", None))
                    for page in dev.pages},
        "trafilatura": {page.name: _trafilatura(page.html) for page in dev.pages},
    }
    result: dict[str, Any] = {"folds": k, "chosen": [_fields(candidates[i]) for i in chosen]}
    result["detector (held out)"] = detector_row(dev, lambda name: candidates[choice[name]])
    result["detector (packaged defaults)"] = detector_row(dev, lambda name: base)
    for label, row in rows.items():
        result[label] = reference_row(dev, row)
    return result


def detector_row(dev: DevSet, rules_of: Callable[[str], DecisionRules]) -> dict[str, Any]:
    """:func:`reference_row` of the detector profile, each page decided by ``rules_of(name)``,
    with the figures with the pieces of posts aside, and the recall of the largest detector unit
    alone (``unit_recall``: how much of the article one verdict judges)."""
    texts, aside, unit = {}, {}, {}
    for page in dev.pages:
        segments = decided(page, "detector", rules_of(page.name))
        texts[page.name] = detector_text(segments)
        aside[page.name] = detector_text(segments, posts_aside=True)
        unit[page.name] = largest_unit_text(segments)
    row = reference_row(dev, texts, aside)
    row["unit_recall"] = reference_scores(dev.pages, unit)["recall"]
    return row


def reference_row(dev: DevSet, texts: dict[str, str],
                  posts_aside: dict[str, str] | None = None) -> dict[str, Any]:
    """One row of a reference set: :func:`reference_scores`, the recall with headings aside, the
    scores with the pieces of posts aside (``posts_aside``: the texts without them, for rows
    that keep posts) and :func:`by_design_scores`."""
    row = reference_scores(dev.pages, texts)
    row["body_recall"] = body_recall(dev.pages, texts)
    if posts_aside is not None:
        aside = reference_scores(dev.pages, posts_aside)
        row["posts_aside"] = {key: aside[key] for key in ("precision", "recall", "f1",
                                                          "under_half")}
    row["by_design"] = by_design_scores(dev.pages, texts if posts_aside is None else posts_aside)
    return row


def _fields(rules: DecisionRules) -> dict[str, Any]:
    return {name: getattr(rules, name) for name in sorted(GRID)}


def _trafilatura(html: str) -> str:
    import trafilatura

    return (trafilatura.extract(html) or "") if html else ""


# ------------------------------------------------------------------ labelled set (check.py)
def cross_validate_labels(dev: DevSet, base: DecisionRules, work: Path,
                          k: int = FOLDS) -> dict[str, Any]:
    """nonarticle-dev: check.py's totals for the detector profile held out by site, the article
    profile and trafilatura (its text as one kept segment per page)."""
    from ..decide.tuning import objective
    from .nonarticle_data import load_dataset
    from .nonarticle_scores import aggregate

    dataset = load_dataset(dev.root)
    candidates = candidate_rules(base)
    reports = [check_segments(dataset, work / f"candidate-{number}",
                              {page.name: decided(page, "detector", rules) for page in dev.pages})
               for number, rules in enumerate(candidates)]
    folds = group_folds((page.name for page in dev.pages), dev.group_of, k)

    def train_score(index: int, train: set[str]) -> float:
        return objective(label_totals(aggregate(reports[index]["pages"][n] for n in train),
                                      reports[index], train, dataset))

    choice, chosen = fold_choice(dev.pages, folds, candidates, train_score)
    held = {name: reports[index]["pages"][name] for name, index in choice.items()}
    rows = {"detector (held out)": held}
    rows["detector (packaged defaults)"] = check_segments(
        dataset, work / "defaults",
        {page.name: decided(page, "detector", base) for page in dev.pages})["pages"]
    rows["article"] = check_segments(dataset, work / "article",
                                     {page.name: decided(page, "article", None)
                                      for page in dev.pages})["pages"]
    rows["trafilatura"] = check_segments(dataset, work / "trafilatura",
                                         {page.name: [_whole(_trafilatura(page.html))]
                                          for page in dev.pages})["pages"]
    result: dict[str, Any] = {"folds": k, "chosen": [_fields(candidates[i]) for i in chosen]}
    for label, pages in rows.items():
        result[label] = label_row(dataset, pages)
    return result


def label_row(dataset: Any, pages: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """One row of nonarticle-dev: check.py's totals over ``pages`` (its per-page entries)."""
    from .nonarticle_scores import aggregate

    names = sorted(pages)
    return label_totals(aggregate(pages[name] for name in names), {"pages": pages}, names,
                        dataset)


def _whole(text: str) -> Segment:
    segment = Segment.from_box("0", (0.0, 0.0, 1.0, 1.0))
    segment.text = segment.main_text = text
    return segment


def check_segments(dataset: Any, out: Path, segments: dict[str, list[Segment]]) -> dict[str, Any]:
    """check.py's report (with ``posts_alone``) over ``segments`` written as ``segments.jsonl``."""
    import shutil

    from .nonarticle_scores import add_posts_alone, run_check

    shutil.rmtree(out, ignore_errors=True)
    for name, page_segments in segments.items():
        folder = out / name
        folder.mkdir(parents=True, exist_ok=True)
        with open(folder / "segments.jsonl", "w", encoding="utf-8") as handle:
            handle.writelines(json.dumps({"text": segment.text, "main_text": segment.main_text,
                                          "kept": segment.kept, "unit": segment.unit},
                                         ensure_ascii=False) + "\n"
                              for segment in page_segments)
    report = run_check(dataset, out)
    add_posts_alone(dataset, out, report)
    return report


def label_totals(total: dict[str, Any], report: dict[str, Any], names: Iterable[str],
                 dataset: Any) -> dict[str, Any]:
    """check.py's sums over ``names`` (:func:`aggregate`'s ``total``) with the kept characters
    on the pages with no prose (index, login, table) added from ``report``."""
    from .nonarticle_data import NONARTICLE_TYPES

    total = dict(total)
    total["kept_chars_nonarticle"] = sum(
        report["pages"][name].get("kept_chars", 0) for name in names
        if dataset.page_type(name) in NONARTICLE_TYPES)
    return total


def _progress(items: list[Any], enabled: bool, label: str) -> Iterable[Any]:
    if not enabled:
        return items
    from tqdm import tqdm

    return tqdm(items, desc=label, unit="page")
