"""Extractors behind one interface: real trafilatura and the NewsFeed heuristic on small pages."""

from __future__ import annotations

import pytest

from wps.errors import UsageError
from wps.text.extract import ExtractOptions, extract_main_text
from wps.text.newsfeed import newsfeed_paragraphs

PARAGRAPH = ("The council approved the plan to rebuild the harbour wall after a long debate about "
             "its cost, and work will start in March if the weather allows it. ")

ARTICLE = f"""<html><head><title>Harbour</title></head><body>
<nav><ul><li><a href="/">Home</a></li><li><a href="/news">News</a></li></ul></nav>
<article><h1>Harbour wall to be rebuilt</h1>
<p>{PARAGRAPH * 2}</p><p>{PARAGRAPH}Residents welcomed the news.</p>
<ul><li>Start: March</li><li>Cost: 2 million</li></ul></article>
<div class="comments"><p>Great news for the town, finally some action on the harbour!</p></div>
<footer><p>Copyright 2026 Example News. All rights reserved.</p></footer>
</body></html>"""


def test_trafilatura_blocks_in_reading_order() -> None:
    main = extract_main_text(ARTICLE, "http://example.test/a")
    assert main.extractor == "trafilatura"
    tags = [(b.kind, b.tag) for b in main.blocks]
    assert ("main", "head") in tags and ("main", "p") in tags
    texts = [b.text for b in main.blocks]
    assert texts.index("Harbour wall to be rebuilt") < texts.index(
        (PARAGRAPH * 2).strip())
    assert not any("Home" == t for t in texts)
    assert all(t == " ".join(t.split()) for t in texts)  # whitespace normalised


def test_options_validate_and_come_from_config() -> None:
    with pytest.raises(UsageError, match="exclude each other"):
        ExtractOptions(favor_precision=True, favor_recall=True)
    with pytest.raises(UsageError, match="unknown extractor 'boiler'"):
        ExtractOptions(extractor="boiler")
    options = ExtractOptions.from_config({"extractor": "newsfeed", "include_comments": False})
    assert options.extractor == "newsfeed" and not options.include_comments
    assert extract_main_text("", None).blocks == []


def test_newsfeed_picks_the_content_paragraphs() -> None:
    paragraphs = newsfeed_paragraphs(ARTICLE)
    assert paragraphs == [" ".join((PARAGRAPH * 2).split()),
                          " ".join((PARAGRAPH + "Residents welcomed the news.").split())]
    main = extract_main_text(ARTICLE, None, ExtractOptions(extractor="newsfeed"))
    assert [b.text for b in main.blocks] == paragraphs


def test_newsfeed_article_body_fallback_and_nothing() -> None:
    marked = (f"<html><body><p>{PARAGRAPH}</p>"
              "<div itemprop='articleBody'>Body text.</div></body></html>")
    assert newsfeed_paragraphs(marked) == ["Body text."]
    # No <p> qualifies (too short): the <div> fallback takes a long, link-poor div.
    long_div = "<html><body><div>" + PARAGRAPH * 4 + "<a href='x'>one link</a></div></body></html>"
    assert newsfeed_paragraphs(long_div) == [" ".join((PARAGRAPH * 4 + "one link").split())]
    # Short paragraphs and a link-heavy div: no convincing content.
    links = "".join(f"<a href='/{i}'>link {i}</a> " for i in range(40))
    assert newsfeed_paragraphs(f"<html><body><p>Hi.</p><div>{links}</div></body></html>") == []
    # A paragraph with too many nested tags per character is not content-bearing.
    tagged = "<p>" + "".join(f"<b>w{i}</b>" for i in range(30)) + "</p>"
    assert newsfeed_paragraphs(f"<html><body>{tagged * 30}</body></html>") == []


def test_a_page_that_opens_with_an_xml_declaration_is_read_whole() -> None:
    # lxml refuses a str that opens with an XML declaration; XHTML pages and their saved copies
    # do, and each extractor must still read them (NewsFeed gave nothing before).
    xhtml = ('<?xml version="1.0" encoding="iso-8859-1"?>\n'
             + ARTICLE.replace("<html>", '<html xmlns="http://www.w3.org/1999/xhtml">', 1))
    assert newsfeed_paragraphs(xhtml) == newsfeed_paragraphs(ARTICLE) != []
    for extractor in ("trafilatura", "article"):
        options = ExtractOptions(extractor=extractor)
        texts = [b.text for b in extract_main_text(xhtml, None, options).blocks]
        assert texts == [b.text for b in extract_main_text(ARTICLE, None, options).blocks]
        assert " ".join((PARAGRAPH * 2).split()) in texts
