"""The detector-input benchmark's pieces: folds never split a site, captures are found by the
page their URL names, headings are set aside from a reference, a bad --sets is a usage error."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from wps.benchmark.detector import (
    CODE_TAGS,
    detector_text,
    element_texts,
    group_folds,
    nonarticle_site,
    readability_site,
    without_code,
    without_headings,
)
from wps.benchmark.detector_run import capture_index

REPO = Path(__file__).resolve().parents[2]


def test_folds_keep_each_site_together():
    names = ["nytimes-1", "nytimes-2", "nytimes-3", "bbc-1", "wapo-1", "wapo-2", "lwn-1", "002"]
    folds = group_folds(names, readability_site, 3)
    assert sorted(n for fold in folds for n in fold) == sorted(names)
    for fold in folds:
        sites = {readability_site(n) for n in fold}
        assert all(readability_site(n) not in sites for other in folds if other is not fold
                   for n in other)
    assert nonarticle_site("www.mindfactory.de-2") == nonarticle_site("www.mindfactory.de-4")


def test_captures_are_found_by_folder_or_by_the_page_their_url_names(tmp_path):
    by_hash = tmp_path / "a" / "08184ac8121a" / "capture"
    by_hash.mkdir(parents=True)
    (by_hash / "capture.json").write_text(json.dumps(
        {"format": "wps-capture/1", "url": "file:///data/pages/medium-2.html.gz"}))
    by_name = tmp_path / "b" / "bbc-1"
    by_name.mkdir(parents=True)
    (by_name / "capture.json").write_text("{}")
    index = capture_index([tmp_path / "a", tmp_path / "b"])
    assert index["medium-2"] == by_hash and index["bbc-1"] == by_name
    assert "medium-3" not in index


def test_headings_are_set_aside_from_the_reference():
    gold = "Rye on Saturdays\nNeighbours bake rye together.\nEarly mornings\nThe oven is hot."
    assert without_headings(gold, frozenset({"RyeonSaturdays", "Earlymornings"})) == \
        "Neighbours bake rye together.\nThe oven is hot."


def test_lines_of_a_code_block_are_set_aside_and_prose_mentioning_code_stays():
    from wps.model import TEXT_TAG, Node, PageCapture

    tree = [(None, "BODY", ""), (0, "P", ""), (1, TEXT_TAG, "Call "), (1, "CODE", ""),
            (3, TEXT_TAG, "fetch(url)"), (1, TEXT_TAG, " to load the page."), (0, "PRE", ""),
            (6, "CODE", ""), (7, TEXT_TAG, "var res = await fetch(url);\nres.ok")]
    nodes = [Node(i, parent, tag, "", (0, 0, 10, 10), text=text)
             for i, (parent, tag, text) in enumerate(tree)]
    capture = PageCapture(url="http://example.test/", width=10, height=10, nodes=nodes)
    code = element_texts(capture, CODE_TAGS)
    assert code == {"fetch(url)", "varres=awaitfetch(url);res.ok"}
    gold = "Call fetch(url) to load the page.\nvar res = await fetch(url);\nres.ok\nOk"
    assert without_code(gold, code) == "Call fetch(url) to load the page.\nOk"


def test_posts_can_be_set_aside_from_the_detector_text():
    from wps.model import Segment

    article = Segment.from_box("article", (0, 0, 10, 10))
    comment = Segment.from_box("comment", (0, 10, 10, 20))
    dropped = Segment.from_box("menu", (0, 20, 10, 30))
    article.main_text, comment.main_text, dropped.main_text = "Body.", "A reader's view.", "Home"
    comment.post_record = "/html/body/div[2]"
    dropped.kept = False
    segments = [article, comment, dropped]
    assert detector_text(segments) == "Body.\nA reader's view."
    assert detector_text(segments, posts_aside=True) == "Body."


def test_an_unknown_set_is_a_usage_error(tmp_path):
    done = subprocess.run([sys.executable, "scripts/benchmark_detector.py", "--sets", "nope",
                           "--results", str(tmp_path)], cwd=REPO, capture_output=True, text=True,
                          env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert done.returncode != 0 and "unknown" in done.stderr
    assert not list(tmp_path.iterdir())


def test_the_decision_tuning_folds_never_split_a_site():
    """scripts/tune_prose_decision.py chose thresholds on folds by page type, which put one
    shop's pages on both sides of a fold; its folds are by site, as the benchmark's."""
    from wps.decide.tuning import DevPage, site_folds

    names = ["www.mindfactory.de-2", "www.mindfactory.de-3", "www.mindfactory.de-4",
             "forums.mtbr.com-0", "forums.mtbr.com-1", "berkeley.edu-0", "toptal.com.python"]
    pages = [DevPage(name, "index", None, []) for name in names]
    folds = site_folds(pages, 3)
    assert sorted(name for fold in folds for name in fold) == sorted(names)
    for site in ("www.mindfactory.de", "forums.mtbr.com"):
        assert sum(any(n.startswith(site) for n in fold) for fold in folds) == 1


def test_a_page_saved_in_a_legacy_encoding_is_read_in_it(tmp_path):
    # The benchmarks render a rewritten copy of each page (scripts out, declared UTF-8): a page
    # saved as ISO-8859-1 came out with U+FFFD for every umlaut, and its posts matched no label.
    import gzip

    from wps.benchmark.article_data import read_html, without_scripts

    text = ("<html><head><meta charset='iso-8859-1'><title>Geräte</title></head><body><p>"
            + "Über die Auslieferung der Geräte wurde noch nichts gesagt, schreibt er. " * 20
            + "</p></body></html>")
    page = tmp_path / "page.html.gz"
    page.write_bytes(gzip.compress(text.encode("iso-8859-1")))
    assert read_html(page) == text
    assert "Über die Auslieferung der Geräte" in without_scripts(read_html(page))
    utf8 = tmp_path / "utf8.html.gz"
    utf8.write_bytes(gzip.compress(text.encode("utf-8")))
    assert read_html(utf8) == text
