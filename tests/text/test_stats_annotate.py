"""Segment statistics and main text, on captures whose numbers are counted by hand."""

from __future__ import annotations

import numpy as np

from wps.model import Segment, Segmentation
from wps.text.annotate import annotate_segments, kept_main_text
from wps.text.extract import MainBlock, MainText

LONG = "x" * 230  # one large block (≥ 200 characters)


def page(make_capture):
    return make_capture(("BODY", [
        ("DIV", [("UL", [("LI", [("A", ["Home"])]), ("LI", [("A", ["Sport"])])])]),   # 1: nav
        ("DIV", [                                                                  # 6: article
            ("H1", ["Title"]),
            ("P", [LONG[:100], ("A", ["linked words"]), LONG[100:]]),
            ("P", ["Before", ("BR", []), "after"]),
            ("UL", [("LI", ["item one"]), ("LI", ["item two"])]),
        ]),
    ]))


def test_statistics_of_an_article_segment(make_capture) -> None:
    capture = page(make_capture)
    article = next(n.id for n in capture.nodes if n.tag == "DIV" and n.id > 2)
    nav = next(n.id for n in capture.nodes if n.tag == "DIV")
    segmentation = Segmentation("p", "test", 1000, 400, [
        Segment.from_box("nav", (0, 0, 1000, 60), [nav]),
        Segment.from_box("article", (0, 60, 1000, 400), [article]),
    ])
    blocks = ["Title", LONG[:100] + "linked words" + LONG[100:], "Before after",
              "item one", "item two"]
    main_text = MainText("test", [MainBlock("main", "p", b) for b in blocks])
    report = annotate_segments(capture, segmentation, main_text=main_text)
    nav_segment, article_segment = segmentation.segments

    assert nav_segment.main_text == "" and nav_segment.stats["main_text_overlap"] == 0.0
    assert nav_segment.text == "Home\nSport"
    assert nav_segment.main_text_match["match"] == "none"

    stats = article_segment.stats
    total = 5 + 242 + 6 + 5 + 8 + 8  # Title, the paragraph, Before, after, two items
    assert stats["main_chars"] == len(article_segment.main_text)
    assert article_segment.main_text.split("\n") == [
        "Title", LONG[:100] + "linked words" + LONG[100:], "Before", "after", "item one",
        "item two"]
    assert stats["main_text_overlap"] == 1.0
    assert np.isclose(stats["link_share"], 12 / total)
    assert stats["largest_block"] == 242
    assert np.isclose(stats["large_block_share"], 242 / total)
    assert np.isclose(stats["list_table_share"], 16 / total)  # two items of 8 characters
    assert stats["main_tokens"] == 9
    assert report.unaligned == [] and report.aligned_share == 1.0
    assert kept_main_text(capture, segmentation, report) == article_segment.main_text


def test_partial_main_text_and_nested_segments_do_not_repeat_text(make_capture) -> None:
    capture = page(make_capture)
    body = 0
    article = next(n.id for n in capture.nodes if n.tag == "DIV" and n.id > 2)
    segmentation = Segmentation("p", "test", 1000, 400, [
        Segment.from_box("all", (0, 0, 1000, 400), [body]),
        Segment.from_box("article", (0, 60, 1000, 400), [article]),
    ])
    main_text = MainText("test", [MainBlock("main", "p", "Before after")])
    report = annotate_segments(capture, segmentation, main_text=main_text)
    whole, inner = segmentation.segments
    assert whole.main_text == inner.main_text == "Before\nafter"
    assert 0 < whole.stats["main_text_overlap"] < inner.stats["main_text_overlap"] < 1
    assert kept_main_text(capture, segmentation, report) == "Before\nafter"
    whole.kept = False
    inner.kept = False
    assert kept_main_text(capture, segmentation, report) == ""


def test_inline_pieces_join_with_space_only_where_there_was_a_gap(make_capture) -> None:
    # Webis-like stripped text nodes: "W" + "ord," touch (one word); "big" stands apart.
    capture = make_capture(("BODY", [("P", [("B", ["W"]), "ord, ", ("I", ["big"])])]))
    nodes = capture.nodes
    italic_text = nodes[-1]
    left, top, right, bottom = italic_text.bbox
    nodes[-1].bbox = (left + 6, top, right + 6, bottom)  # stripped trailing space: visible gap
    nodes[4].text = "ord,"
    segmentation = Segmentation("p", "test", 1000, 100, [Segment.from_box("s", (0, 0, 1, 1), [0])])
    annotate_segments(capture, segmentation,
                      main_text=MainText("test", [MainBlock("main", "p", "Word, big")]))
    assert segmentation.segments[0].main_text == "Word, big"
