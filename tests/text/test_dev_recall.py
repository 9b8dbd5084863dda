"""Recall on real dev pages, by class of failure: an article the segmenter joined with a menu
on a page of menus (the page verdict must not drop it), an article body cut into short
paragraphs (each paragraph is judged by its own lines, not by the share of 8-word sentences a
whole block needs), and a table page whose cells pass as prose (the verdict weighs sentences,
so a fold's low threshold does not turn it into an article).

Pages are read in place from ``../shared``; their captures come from the dev-set captures
(``$WPS_CAPTURES``, default ``../captures`` beside the checkout) when present, else the page
is rendered here without its scripts, as those captures were.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import os
from pathlib import Path

import pytest
from shared_data import ARTICLE_BENCHMARK, REPO, SHARED, require_shared

from wps.benchmark.detector import DevPage, decided, detector_text, prepare_pages
from wps.decide.step import DecisionRules
from wps.model import PageCapture

CAPTURES = Path(os.environ.get("WPS_CAPTURES", REPO.parent / "captures"))
"""Folders as ``/work/captures`` lays them out (``articles-nojs/<id>``, ``readability/...``)."""


def _capture(folder: str, name: str, html: str, request, tmp_path) -> PageCapture:
    from wps.benchmark.article_data import without_scripts
    from wps.benchmark.detector_run import capture_index

    found = capture_index([CAPTURES / folder]).get(name) if (CAPTURES / folder).is_dir() else None
    if found is not None:
        return PageCapture.load(found)
    page = tmp_path / "page.html"
    page.write_text(without_scripts(html), encoding="utf-8")
    return request.getfixturevalue("text_browser").capture(str(page))


def _read_gz(path: Path) -> str:
    with gzip.open(path) as handle:
        return handle.read().decode("utf-8", "replace")


def article_page(page_id: str, request, tmp_path) -> DevPage:
    """An article benchmark page, with its reference body, through every step before the
    decision (the detector profile's, as the benchmark runs them)."""
    root = require_shared(ARTICLE_BENCHMARK)
    truth = json.loads((root / "ground-truth.json").read_text(encoding="utf-8"))
    html = _read_gz(root / "html" / f"{page_id}.html.gz")
    capture = _capture("articles-nojs", page_id, html, request, tmp_path)
    return _prepared(DevPage(page_id, capture, html, truth[page_id]["articleBody"]))


def readability_page(name: str, request, tmp_path) -> DevPage:
    root = require_shared(SHARED / "readability-dev")
    html = _read_gz(root / "pages" / f"{name}.html.gz")
    capture = _capture("readability", name, html, request, tmp_path)
    gold = (root / "expected" / f"{name}.txt").read_text(encoding="utf-8")
    return _prepared(DevPage(name, capture, html, gold))


def _prepared(page: DevPage) -> DevPage:
    from wps.config import load_config

    prepare_pages([page], {"detector": load_config(None, "detector")})
    return page


def squeezed_words(text: str) -> str:
    return " ".join(text.split())


def kept_share(page: DevPage, lines: list[str], rules: DecisionRules | None = None) -> float:
    """Share of ``lines`` found whole in the detector's input."""
    text = squeezed_words(detector_text(decided(page, "detector",
                                                rules or DecisionRules.from_config(None))))
    return sum(squeezed_words(line) in text for line in lines) / len(lines)


def sentence_lines(gold: str, min_words: int) -> list[str]:
    """The reference's lines that are sentences by their own text: ``min_words`` words or more,
    ending in sentence punctuation (headings, fields and names end without one)."""
    return [line for line in gold.splitlines()
            if len(line.split()) >= min_words and line.rstrip()[-1:] in ".!?~"]


def test_an_article_joined_with_a_menu_is_kept_on_a_page_of_menus(request, tmp_path):
    """f6ac15a4d985: a town hall's news item shares its segment with a category menu (83% of
    its text links) on a page that is nearly all menus; its main text is the article."""
    page = article_page("f6ac15a4d98511396da23e4428deb5605422b1c8bbc8284e771f6896bdccf57f",
                        request, tmp_path)
    lines = sentence_lines(page.gold, 8)
    assert lines
    assert kept_share(page, lines) >= 0.9


SHORT_PARAGRAPH_PAGES = {
    "article benchmark: a festival diary in one-line paragraphs":
        ("articles", "8cad00dc22de45ba42e9540421b5f78333f7ac57b385d69acb27a53b9fd69f0c"),
    "readability-dev clean-links": ("readability", "clean-links"),
    "readability-dev table-style-attributes": ("readability", "table-style-attributes"),
}


@pytest.mark.parametrize("kind", sorted(SHORT_PARAGRAPH_PAGES))
def test_an_article_body_in_short_paragraphs_keeps_its_sentences(request, tmp_path, kind):
    """Each paragraph a segment of its own, too short to hold an 8-word sentence: every line of
    the reference that is a sentence by its own text must reach the detector."""
    folder, name = SHORT_PARAGRAPH_PAGES[kind]
    load = article_page if folder == "articles" else readability_page
    page = load(name, request, tmp_path)
    lines = sentence_lines(page.gold, 5)
    assert len(lines) >= 10
    assert kept_share(page, lines) >= 0.92


def test_a_table_page_whose_cells_pass_as_prose_keeps_nothing_at_a_low_threshold(request,
                                                                                  tmp_path):
    """nonarticle-dev's course table (``siegfried-marcus-berufsschule.at.kft``): its cells are
    five-word lines that pass as prose; with the lowest page threshold a fold may pick, the page
    is still no article and its cells are not kept."""
    root = require_shared(SHARED / "nonarticle-dev")
    name = "siegfried-marcus-berufsschule.at.kft"
    html = _read_gz(root / "pages" / f"{name}.html.gz")
    page = _prepared(DevPage(name, _capture("nonarticle", name, html, request, tmp_path), html))
    rules = dataclasses.replace(DecisionRules.from_config(None), min_page_prose_share=0.05,
                                min_sentence_share=0.05)
    assert len(detector_text(decided(page, "detector", rules))) <= 200


FIGURE_PAGES = {
    "a college football report": "65ce3a4577a0306994efa190a0d96e84014f9d4257ad54753e807ede518f02c0",
    "a car's specifications told in prose":
        "3cb22bfabed8de715c0813a7bb5052363c96bd71ccce3bb2dfb3ab9d1d7a9bbc",
}


@pytest.mark.parametrize("kind", sorted(FIGURE_PAGES))
def test_sentences_that_cite_figures_stay_within_an_article(request, tmp_path, kind):
    """A statistics box ("35 users online: 2 registered and 33 guests") stands after the writing;
    an article's sentences with scores and figures ("The Eagles led 14-7 at halftime before
    scoring 24 points ...") stand within it and stay."""
    page = article_page(FIGURE_PAGES[kind], request, tmp_path)
    lines = sentence_lines(page.gold, 5)
    assert len(lines) >= 10
    assert kept_share(page, lines) >= 0.97


def test_figures_in_parentheses_are_prose_not_code(request, tmp_path):
    """dfd43bc0d46e: "native ad units (38%), followed by in-feed units (30%), ..." is a
    sentence; its parentheses and percent signs are prose's marks, not a program's symbols."""
    from wps.text.code import looks_like_code

    page = article_page("dfd43bc0d46e7aaa78ba10fbcb5b9fdfe78771d36cb4c7497e17fb6f69170ec5",
                        request, tmp_path)
    lines = [line for line in page.gold.splitlines() if "%)" in line]
    assert lines
    assert not any(looks_like_code(line) for line in lines)
    assert kept_share(page, lines) == 1.0
    assert looks_like_code("rate = (hits % size) * 100; print(f'{rate}%')")


@pytest.mark.parametrize("name", ["toc-missing", "002"])
def test_an_articles_paragraphs_are_prose_not_posts(request, tmp_path, name):
    """The segmenter groups an article's alike paragraphs as repeated blocks; only what the
    posts step found (a post's body) is ``kind: post``, so a user who takes the article by its
    kind gets all of it."""
    page = readability_page(name, request, tmp_path)
    kept = [s for s in decided(page, "detector", DecisionRules.from_config(None)) if s.kept]
    lines = set(sentence_lines(page.gold, 8))
    in_article = [s for s in kept if any(squeezed_words(line) in squeezed_words(s.main_text)
                                         for line in lines)]
    assert len(in_article) >= 10
    assert all(s.kind == "prose" for s in in_article)
    assert all(s.post_part == "body" for s in kept if s.kind == "post")


@pytest.mark.parametrize("name", ["toc-missing", "002"])
def test_an_article_cut_into_many_segments_is_judged_as_one_unit(request, tmp_path, name):
    """A detector judges the article, not its paragraphs one by one: every kept piece that holds
    a sentence of the reference is in the page's one ``article`` unit, and each post (002 has
    readers' comments) is a unit of its own."""
    from wps.records import DetectorInput, detector_units

    page = readability_page(name, request, tmp_path)
    segments = decided(page, "detector", DecisionRules.from_config(None))
    kept = [s for s in segments if s.kept]
    lines = set(sentence_lines(page.gold, 8))
    in_article = [s for s in kept if any(squeezed_words(line) in squeezed_words(s.main_text)
                                         for line in lines)]
    assert len(in_article) >= 10
    assert {s.unit for s in in_article} == {"article"}
    posts = {s.post_record for s in kept if s.post_record is not None}
    units_of_posts = {s.unit for s in kept if s.post_record is not None}
    assert len(units_of_posts) == len(posts)
    assert all(unit.startswith("post-") for unit in units_of_posts)
    assert all(s.unit is None for s in segments if not s.kept)

    inputs = [DetectorInput(s.id, "u", s.kind or "", s.unit or "", "", s.main_text,
                            None, (), True, (0.0, 0.0, 0.0, 0.0)) for s in kept]
    article = next(unit for unit in detector_units(inputs) if unit.unit == "article")
    text, everything = squeezed_words(article.text), squeezed_words(detector_text(segments))
    held = [line for line in lines if squeezed_words(line) in everything]
    assert len(held) >= 0.7 * len(lines)
    assert all(squeezed_words(line) in text for line in held)


@pytest.mark.parametrize("name", ["medium-3", "table-style-attributes"])
def test_lead_ins_before_quotes_reach_the_detector(request, tmp_path, name):
    """A line that introduces a quote with a colon ("She is still trying:", "Various other
    people wrote:") is the writer's, though too short to be prose by its own text: between the
    article's writing it reaches the detector (:mod:`wps.decide.between`)."""
    page = readability_page(name, request, tmp_path)
    lead_ins = [line for line in page.gold.splitlines()
                if line.rstrip().endswith(":") and 3 <= len(line.split()) <= 5]
    assert len(lead_ins) >= 3
    assert kept_share(page, lead_ins) >= 0.75
