"""Posts and boilerplate by evidence that carries to sites never seen: records by structure
(unnamed classes, tables), schema.org microdata and JSON-LD, a board index's rows as a listing,
statistics boxes and site notices. The pages are written here, in markup unlike the dev set's
(no telling class names), and rendered in Chromium."""

from __future__ import annotations

import json

import pytest

import wps
from wps.model import PageCapture
from wps.posts import find_posts

POSTS = [
    "I replaced the chain last spring and the shifting has been smooth ever since, even in mud.",
    "Check the derailleur hanger first, because a bent hanger causes exactly this kind of skip.",
    "My old frame cracked near the bottom bracket after six years of commuting in all weather.",
    "The local shop trued both wheels for a fair price and showed me how to do it at home.",
    "Tubeless tyres were a hassle to seat at first, but I have not had a flat in two years.",
    "Has anyone tried the new wider rims on gravel, or are they only worth it for mountain rides?",
]
ARTICLE = ("Cycling to work has grown quickly in the city over the last decade, helped by new "
           "lanes along the river. The council counted twice as many riders on the main bridge "
           "this year as in the first survey, and plans more lanes in the eastern districts. "
           "Shops report that repairs, not new bikes, make most of their income now.")


def render(text_browser, tmp_path, body: str, head: str = "") -> PageCapture:
    page = tmp_path / "page.html"
    page.write_text(f"<!doctype html><html><head><meta charset='utf-8'><title>t</title>{head}"
                    f"</head><body>{body}</body></html>", encoding="utf-8")
    return text_browser.capture(str(page))


def alone_and_kept(result, texts: list[str]) -> None:
    """Each text is in exactly one segment, kept, that holds no other of ``texts``."""
    segments = result.segmentation.segments
    for text in texts:
        holders = [s for s in segments if text in s.text]
        assert len(holders) == 1, (text, [s.text for s in holders])
        (holder,) = holders
        assert holder.kept and text in holder.main_text, (text, holder.reasons)
        assert sum(other in holder.text for other in texts) == 1, holder.text


def unnamed_thread() -> str:
    """Posts in ``div``s with machine-made class names: author box, body, action bar."""
    def post(n: int) -> str:
        return (f"<div class='x{n}f'><div class='k2'><a href='#u{n}'>rider{n}</a>"
                f"<span>12 Mar 2024, 10:{n:02d}</span></div>"
                f"<div class='k3'><p>{POSTS[n]}</p><p>{POSTS[(n + 3) % 6]}</p></div>"
                f"<div class='k4'><a href='#q{n}'>Quote</a> <a href='#r{n}'>Report</a></div>"
                f"</div>")

    return (f"<div class='a1'><h1>Chain skips under load</h1>"
            f"<div class='a2'>{''.join(post(n) for n in range(3))}</div></div>")


def test_unnamed_posts_are_found_by_structure(text_browser, tmp_path):
    capture = render(text_browser, tmp_path, unnamed_thread())
    posts = find_posts(capture)
    assert len(posts.records) == 3
    date = next(n for n in capture.nodes if n.is_text and n.text.startswith("12 Mar 2024"))
    assert posts.key(date.id)[1] == "chrome"
    result = wps.segment(capture)
    alone_and_kept(result, [f"{POSTS[n]}" for n in range(3)])
    kept = " ".join(s.main_text for s in result.segmentation.segments if s.kept)
    assert "rider1" not in kept and "Report" not in kept


def table_thread() -> str:
    """A thread laid out as one table row per post (author cell, body cell), no classes."""
    rows = "".join(
        f"<tr><td width='150'><b>rider{n}</b><br>Joined: 2019<br>Posts: {n * 40}</td>"
        f"<td><div><small>Posted: Tue Mar {n + 1}, 2024</small></div>"
        f"<div>{POSTS[n]} {POSTS[n + 3]}</div></td></tr>"
        for n in range(3))
    return f"<table width='100%' border='1'>{rows}</table>"


def test_table_rows_of_posts_are_posts(text_browser, tmp_path):
    capture = render(text_browser, tmp_path, f"<h1>Wheels</h1>{table_thread()}")
    assert len(find_posts(capture).records) == 3
    result = wps.segment(capture)
    alone_and_kept(result, [POSTS[n] for n in range(3)])
    kept = " ".join(s.main_text for s in result.segmentation.segments if s.kept)
    assert "Joined" not in kept and "Posted:" not in kept


def test_json_ld_comments_are_posts(text_browser, tmp_path):
    """Comments that are plain paragraphs: only the page's JSON-LD says they are comments."""
    comments = [{"@type": "Comment", "text": POSTS[n], "author": {"name": f"rider{n}"}}
                for n in range(4)]
    data = {"@context": "https://schema.org", "@type": "DiscussionForumPosting",
            "headline": "Commuting", "text": ARTICLE, "comment": comments}
    head = f"<script type='application/ld+json'>{json.dumps(data)}</script>"
    body = (f"<h1>Commuting</h1><p>{ARTICLE}</p><h2>Replies</h2>"
            + "".join(f"<p><b>rider{n}:</b> {POSTS[n]}</p>" for n in range(4)))
    capture = render(text_browser, tmp_path, body, head)
    assert len(find_posts(capture).records) == 5  # the opening post and its four replies
    alone_and_kept(wps.segment(capture), [ARTICLE, *POSTS[:4]])


def test_microdata_comments_are_posts(text_browser, tmp_path):
    """Comments marked by microdata properties only: ``itemprop=comment`` items with a ``text``
    body and ``author``/``dateCreated`` chrome."""
    items = "".join(
        f"<div itemprop='comment' itemscope itemtype='https://schema.org/UserComments'>"
        f"<div><span itemprop='creator'>rider{n}</span> "
        f"<time itemprop='commentTime'>2024-03-0{n + 1}</time></div>"
        f"<div itemprop='commentText'>{POSTS[n]}</div></div>" for n in range(3))
    body = f"<div itemscope itemtype='https://schema.org/Article'><p>{ARTICLE}</p>{items}</div>"
    capture = render(text_browser, tmp_path, body)
    posts = find_posts(capture)
    assert len(posts.records) == 3
    creator = next(n for n in capture.nodes if n.is_text and n.text == "rider1")
    assert posts.key(creator.id)[1] == "chrome"
    alone_and_kept(wps.segment(capture), [POSTS[n] for n in range(3)])


def board_index(named: bool) -> str:
    """A forum index: each board a title link, a one-line description (a sentence), counts."""
    boards = [("General", "For everything that fits no other category."),
              ("Repairs", "Ask the community about fixing your bike yourself."),
              ("Rides", "Plan group rides and share the routes you liked best."),
              ("Market", "Buy and sell used parts, frames and complete bikes here.")]
    if named:
        rows = "".join(
            f"<li class='forumbit_post'><div class='forumrow'><h2><a href='#f{n}'>{title}</a>"
            f"</h2><p>{text}</p></div><ul><li>Threads: {n * 120 + 7}</li>"
            f"<li>Posts: {n * 1300 + 12}</li></ul></li>"
            for n, (title, text) in enumerate(boards))
        return f"<ol>{rows}</ol>"
    rows = "".join(
        f"<tr><td><a href='#f{n}'>{title}</a><br><span>{text}</span></td>"
        f"<td>{n * 120 + 7}</td><td>{n * 1300 + 12}</td></tr>"
        for n, (title, text) in enumerate(boards))
    return f"<table><tr><th>Forum</th><th>Topics</th><th>Posts</th></tr>{rows}</table>"


def test_board_index_rows_are_a_listing_not_posts(text_browser, tmp_path):
    for named in (True, False):
        capture = render(text_browser, tmp_path, f"<h1>Board index</h1>{board_index(named)}")
        assert not find_posts(capture).records, named
        result = wps.segment(capture)
        assert not any(s.kept for s in result.segmentation.segments), named


def test_statistics_box_and_site_notice_are_not_prose(text_browser, tmp_path):
    stats = ("<div><h3>Who is online</h3><p>In total there are 35 users online: 2 registered, "
             "0 hidden and 33 guests (based on users active over the past 5 minutes).</p>"
             "<p>Most users ever online was 1067 on Thu Mar 05, 2020 4:55 pm.</p>"
             "<p>Our users have posted a total of 51236 articles. We have 1987 registered "
             "users.</p></div>")
    notice = ("<div><p>Powered by BoardSoft® Forum Software, © 2002-2024 BoardSoft Limited and "
              "its licensors.</p><p>Search engine optimisation provided by Crawlwise SEO v2.0.32 "
              "(Pro) for this board, copyright 2016 Crawlwise Ltd.</p></div>")
    body = (f"<h1>Chain skips under load</h1><div><p>{ARTICLE}</p></div>{unnamed_thread()}"
            f"{stats}{notice}")
    result = wps.segment(render(text_browser, tmp_path, body))
    kept = " ".join(s.main_text for s in result.segmentation.segments if s.kept)
    assert ARTICLE[:60] in kept and POSTS[0] in kept
    for leak in ("users online", "1067", "51236", "Powered by", "BoardSoft", "Crawlwise",
                 "All rights reserved"):
        assert leak not in kept, leak


def test_declared_posts_read_what_they_can_of_bad_json_ld():
    """A page's JSON-LD is untrusted: broken, absurdly nested or oddly typed blocks are skipped
    or read as far as they make sense, never raised."""
    from wps.posts.schema import declared_posts

    def block(body: str) -> str:
        return f"<script type='application/ld+json'>{body}</script>"

    good = {"@graph": [{"@type": ["Thing", "https://schema.org/Answer"],
                        "text": "Rye needs <b>more</b> water &amp; a longer rest."},
                       {"@type": "Comment", "text": 42}, {"@type": None}, "stray"]}
    page = (block("{not json") + block("[" * 100_000 + "]" * 100_000) + block(json.dumps(good)))
    assert declared_posts(page) == ["Rye needs  more  water & a longer rest."]


def numbered_steps(label: str) -> str:
    """A how-to whose steps repeat one unnamed block: the step's label and number, its text,
    a photo with a credit under it (alike records with a short part beside the body, as posts)."""
    def step(n: int) -> str:
        return (f"<div class='q7'><div class='q8'><span class='h'>{label} {n + 1}</span>"
                f"<p>{POSTS[n]} {POSTS[(n + 2) % 6]}</p></div><figure><img width='300' "
                f"height='120' alt=''><figcaption>Photo by Ana Ruiz</figcaption></figure></div>")

    return (f"<article><h1>How to service a bike</h1><p>{ARTICLE}</p>"
            f"<div class='q6'>{''.join(step(n) for n in range(5))}</div></article>")


def illustrated_sections() -> str:
    """An article's tips, each an unnamed block of paragraphs and a photo with its credit."""
    def tip(n: int) -> str:
        return (f"<span><div class='m1'><div class='m2'><p>{POSTS[n]}</p><p>{POSTS[(n + 1) % 6]}"
                f"</p></div><figure><img width='300' height='120' alt=''></figure>"
                f"<figcaption>Ana Ruiz/Picture Desk/Agency {n}</figcaption></div></span>")

    return (f"<article><h1>Ten ways to ride cheaper</h1><p>{ARTICLE}</p>"
            f"{''.join(tip(n) for n in range(5))}</article>")


ARTICLE_PARTS = {
    "numbered steps": lambda: numbered_steps("Step"),
    "numbered steps, German": lambda: numbered_steps("Schritt"),
    "numbered steps, French": lambda: numbered_steps("Étape"),
    "sections with credited photos": illustrated_sections,
}


@pytest.mark.parametrize("kind", sorted(ARTICLE_PARTS))
def test_parts_of_an_article_are_not_posts(text_browser, tmp_path, kind):
    """Alike records that are the parts of one text: steps that open with one label and their
    ordinal counting up, sections whose only text beside the body is a picture's credit (a
    caption is no author box). No posts, and the article is judged as one unit."""
    capture = render(text_browser, tmp_path, ARTICLE_PARTS[kind]())
    assert find_posts(capture).records == []
    kept = [s for s in wps.segment(capture).segmentation.segments if s.kept]
    assert {s.unit for s in kept} == {"article"}
    text = " ".join(s.main_text for s in kept)
    assert all(POSTS[n] in text for n in range(5))


def test_numbered_posts_beside_their_author_stay_posts(text_browser, tmp_path):
    """A counter that opens each post ("Reply 1", "Reply 2") beside its author and date is a
    post's counter, not a step's number: the posts stay each on their own."""
    def post(n: int) -> str:
        return (f"<div class='x{n}f'><div class='k1'>Reply {n + 1}</div><div class='k2'>"
                f"<a href='#u{n}'>rider{n}</a><span>12 Mar 2024, 10:{n:02d}</span></div>"
                f"<div class='k3'><p>{POSTS[n]}</p><p>{POSTS[n + 3]}</p></div></div>")

    capture = render(text_browser, tmp_path, "<h1>Chain skips</h1><div class='a2'>"
                     + "".join(post(n) for n in range(3)) + "</div>")
    assert len(find_posts(capture).records) == 3
    alone_and_kept(wps.segment(capture), [POSTS[n] for n in range(3)])


def boxed_thread() -> str:
    """A thread the segmenter cuts into its posts (a framed box each: a writer's name, the date,
    the body), in markup no name or structure rule of the posts step needs to find."""
    names = ["anna", "bo", "cyril"]
    return "<h1>Chain skips</h1><div class='a2'>" + "".join(
        f"<div class='x{n}f' style='border:1px solid #999;margin:40px 0;padding:12px'>"
        f"<div class='k2'><a href='#u{n}'>{names[n]}</a> <span>{12 + n} Mar 2024, 10:0{n}</span>"
        f"</div><div class='k3'><p>{POSTS[n]}</p><p>{POSTS[n + 3]}</p></div></div>"
        for n in range(3)) + "</div>"


def test_posts_the_posts_step_misses_are_judged_apart(text_browser, tmp_path):
    """Where the posts step finds no post (here: switched off), the article's run of pieces is
    cut between records that each carry their own writer's name and date, so a thread is never
    judged as one text; an article's steps, credited photos and sections stay one unit."""
    config = tmp_path / "no-posts.toml"
    config.write_text("[posts]\nenabled = false\n", encoding="utf-8")
    kept = [s for s in wps.segment(render(text_browser, tmp_path, boxed_thread()),
                                   config=config).segmentation.segments if s.kept]
    units = [next(s.unit for s in kept if POSTS[n] in s.main_text) for n in range(3)]
    assert len(set(units)) == 3 and all(unit.startswith("article") for unit in units)
    for body in (numbered_steps("Step"), illustrated_sections()):
        kept = [s for s in wps.segment(render(text_browser, tmp_path, body),
                                       config=config).segmentation.segments if s.kept]
        assert len(kept) > 1 and {s.unit for s in kept} == {"article"}
