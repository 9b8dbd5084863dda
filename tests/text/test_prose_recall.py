"""Recall first: an article body stays whatever its ancestors are named; class and id names cut
only an element that holds a small share of its segment's text (a share bar, a "read more"
line), weighed against positive names. Pages built here and rendered in Chromium, and the real
readability-dev page whose body sits in a ``share``-named container (read in place)."""

from __future__ import annotations

import gzip

import pytest
from shared_data import SHARED, require_shared
from test_posts import SENTENCES, render, run

ARTICLE = [" ".join(SENTENCES[i:i + 2]) for i in range(0, 6, 2)]
SHARE_BAR = ("<div class='share-bar'><a href='#f'>Share on Facebook</a> "
             "<a href='#t'>Share on Twitter</a></div>")
READ_MORE = "<div class='readmore'><a href='#more'>Read 12 more stories like this</a></div>"


def kept_text(result) -> str:
    return "\n".join(s.main_text for s in result.segmentation.segments if s.kept)


def body(paragraphs: list[str]) -> str:
    return "".join(f"<p>{text}</p>" for text in paragraphs)


WRAPPERS = {
    "id holding share": "<div id='gigya-share-btns-2_gig_containerParent'>{}</div>",
    "main named social": "<main class='social-layout'>{}</main>",
    "story in read-more": "<div id='read-more'>{}</div>",
    "class shareArea": "<div class='shareArea'><div class='wrap'>{}</div></div>",
}


@pytest.mark.parametrize("wrapper", sorted(WRAPPERS))
def test_an_article_body_stays_inside_a_chrome_named_ancestor(text_browser, tmp_path, wrapper):
    page = WRAPPERS[wrapper].format(f"<h1>Baking rye at home</h1>{body(ARTICLE)}{SHARE_BAR}")
    text = kept_text(run(render(text_browser, tmp_path, page)))
    for paragraph in ARTICLE:
        assert paragraph in text


def test_a_small_chrome_named_element_beside_the_writing_is_still_cut(text_browser, tmp_path):
    page = f"<article>{body(ARTICLE)}{SHARE_BAR}{READ_MORE}</article>"
    text = kept_text(run(render(text_browser, tmp_path, page)))
    assert ARTICLE[0] in text
    assert "Share on Facebook" not in text and "Read 12 more" not in text


def _readability_page(name: str) -> tuple[str, str]:
    root = require_shared(SHARED / "readability-dev")
    with gzip.open(root / "pages" / f"{name}.html.gz") as handle:
        html = handle.read().decode("utf-8", "replace")
    return html, (root / "expected" / f"{name}.txt").read_text(encoding="utf-8")


def test_a_real_body_in_a_share_named_container_is_kept(text_browser, tmp_path):
    """readability-dev ``bug-1255978``: the story sits in a container whose id holds ``share``;
    every sentence of the reference that is a long line must reach the detector."""
    from wps.benchmark.article_data import without_scripts

    html, expected = _readability_page("bug-1255978")
    page = tmp_path / "page.html"
    page.write_text(without_scripts(html), encoding="utf-8")
    text = " ".join(kept_text(run(text_browser.capture(str(page)))).split())
    long_lines = [" ".join(line.split()) for line in expected.splitlines()
                  if len(line.split()) >= 25]
    assert long_lines
    found = sum(line in text for line in long_lines)
    assert found >= 0.9 * len(long_lines), (found, len(long_lines))


def test_an_interview_question_set_as_a_heading_stays_and_a_title_goes(text_browser, tmp_path):
    """A heading that is a sentence ending in its terminal stays; a title goes, also a long one
    that reads like a sentence without its full stop (a headline); the subheadings between the
    article's paragraphs stay (:mod:`wps.decide.between`), and a heading that closes it goes."""
    question = "What made you decide to leave the city after twenty years there?"
    headline = "How the old mill came back to life after the great flood of the valley"
    page = (f"<article><h1>{headline}</h1><p>{ARTICLE[0]}</p><h3>{question}</h3>"
            f"<p>{ARTICLE[1]}</p><h3>Early mornings</h3><p>{ARTICLE[2]}</p>"
            f"<h3>Twenty years of rye</h3><p>{ARTICLE[0]}</p><h3>Read on</h3></article>")
    text = kept_text(run(render(text_browser, tmp_path, page)))
    assert question in text and ARTICLE[1] in text
    assert "Early mornings" in text and "Twenty years of rye" in text
    assert headline not in text and "Read on" not in text


def test_a_lede_in_the_articles_header_joins_the_body(text_browser, tmp_path):
    """The first sentences of a story, set in the article's ``<header>`` beside its title and
    byline, are left out by the main-text extractor; they border the body, so they stay."""
    lede = ("Neighbours have baked rye together in the old mill every Saturday for forty years, "
            "and the town council now wants to know why the tradition works so well.")
    page = (f"<article><header><h1>Rye on Saturdays</h1><p>By A. Baker</p><p>{lede}</p>"
            f"</header><div class='article-body'>{body(ARTICLE)}</div></article>")
    text = kept_text(run(render(text_browser, tmp_path, page)))
    assert ARTICLE[0] in text and lede in text


def test_an_article_joined_with_a_list_of_headlines_keeps_its_sentences(make_capture):
    """The segmenter joined a list of headline links with the story: most of the segment is
    links, but its main text is the story's sentences, which stay; the link lines go."""
    from wps.decide import DecisionRules, decide_segments
    from wps.model import Segment
    from wps.page.reading import reading_text

    headlines = [f"Headline number {n} about the new laptop keyboard" for n in range(14)]
    story = " ".join(ARTICLE)
    capture = make_capture(("BODY", [("DIV", [("UL", [("LI", [("A", [h])]) for h in headlines]),
                                              ("P", [story])]),
                                     ("DIV", [("P", [ARTICLE[0]])])]))
    joined, rest = (capture.nodes[capture.nodes[0].id + 1], capture.nodes[-2])
    segments = []
    for root, main in ((joined.id, story), (rest.id, ARTICLE[0])):
        node_ids = [n.id for n in capture.nodes if _under(capture, n.id, root)]
        segment = Segment.from_box(str(root), (0, 0, 1000, 400), node_ids)
        segment.text, segment.main_text = reading_text(capture, node_ids), main
        segments.append(segment)
    decide_segments(capture, segments, DecisionRules.from_config())
    assert segments[0].kept and segments[0].main_text == story


def _under(capture, node_id: int, root: int) -> bool:
    while node_id is not None:
        if node_id == root:
            return True
        node_id = capture.nodes[node_id].parent
    return False


def _paragraph_segments(capture, mains: list[str | None]) -> list:
    """One segment per paragraph of ``capture``'s body, with the main text the extractor chose
    (``None``: none, and the filters' reasons for an empty main text)."""
    from wps.model import Segment
    from wps.page.reading import reading_text

    segments = []
    paragraphs = [n for n in capture.nodes if n.tag == "P"]
    for paragraph, main in zip(paragraphs, mains, strict=True):
        node_ids = [n.id for n in capture.nodes if _under(capture, n.id, paragraph.id)]
        segment = Segment.from_box(str(paragraph.id), (0, 0, 1000, 40), node_ids)
        segment.text = reading_text(capture, node_ids)
        segment.main_text = segment.text if main is not None else ""
        if main is None:
            segment.kept, segment.reasons = False, ["no_main_text", "too_few_tokens"]
        segments.append(segment)
    return segments


def test_prose_the_extractor_skipped_inside_the_article_stays_and_before_it_goes(make_capture):
    """The extractor took nothing of a paragraph between two it chose (a lede it skipped, a
    caption): its sentences stay. The same kind of paragraph before the article's first chosen
    paragraph (a notice at the page's top) is not rescued."""
    from wps.decide import DecisionRules, decide_segments

    skipped = ("The mother of a baker who took over the old mill has described how the "
               "whole street gathers there each Saturday before sunrise to knead the dough.")
    notice = ("We use cookies so that the pages of this site load quickly, and by reading on "
              "you agree that we store them on your computer for the next twelve months.")
    capture = make_capture(("BODY", [("DIV", [("P", [notice])]),
                                     ("DIV", [("P", [ARTICLE[0]]), ("P", [skipped]),
                                              ("P", [ARTICLE[1]]), ("P", [ARTICLE[2]])])]))
    segments = _paragraph_segments(capture, [None, ARTICLE[0], None, ARTICLE[1], ARTICLE[2]])
    decide_segments(capture, segments, DecisionRules.from_config())
    kept = {segment.text for segment in segments if segment.kept}
    assert skipped in kept and ARTICLE[2] in kept
    assert notice not in kept


def test_the_rest_of_an_article_the_extractor_stopped_short_of_stays(make_capture):
    """The extractor took the story's first paragraphs and stopped (at an ad, a pull quote):
    the paragraphs that run on after them, clear prose by their own text, across a subheading,
    stay; after a list of links, the next story's paragraph does not."""
    from wps.decide import DecisionRules, decide_segments

    more = [("The miller says the stones were dressed by hand again last winter, and the flour "
             "has never been finer since the river was cleaned upstream of the wheel."),
            ("By seven the first loaves come out of the oven, and the queue outside the door "
             "reaches the bridge on most Saturdays before the market even opens.")]
    teaser = ("Another town has started a bread club of its own, and its members say the "
              "idea came from a story they read about the old mill last spring.")
    links = [("LI", [("A", [f"Read the story number {n} about the bakers of the valley"])])
             for n in range(8)]
    capture = make_capture(("BODY", [("DIV", [("P", [ARTICLE[0]]), ("P", [ARTICLE[1]]),
                                              ("P", [more[0]]), ("P", ["Early mornings"]),
                                              ("P", [more[1]])]),
                                     ("UL", links), ("DIV", [("P", [teaser])])]))
    segments = _paragraph_segments(capture, [ARTICLE[0], ARTICLE[1], None, None, None, None])
    from wps.model import Segment
    from wps.page.reading import reading_text

    ul = next(n for n in capture.nodes if n.tag == "UL")
    node_ids = [n.id for n in capture.nodes if _under(capture, n.id, ul.id)]
    menu = Segment.from_box("menu", (0, 0, 1000, 200), node_ids)
    menu.text, menu.kept, menu.reasons = reading_text(capture, node_ids), False, ["no_main_text"]
    segments.insert(5, menu)
    decide_segments(capture, segments, DecisionRules.from_config())
    kept = {segment.text for segment in segments if segment.kept}
    assert more[0] in kept and more[1] in kept
    assert teaser not in kept


def test_the_next_stories_after_an_article_are_not_the_article_running_on(make_capture):
    """Past the extractor's last paragraph, a block that opens with a headline linked elsewhere
    and goes on in prose is another story (a list of more stories): the article's run ends
    there. A paragraph of the article that opens with a link runs on as before."""
    from wps.decide import DecisionRules, decide_segments
    from wps.model import Segment
    from wps.page.reading import reading_text

    more = ("The miller says the stones were dressed by hand again last winter, and the flour "
            "has never been finer since the river was cleaned upstream of the wheel.")
    leads = [("A council in the north has voted to reopen its market hall after ten years, "
              "and the first stalls will sell bread, cheese and apples from nearby farms."),
             ("Two brothers who restored a windmill on the coast now grind spelt for a dozen "
              "bakeries, and they say the orders keep coming in faster than the wind.")]
    stories = [("DIV", [("H3", [("A", [f"Story {n} of the valley's other bakers"])]),
                        ("P", [lead])]) for n, lead in enumerate(leads)]
    capture = make_capture(("BODY", [("DIV", [("P", [ARTICLE[0]]), ("P", [ARTICLE[1]]),
                                              ("P", [("A", ["The miller"]), more[10:]])]),
                                     ("DIV", [("P", ["More stories"])]), *stories]))
    segments = _paragraph_segments(capture, [ARTICLE[0], ARTICLE[1], None, None, None, None])
    segments = segments[:4]  # the stories' paragraphs are in their blocks' segments below
    for story in (n for n in capture.nodes if n.tag == "DIV" and n.parent == 0
                  and any(c.tag == "H3" for c in capture.nodes if c.parent == n.id)):
        node_ids = [n.id for n in capture.nodes if _under(capture, n.id, story.id)]
        segment = Segment.from_box(str(story.id), (0, 0, 1000, 80), node_ids)
        segment.text = reading_text(capture, node_ids)
        segment.kept, segment.reasons = False, ["no_main_text", "too_few_tokens"]
        segments.append(segment)
    decide_segments(capture, segments, DecisionRules.from_config())
    kept = " ".join(segment.text for segment in segments if segment.kept)
    assert more[10:] in kept
    assert not any(lead in kept for lead in leads)


def test_the_article_does_not_run_on_past_the_article_element_it_stands_in(make_capture):
    """Where every paragraph the extractor chose stands in one ``article`` element, the page
    says where the story ends: prose past it (a comment box's notice) is not the story running
    on. Without that element the run goes on past the last chosen paragraph as before."""
    from wps.decide import DecisionRules, decide_segments

    rest = ("The miller says the stones were dressed by hand again last winter, and the flour "
            "has never been finer since the river was cleaned upstream of the wheel.")
    notice = ("Comments are the sole responsibility of their authors, and a user who breaks "
              "the rules of this site will be removed and barred from writing here again.")
    for wrapper in ("ARTICLE", "DIV"):
        capture = make_capture(("BODY", [
            (wrapper, [("P", [ARTICLE[0]]), ("P", [ARTICLE[1]]), ("P", [rest])]),
            ("SECTION", [("P", [notice])]),
        ]))
        segments = _paragraph_segments(capture, [ARTICLE[0], ARTICLE[1], None, None])
        decide_segments(capture, segments, DecisionRules.from_config())
        kept = " ".join(segment.text for segment in segments if segment.kept)
        assert rest in kept, wrapper
        assert (notice in kept) == (wrapper == "DIV"), wrapper


def test_a_standfirst_in_the_articles_header_is_the_story_and_a_notice_before_it_is_not(
    make_capture,
):
    """Prose the extractor took nothing of before its first paragraph is not rescued (a
    notice at the page's top), except in the ``header`` of the ``article`` element that holds
    the whole story: a standfirst under the headline."""
    from wps.decide import DecisionRules, decide_segments

    standfirst = ("Since December the company has sent hundreds of warning letters over photo "
                  "credits that it says were given the wrong way on small blogs.")
    notice = ("We use cookies to show you the news you care about and to measure how often "
              "the articles on this site are read by our visitors.")
    capture = make_capture(("BODY", [
        ("DIV", [("P", [notice])]),
        ("ARTICLE", [("HEADER", [("P", [standfirst])]),
                     ("P", [ARTICLE[0]]), ("P", [ARTICLE[1]])]),
    ]))
    segments = _paragraph_segments(capture, [None, None, ARTICLE[0], ARTICLE[1]])
    decide_segments(capture, segments, DecisionRules.from_config())
    kept = " ".join(segment.text for segment in segments if segment.kept)
    assert standfirst in kept and ARTICLE[1] in kept
    assert notice not in kept
