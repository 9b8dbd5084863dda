"""dom-cohesion keeps a text section (heading, paragraphs, lists) together as people outline it."""

from __future__ import annotations

from shared_data import SHARED, require_shared

from wps.segmenters import build_segmenter
from wps.segmenters.dom_cohesion.segmenter import text_sections

DEV_PAGE = SHARED / "webseg-dev" / "pages" / "wd00003"
WORDS = "Plain words of a paragraph that goes on for a while to look like prose. " * 2


def section(title: str) -> str:
    return (f"<div class='sect'><div class='titlepage'><h2>{title}</h2></div>"
            f"<p>{title} opening. {WORDS}</p><ul><li>one item</li><li>two items</li></ul>"
            f"<p>{WORDS}</p><pre>code line\nsecond line</pre><p>{title} closing. {WORDS}</p>"
            f"</div>")


PAGE = ("<!doctype html><html><body><nav><a href='#'>Home</a> <a href='#'>Docs</a></nav>"
        "<div class='book'><h1>Book title</h1>" + section("Alpha") + section("Beta")
        + section("Gamma") + "</div><form><input name='q'><button>Go</button></form>"
        "</body></html>")


def holder(segments, text: str) -> int:
    found = [i for i, segment in enumerate(segments) if text in segment.text]
    assert len(found) == 1, (text, found)
    return found[0]


def test_sections_are_running_text_with_one_heading(render):
    page = render(PAGE)
    sections = text_sections(page)
    tags = {page.nodes[i].tag for i in sections}
    assert "NAV" not in tags and "FORM" not in tags and "BODY" not in tags
    book = next(node.id for node in page.nodes if node.tag == "DIV" and
                "Book title" in page.text_of(node.id))
    assert book not in sections  # four headings: a run of sections, not one
    segments = build_segmenter("dom-cohesion").segment(page).segments
    for title in ("Alpha", "Beta", "Gamma"):
        at = holder(segments, f"{title} opening")
        assert holder(segments, title) == at == holder(segments, f"{title} closing")
    assert len({holder(segments, f"{t} opening") for t in ("Alpha", "Beta", "Gamma")}) == 3


def test_dev_page_section_is_one_segment():
    from wps.webis import capture_from_webis

    capture = capture_from_webis(require_shared(DEV_PAGE))
    segments = build_segmenter("dom-cohesion").segment(capture).segments
    text = segments[holder(segments, "The Debian Reference was initiated by me")].text
    assert "A.2. Copyright history" in text  # heading, first and last paragraph together
    assert "The author, Osamu Aoki, thanks" in text
    assert "The Linux system is" not in text  # the section before is another segment


def test_a_paragraph_written_straight_into_its_container_is_one_segment(render):
    """readability-dev lwn-1: a story's first paragraph is loose text and links straight in
    the article's ``div`` beside its headings and ``p`` children ("The LibreOffice project was
    <a>announced</a> with great fanfare ..."). A browser lays such a run out as one anonymous
    block; it was a segment per link and per text run."""
    import gzip

    from shared_data import SHARED, require_shared

    from wps.benchmark.article_data import without_scripts

    root = require_shared(SHARED / "readability-dev")
    with gzip.open(root / "pages" / "lwn-1.html.gz") as handle:
        html = handle.read().decode("utf-8", "replace")
    page = render(without_scripts(html))
    segments = build_segmenter("dom-cohesion").segment(page).segments
    first = holder(segments, "The LibreOffice project was")
    assert holder(segments, "with great fanfare in September 2010") == first
    assert holder(segments, "found a new home as an Apache project") == first
    assert "Release histories" not in segments[first].text  # the next heading stays apart


def test_links_laid_out_as_cards_stay_a_unit_each(render):
    """An inline ``a`` around a card's block ``div`` is laid out as a block, not inline: a row of
    such cards beside a heading is not joined into one anonymous block."""
    card = ("<a href='#{n}'><div style='width:300px;height:160px;margin:8px'>"
            "<h3>Story {n} about the harbour</h3><p>" + WORDS + "</p></div></a>")
    page = render("<!doctype html><html><body><div><h2>More stories</h2>"
                  + "".join(card.format(n=n) for n in range(4)) + "loose words after the cards"
                  + "</div>" + "<p>" + WORDS + "</p>" * 30 + "</body></html>")
    cards = [node for node in page.nodes if node.tag == "A"]
    assert len(cards) == 4 and all(card.style.get("display") == "inline" for card in cards)
    segments = build_segmenter("dom-cohesion").segment(page).segments
    holders = {holder(segments, f"Story {n} about the harbour") for n in range(4)}
    assert len(holders) == 4
    # found as the repeated records they are, not left over and picked up by the coverage pass
    assert all(segments[index].extra.get("block_type") == "record" for index in holders)
