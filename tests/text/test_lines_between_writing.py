"""The headings and short sentences between an article's paragraphs reach the detector in the
article's unit (:mod:`wps.decide.between`); its title, a heading that closes it, a teaser's linked
title, headings outside it and a sign-up box's lines do not; ``wps filter`` keeps what was put
back. Rendered in Chromium and run through the whole pipeline."""

from __future__ import annotations

import pytest
from test_posts import SENTENCES, render

import wps
from wps.config import default_config
from wps.decide.between import _kept_flags
from wps.decide.lines import small_form_text
from wps.pipeline import PipelineOptions

ARTICLE = " ".join(SENTENCES)
SECTIONS = ("Choosing the flour", "Water and salt", "Баня и хлеб")
TEASERS = "".join(f"<li><a href='/s{n}'>Another story about bread and ovens, part {n} of the series"
                  f"</a></li>" for n in range(6))


def page(on: bool = True):
    sections = "".join(f"<h2>{title}</h2><p>{ARTICLE}</p><p>{ARTICLE}</p>" for title in SECTIONS)
    body = (f"<nav><h2>Sections of the site</h2><ul>{TEASERS}</ul></nav>"
            f"<article><h1>Baking rye at home, step by step</h1><p>{ARTICLE}</p>{sections}"
            f"<h3><a href='/other'>Ten more loaves to bake</a></h3><p>{ARTICLE}</p>"
            f"<h2>More from the kitchen</h2><ul>{TEASERS}</ul></article>")
    return body, switched(on)


def switched(on: bool) -> PipelineOptions:
    """The default pipeline with ``[decide] lines_between_writing`` on or off."""
    config = default_config()
    config["decide"]["lines_between_writing"] = on
    return PipelineOptions(config=config)


def kept(result) -> list:
    return [s for s in result.segmentation.segments if s.kept]


@pytest.mark.parametrize("on", [True, False])
def test_section_headings_join_the_article(text_browser, tmp_path, on):
    body, options = page(on)
    result = wps.segment(render(text_browser, tmp_path, body), options)
    text = "\n".join(s.main_text for s in kept(result))
    assert SENTENCES[0] in text
    for title in SECTIONS:
        assert (title in text) == on, title
    for holder in (s for s in kept(result) if any(t in s.main_text for t in SECTIONS)):
        assert holder.unit == "article"
    # the title opens, the last heading closes, a linked heading is a teaser's, a nav's is chrome
    for other in ("Baking rye at home", "More from the kitchen", "Ten more loaves",
                  "Sections of the site"):
        assert other not in text, other


def test_a_heading_with_no_article_around_it_stays_out(text_browser, tmp_path):
    body = (f"<div><h2>Opening hours</h2><ul>{TEASERS}</ul><h2>Where to find us</h2>"
            f"<ul>{TEASERS}</ul></div>")
    result = wps.segment(render(text_browser, tmp_path, body))
    text = "\n".join(s.main_text for s in kept(result))
    assert "Opening hours" not in text and "Where to find us" not in text


def test_kept_flags_follow_the_trimmed_lines():
    before = ["Title", "A line of writing.", "Subtitle", "More writing here.", "Share"]
    assert _kept_flags(before, ["A line of writing.", "More writing here."]) == [
        False, True, False, True, False]
    assert _kept_flags(before, []) == [False] * 5


@pytest.mark.parametrize("on", [True, False])
def test_short_sentences_between_paragraphs_are_the_articles(text_browser, tmp_path, on):
    # A story's lines of dialogue, each a paragraph of its own, are too short to be prose by
    # their own text; between the story's paragraphs they are its writing. A short line after
    # the story and outside it (a footer's) is not.
    lines = ("No answer.", "“I would prefer not to,” he said.", "He remained silent.")
    story = "".join(f"<p>{ARTICLE}</p><p>{line}</p>" for line in lines)
    body = (f"<article><h1>The copyist</h1>{story}<p>{ARTICLE}</p></article>"
            f"<footer><p>All rights reserved.</p></footer>")
    result = wps.segment(render(text_browser, tmp_path, body), switched(on))
    text = "\n".join(s.main_text for s in kept(result))
    assert ("No answer." in text) == on  # two words: cut for being short, unless placed
    for line in lines if on else ():
        assert line in text, line
        holder = next(s for s in kept(result) if line in s.main_text)
        assert holder.unit == "article"
    assert "All rights reserved." not in text


def test_a_sign_up_box_is_no_section_but_a_page_wrapping_form_is_no_box(text_browser, tmp_path):
    # A newsletter box between the paragraphs has a heading and a thanks line set before
    # writing; they are the box's. An ASP.NET page holds all its text in one form: its
    # article's section headings are still the article's.
    box = ("<form class='signup'><h3>The Baker's Letter</h3><input type='email'>"
           "<p>Thanks for signing up!</p></form>")
    story = (f"<article><h1>Rye</h1><p>{ARTICLE}</p>{box}<p>{ARTICLE}</p><h2>Water and salt</h2>"
             f"<p>{ARTICLE}</p><p>{ARTICLE}</p></article>")
    for wrapped in (False, True):
        body = (f"<form id='aspnetForm'><input type='search'>{story}</form>" if wrapped
                else story)
        result = wps.segment(render(text_browser, tmp_path, body, f"page{wrapped}.html"))
        text = "\n".join(s.main_text for s in kept(result))
        assert "Water and salt" in text, wrapped
        if not wrapped:
            assert "The Baker's Letter" not in text and "Thanks for signing up!" not in text


def test_small_forms_are_boxes_to_type_into(text_browser, tmp_path):
    body = ("<form id='signup'><h3>The Baker's Letter</h3><input type='email'></form>"
            f"<form id='page'><input type='search'><p>{ARTICLE}</p><p>{ARTICLE}</p></form>"
            f"<form id='usertext'><p>{SENTENCES[0]}</p><textarea hidden></textarea></form>")
    capture = render(text_browser, tmp_path, body)
    boxed = {capture.nodes[node_id].text for node_id in small_form_text(capture)}
    assert boxed == {"The Baker's Letter"}


def test_wps_filter_with_the_same_rules_keeps_the_lines_put_back(tmp_path):
    # A heading alone was dropped by the filters for being short, and put back between the
    # writing by the decision: re-filtering with the same rules keeps it, as a rescue.
    import json

    from wps.cli import main

    sections = "".join(f"<h2>{title}</h2><div style='margin-top: 200px'><p>{ARTICLE}</p>"
                       f"<p>{ARTICLE}</p></div>" for title in SECTIONS[1:])
    page = tmp_path / "page.html"
    page.write_text(f"<!doctype html><html><head><meta charset='utf-8'><title>t</title></head>"
                    f"<body><article><h1>Rye</h1><p>{ARTICLE}</p><p>{ARTICLE}</p>{sections}"
                    f"</article></body></html>", encoding="utf-8")
    assert main(["segment", str(page), "--out", str(tmp_path / "out")]) == 0
    segments = tmp_path / "out" / "segments.jsonl"
    assert main(["filter", str(segments), "--out", str(tmp_path / "again.jsonl")]) == 0

    def kept(path):
        return [(r["segment_id"], r["main_text"]) for r in map(json.loads, open(path)) if r["kept"]]

    before = kept(segments)
    assert any(text == SECTIONS[1] for _, text in before)  # a heading alone, put back
    assert kept(tmp_path / "again.jsonl") == before


def test_a_short_article_in_a_small_form_is_no_box(text_browser, tmp_path):
    # A page that sets all its text in one form with a search box: a short article (120 words,
    # under 1,000 characters) makes the form small, but it is the segment's writing, not a box
    # beside it: its lines stay.
    paragraphs = "".join(f"<p>{sentence}</p>" for sentence in SENTENCES + SENTENCES[:1])
    body = (f"<form id='aspnetForm'><input type='search'><article><h1>Rye</h1>{paragraphs}"
            f"</article></form>")
    capture = render(text_browser, tmp_path, body)
    assert small_form_text(capture)  # the form is small
    text = "\n".join(s.main_text for s in kept(wps.segment(capture)))
    assert all(sentence in text for sentence in SENTENCES)


PROGRAM = ("import sys\nfor line in sys.stdin:\n    total = sum(map(int, line.split()))\n"
           "    print(f'{line.strip()} -> {total}')\nsys.exit(0)")


@pytest.mark.parametrize("on", [True, False])
def test_a_lead_in_line_and_a_heading_over_a_program_are_the_articles(text_browser, tmp_path,
                                                                      on):
    # A line that introduces what follows with a colon is the writer's sentence, whether a
    # quote, a list or a program follows; a section that opens with a program keeps its
    # heading: the program is left out by design, not the end of the writing. A one-word label
    # with a colon between the paragraphs is no sentence.
    program = f"<pre><code>{PROGRAM}</code></pre>"
    body = (f"<article><h1>Summing numbers</h1><p>{ARTICLE}</p>"
            f"<p>Run it like this:</p>{program}<p>{ARTICLE}</p>"
            f"<h2>Reading from a file</h2>{program}<p>{ARTICLE}</p>"
            f"<p>Tags:</p><p>{ARTICLE}</p></article>")
    result = wps.segment(render(text_browser, tmp_path, body), switched(on))
    text = "\n".join(s.main_text for s in kept(result))
    assert ("Run it like this:" in text) == on
    assert ("Reading from a file" in text) == on
    assert "Tags:" not in text and "sys.stdin" not in text
    for holder in (s for s in kept(result) if "like this:" in s.main_text):
        assert holder.unit == "article"


def test_a_short_sentence_inside_a_section_keeps_its_heading(text_browser, tmp_path):
    # A heading opens the writing up to the next heading: a short sentence placed after a few
    # words of it (a lead-in before a program) starts no section of its own. A heading over
    # only a lead-in, in one block, is placed with it.
    program = f"<div style='margin-top: 200px'><pre><code>{PROGRAM}</code></pre></div>"
    block = "<div style='margin-top: 200px'>{}</div>".format
    body = (f"<article><h1>Summing numbers</h1><p>{ARTICLE}</p>"
            + block("<h2>On Python 2</h2>") + block("<p>Python 2 divides whole numbers and drops"
                                                    " the rest.</p><p>It runs like this:</p>")
            + program + block(f"<p>{ARTICLE}</p>")
            + block("<h2>On Python 3</h2><p>Now it runs like this:</p>") + program
            + block(f"<p>{ARTICLE}</p><p>{ARTICLE}</p>") + "</article>")
    lines = "\n".join(s.main_text for s in kept(wps.segment(render(text_browser, tmp_path,
                                                                    body)))).splitlines()
    for line in ("On Python 2", "It runs like this:", "On Python 3", "Now it runs like this:"):
        assert line in lines, line


def test_a_heading_that_links_to_itself_is_a_heading(text_browser, tmp_path):
    # Documentation and blog generators set each section's heading in a link to itself (a
    # permalink, a table of contents' target): it is the article's heading, not a link away.
    # A heading linking to another page, or to "#" (a script's button), stays a link.
    sections = "".join(f"<h2 id='s{n}'><a href='#s{n}'>{title}</a></h2><p>{ARTICLE}</p>"
                       f"<p>{ARTICLE}</p>" for n, title in enumerate(SECTIONS))
    body = (f"<article><h1>Rye</h1><p>{ARTICLE}</p>{sections}"
            f"<h2><a href='/elsewhere'>Ten more loaves to bake</a></h2><p>{ARTICLE}</p>"
            f"<h2><a href='#'>Show the comments</a></h2><p>{ARTICLE}</p></article>")
    capture = render(text_browser, tmp_path, body)
    assert {node.attrs.get("href") for node in capture.nodes if node.tag == "A"} == {
        "#s0", "#s1", "#s2", None}  # only a link into the page keeps its address
    text = "\n".join(s.main_text for s in kept(wps.segment(capture)))
    for title in SECTIONS:
        assert title in text.splitlines(), title
    assert "Ten more loaves" not in text and "Show the comments" not in text
