"""The decision's thresholds fitted on every set at once: the ascent, the folds across sets,
and a fit held out by site on hand-built pages of two reference sets."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from hand_capture import build_capture

from wps.benchmark.detector import DevPage, DevSet, readability_site
from wps.benchmark.detector_fit import (
    FIT_GRID,
    CandidateScores,
    all_set_folds,
    coordinate_ascent,
    cross_validate_all_sets,
    page_key,
)
from wps.decide import DecisionRules
from wps.model import Segment
from wps.page.reading import reading_text

PROSE = ("The bakery on the corner has sold rye bread since 1952, and the family still bakes "
         "every loaf by hand before dawn. Regulars say the crust is the best in town.")


def test_the_ascent_reaches_the_best_thresholds_and_keeps_a_default_where_values_tie():
    base = DecisionRules.from_config()

    def score(rules: DecisionRules) -> float:  # best at min_words 8, max_link_share 0.3
        return -abs(rules.min_words - 8) - 10 * abs(rules.max_link_share - 0.3)

    best = coordinate_ascent(base, score)
    assert (best.min_words, best.max_link_share) == (8, 0.3)
    assert best == replace(base, min_words=8, max_link_share=0.3)  # the others all tie


def test_folds_across_sets_never_split_a_site():
    def dev(name: str, names: list[str]) -> DevSet:
        return DevSet(name, [DevPage(page, None) for page in names], readability_site,
                      "reference", Path("."))

    sets = [dev("a", ["nytimes-1", "nytimes-2", "bbc-1", "lwn-1", "lwn-2"]),
            dev("b", ["forum-1", "forum-2", "forum-3", "shop-1", "blog-1"])]
    folds = all_set_folds(sets, 3)
    keys = sorted(page_key(d, page.name) for d in sets for page in d.pages)
    assert sorted(key for fold in folds for key in fold) == keys
    for site in ("a/nytimes", "a/lwn", "b/forum"):
        assert sum(any(key.startswith(site) for key in fold) for fold in folds) == 1


def _page(name: str) -> DevPage:
    links = [("LI", [("A", [f"Section {i}"])]) for i in range(8)]
    capture = build_capture(("BODY", [("UL", links), ("P", [PROSE])]))
    paragraph = next(node.parent for node in capture.nodes if node.text == PROSE)
    menu_ids = [node.id for node in capture.nodes if node.id < paragraph]
    segments = []
    for number, ids in enumerate((menu_ids, [paragraph, paragraph + 1])):
        segment = Segment.from_box(str(number), (0, 0, 1000, 100), ids)
        segment.text = reading_text(capture, ids)
        segment.main_text = PROSE if number else ""
        segment.kept = bool(number)
        segment.reasons = [] if number else ["no_main_text"]
        segments.append(segment)
    return DevPage(name, capture, gold=PROSE, before={"detector": segments})


def test_a_fit_held_out_by_site_over_two_sets_keeps_the_prose_and_drops_the_menu(tmp_path):
    sets = [DevSet(name, [_page(f"{name}{site}-{n}") for site in "xyz" for n in (1, 2)],
                   readability_site, "reference", tmp_path) for name in ("one", "two")]
    base = DecisionRules.from_config()
    candidates = CandidateScores(sets, {}, tmp_path)
    result = cross_validate_all_sets(sets, base, candidates, 3)
    assert len(result["chosen"]) == 3 and set(result["fitted"]) == set(FIT_GRID)
    one_pass = 1 + sum(len(set(values) - {getattr(base, name)})
                       for name, values in FIT_GRID.items())
    assert result["evaluated"] >= one_pass  # every value tried, each candidate decided once
    for dev in sets:
        row = result["sets"][dev.name]
        assert row["per_page"] == {page.name: 1.0 for page in dev.pages}
        assert row["under_half"] == [] and row["posts_aside"]["f1"] == 1.0
