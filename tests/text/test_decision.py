"""The per-segment prose decision: kinds, drops, rescue of prose the extractor missed, line
trimming; on hand-built captures (each kind) and on the example forum page (Chromium)."""

from __future__ import annotations

import pytest

import wps
from wps.decide import DecisionRules, decide_segments
from wps.model import Segment

ARTICLE = ("The bakery on the corner has sold rye bread since 1952, and the family still bakes "
           "every loaf by hand before dawn. Regulars say the crust is the best in town.")


def one_segment(capture, main_text: str = "", reasons: tuple[str, ...] = ()) -> Segment:
    from wps.page.reading import reading_text

    node_ids = [node.id for node in capture.nodes]
    segment = Segment.from_box("s", (0, 0, 1000, 200), node_ids)
    segment.text = reading_text(capture, node_ids)
    segment.main_text = main_text
    segment.reasons = list(reasons)
    segment.kept = not reasons
    return segment


def decided(capture, **kwargs) -> Segment:
    segment = one_segment(capture, **kwargs)
    decide_segments(capture, [segment], DecisionRules.from_config())
    return segment


def test_article_paragraph_is_kept_as_prose(make_capture):
    segment = decided(make_capture(("BODY", [("P", [ARTICLE])])), main_text=ARTICLE)
    assert segment.kept and segment.kind == "prose"
    assert segment.prose_score > 0.9


def test_login_form_is_dropped(make_capture):
    capture = make_capture(("BODY", [("FORM", [
        ("LABEL", ["Email address"]), ("INPUT", []), ("LABEL", ["Password"]), ("INPUT", []),
        ("BUTTON", ["Log in"]), ("P", ["Forgot your password? Enter your email and we will "
                                      "send you a link to reset it."])])]))
    segment = decided(capture, main_text="Forgot your password?")
    assert not segment.kept and "not_prose" in segment.reasons
    assert segment.kind == "form"


def test_link_list_and_score_table_are_dropped(make_capture):
    links = make_capture(("BODY", [("UL", [("LI", [("A", [f"Category {n}"])])
                                          for n in range(8)])]))
    table = make_capture(("BODY", [("TABLE", [("TR", [("TD", [f"Team {n}"]), ("TD", [str(n)]),
                                                       ("TD", [f"{n}:{n + 1}"])])
                                              for n in range(10)])]))
    link_segment = decided(links, main_text="Category 1")
    table_segment = decided(table, main_text="Team 1")
    assert not link_segment.kept and link_segment.kind == "link-list"
    assert not table_segment.kept and table_segment.kind == "table"


def test_prose_the_extractor_missed_is_rescued(make_capture):
    capture = make_capture(("BODY", [("DIV", [("P", [ARTICLE])])]))
    segment = decided(capture, main_text="", reasons=("no_main_text",))
    assert segment.kept and segment.reasons == []
    assert segment.main_text == ARTICLE and segment.main_text_rescued is True


def test_spec_lines_are_cut_from_kept_prose(make_capture):
    capture = make_capture(("BODY", [("P", [ARTICLE]), ("P", ["Gewicht: 250 g"]),
                                     ("P", ["Artikelnummer: 8570931"])]))
    segment = decided(capture, main_text=f"{ARTICLE}\nGewicht: 250 g\nArtikelnummer: 8570931")
    assert segment.kept and segment.main_text == ARTICLE
    assert segment.lines_trimmed == 2


def test_a_line_that_is_one_link_is_cut_from_kept_prose(make_capture):
    teaser = "Read the whole article about the bakery here"
    capture = make_capture(("BODY", [("P", [ARTICLE]), ("P", [("A", [teaser])]),
                                     ("P", ["Regulars say it is ", ("A", ["the best"]),
                                            " in town and they queue for it every morning"])]))
    mixed = "Regulars say it is the best in town and they queue for it every morning"
    segment = decided(capture, main_text=f"{ARTICLE}\n{teaser}\n{mixed}")
    assert segment.kept and segment.main_text == f"{ARTICLE}\n{mixed}"  # a link inside a line stays
    assert segment.lines_trimmed == 1


def test_article_profile_turns_the_decision_off():
    from wps.pipeline import PipelineOptions, build_steps

    detector = [step.name for step in build_steps(PipelineOptions())]
    article = [step.name for step in build_steps(PipelineOptions(config="eval/articles.toml"))]
    assert "decision" in detector and "decision" not in article


@pytest.mark.browser
def test_forum_page_keeps_each_post_and_drops_the_chrome():
    result = wps.segment("datasets/examples/forum.html")
    kept = [s for s in result.segmentation.segments if s.kept]
    assert len(kept) == 5 and all(s.kind == "post" for s in kept)
    assert len({s.post_record for s in kept}) == 5  # each post on its own
    dropped = [s for s in result.segmentation.segments if not s.kept]
    kinds = {s.kind: s.reasons for s in dropped}
    assert "navigation" in kinds and "not_prose" in kinds["navigation"]
    assert "post_chrome" in kinds["chrome"] and "quoted" in kinds["quote"]
    assert not any("Posts: 12" in s.text for s in kept)  # the author box is a piece of its own
    quote = next(s for s in dropped if s.kind == "quote")
    quoting = next(s for s in kept if s.post_record == quote.post_record)
    assert quote.text[:40] not in quoting.main_text  # scored once: where it was written
    assert sum(quote.text[:40] in s.main_text for s in kept) == 1
