"""Posts, quotes, post chrome and the page verdict, on pages shaped as the forum and comment
engines write them (WordPress comment lists with nested replies, vBulletin posts whose body is a
blockquote, StackExchange answers, a forum index, a login page, an ASP.NET page wrapped in one
form), rendered in Chromium and run through the whole pipeline."""

from __future__ import annotations

import pytest

import wps
from wps.model import PageCapture
from wps.posts import find_posts, post_name

SENTENCES = [
    "I tried the recipe twice this week and the second batch came out much better than the first.",
    "Letting the dough rest overnight in the fridge made all the difference for the texture.",
    "Does anyone know whether rye flour works as well here, or does it need more water?",
    "My grandmother always added a pinch of salt to the yeast, and I still do it that way.",
    "The oven in our new flat runs hot, so I bake everything about ten degrees cooler now.",
    "Thanks for all the tips, I will report back once I have tried the overnight method myself.",
]


def render(text_browser, tmp_path, body: str, name: str = "page.html") -> PageCapture:
    page = tmp_path / name
    page.write_text(f"<!doctype html><html><head><meta charset='utf-8'><title>t</title></head>"
                    f"<body>{body}</body></html>", encoding="utf-8")
    return text_browser.capture(str(page))


def run(capture: PageCapture):
    return wps.segment(capture)


def wordpress_comments() -> str:
    def comment(number: int, text: str, depth: int, replies: str = "") -> str:
        parity = "even" if number % 2 else "odd alt"
        return (f"<li class='comment {parity} thread-{parity} depth-{depth}' "
                f"id='li-comment-{number}'>"
                f"<article class='comment-body' id='div-comment-{number}'>"
                f"<footer class='comment-meta'><div class='comment-author vcard'>"
                f"<b class='fn'>Reader {number}</b> says:</div>"
                f"<div class='comment-metadata'><a href='#c{number}'>March {number}, 2024 at "
                f"10:{number:02d} am</a></div></footer>"
                f"<div class='comment-content'><p>{text}</p></div>"
                f"<div class='reply'><a class='comment-reply-link' href='#'>Reply</a></div>"
                f"</article>{replies}</li>")

    nested = f"<ol class='children'>{comment(3, SENTENCES[2], 2)}</ol>"
    items = (comment(1, SENTENCES[0], 1) + comment(2, SENTENCES[1], 1, nested)
             + comment(4, SENTENCES[3], 1) + comment(5, "Thanks, will try it!", 1))
    return (f"<article class='post'><h1>Rye bread at home</h1><p>{SENTENCES[4]} "
            f"{SENTENCES[5]}</p></article><div id='comments' class='comments-area'>"
            f"<h2 class='comments-title'>5 thoughts on this</h2>"
            f"<ol class='comment-list'>{items}</ol></div>")


def test_records_and_parts_follow_the_engine_markup(text_browser, tmp_path):
    capture = render(text_browser, tmp_path, wordpress_comments())
    posts = find_posts(capture)
    names = {capture.nodes[r].attrs.get("id") for r in posts.records}
    assert names == {f"li-comment-{n}" for n in (1, 2, 3, 4, 5)}  # the nested reply too
    dates = next(n for n in capture.nodes if n.is_text and n.text.startswith("March 1,"))
    body = next(n for n in capture.nodes if n.is_text and n.text == SENTENCES[0])
    assert posts.key(dates.id)[1] == "chrome" and posts.key(body.id)[1] == "body"
    assert posts.key(body.id)[0] == posts.key(dates.id)[0]  # both in comment 1


def test_each_comment_is_a_kept_segment_of_its_own(text_browser, tmp_path):
    result = run(render(text_browser, tmp_path, wordpress_comments()))
    segments = result.segmentation.segments
    for sentence in SENTENCES[:4]:
        holders = [s for s in segments if sentence in s.text]
        assert len(holders) == 1, sentence
        (holder,) = holders
        assert holder.kept and holder.kind == "post", (sentence, holder.reasons)
        assert sum(other in holder.text for other in SENTENCES[:4]) == 1  # alone
        assert "Reader" not in holder.main_text and "10:0" not in holder.main_text
    chrome = [s for s in segments if s.post_part == "chrome"]
    assert chrome and all("post_chrome" in s.reasons and not s.kept for s in chrome)
    short = next(s for s in segments if "Thanks, will try it!" in s.text)
    assert short.post_part == "body"  # a short reply is a post, judged as one
    assert result.verdict.is_article
    assert any(SENTENCES[4] in s.main_text for s in segments if s.kept)  # the article itself


def vbulletin_thread(quote: str) -> str:
    def post(number: int, text: str, quoted: str = "") -> str:
        inner = (f"<div class='bbcode_container'><div class='bbcode_quote'>"
                 f"<div class='bbcode_postedby'>Quote from Reader {number - 1}</div>"
                 f"<div class='message'>{quoted}</div></div></div>") if quoted else ""
        return (f"<li class='postbitlegacy postbitim postcontainer' id='post_{1000 + number}'>"
                f"<div class='posthead'><span class='date'>Today, 10:{number:02d}</span></div>"
                f"<div class='userinfo'><a class='username'>Reader {number}</a>"
                f"<dl class='userinfo_extra'><dt>Posts</dt><dd>{number * 17}</dd></dl></div>"
                f"<div class='postdetails'><div class='postbody'><div class='postrow'>"
                f"<div class='content'><div id='post_message_{1000 + number}'>"
                f"<blockquote class='postcontent restore'>{inner}{text}</blockquote>"
                f"</div></div></div></div></div></li>")

    return (f"<ol id='posts' class='posts'>{post(1, SENTENCES[0])}{post(2, SENTENCES[1])}"
            f"{post(3, SENTENCES[2], quote)}</ol>")


def test_a_quote_is_scored_where_it_was_written(text_browser, tmp_path):
    capture = render(text_browser, tmp_path, vbulletin_thread(SENTENCES[1]))
    result = run(capture)
    kept = [s for s in result.segmentation.segments if s.kept]
    holders = [s for s in kept if SENTENCES[1] in s.main_text]
    assert len(holders) == 1 and SENTENCES[2] not in holders[0].main_text
    quoting = next(s for s in kept if SENTENCES[2] in s.main_text)
    assert SENTENCES[1] not in quoting.main_text  # the blockquote body is the post, its quote not
    quote = next(s for s in result.segmentation.segments if s.kind == "quote")
    assert "quoted" in quote.reasons and quote.post_record == \
        quoting.post_record


def test_a_short_reply_in_vbulletins_blockquote_is_the_post_not_a_quote(text_browser, tmp_path):
    # vBulletin writes each message in a blockquote; under a long author box a short reply held
    # less than half its record's words and was dropped as a quote although nothing else of
    # the post was left. The quote inside another post stays a quote.
    reply = "Same here, the overnight rest made it work."
    author_box = ("<dl class='userinfo_extra'><dt>Posts</dt><dd>1,234</dd><dt>Joined</dt>"
                  "<dd>March 2011</dd></dl>")
    body = vbulletin_thread(SENTENCES[1]).replace(
        "</ol>", f"<li class='postbitlegacy postbitim postcontainer' id='post_1004'>"
        f"<div class='posthead'><span class='date'>Today, 10:04</span></div>"
        f"<div class='userinfo'><a class='username'>Reader 4</a>{author_box}</div>"
        f"<div class='postdetails'><div class='postbody'><div class='postrow'>"
        f"<div class='content'><div id='post_message_1004'>"
        f"<blockquote class='postcontent restore'>{reply}</blockquote>"
        f"</div></div></div></div></div></li></ol>")
    result = run(render(text_browser, tmp_path, body))
    kept = [s for s in result.segmentation.segments if s.kept]
    assert [s.main_text for s in kept if reply in s.main_text] == [reply]
    assert [s.kind for s in kept if reply in s.main_text] == ["post"]
    quote = next(s for s in result.segmentation.segments if s.kind == "quote")
    assert SENTENCES[1] in quote.text and not quote.kept


def phpbb2_thread() -> str:
    """phpBB 2's markup: a row per post (author cell, message cell holding a table of its own:
    the date and subject line, then the message), spacer rows between them, no class that names
    a post."""
    rows = ""
    for number, text in enumerate(SENTENCES[:5]):
        row = "row1" if number % 2 == 0 else "row2"
        rows += (f"<tr><td width='150' valign='top' class='{row}'><span class='name'>"
                 f"<b>Reader {number}</b></span><br><span class='postdetails'>Joined: 12 Mar "
                 f"2005<br>Posts: {12 * number + 3}</span></td><td class='{row}' width='100%'>"
                 f"<table width='100%'><tr><td width='100%'><span class='postdetails'>Posted: "
                 f"Tue Mar 1{number}, 2005 10:2{number} am<span class='gen'>&nbsp;</span>"
                 f"&nbsp; &nbsp;Post subject: Re: Rye</span></td><td nowrap='nowrap'>"
                 f"<a href='#'>Quote</a></td></tr><tr><td colspan='2'><hr></td></tr><tr>"
                 f"<td colspan='2'><span class='postbody'>{text}</span></td></tr></table></td>"
                 f"</tr><tr><td class='spaceRow' colspan='2' height='1'></td></tr>")
    return (f"<table class='forumline' width='100%'><tr><th>Author</th><th>Message</th></tr>"
            f"{rows}</table>")


def test_posts_laid_out_in_tables_are_found_by_their_structure(text_browser, tmp_path):
    # The message sits in a table of its own post: sentences there are a post laid out by a
    # table, not a tab of fields, and each author cell is the post's chrome.
    result = run(render(text_browser, tmp_path, phpbb2_thread()))
    kept = [s for s in result.segmentation.segments if s.kept]
    for text in SENTENCES[:5]:
        holders = [s for s in kept if text in s.main_text]
        assert len(holders) == 1 and holders[0].kind == "post", text
        assert "Joined" not in holders[0].main_text
        assert "Posted" not in holders[0].main_text  # two fields on one line: the post's header


def test_answers_are_posts_the_question_stays_apart(text_browser, tmp_path):
    answers = "".join(
        f"<div id='answer-{n}' class='answer js-answer' itemtype='https://schema.org/Answer'>"
        f"<div class='votecell'><div class='js-vote-count'>{n}</div></div>"
        f"<div class='answercell'><div class='s-prose js-post-body'><p>{SENTENCES[n]}</p></div>"
        f"<div class='user-info'><a>User {n}</a> answered Mar {n}</div></div></div>"
        for n in (1, 2, 3))
    body = (f"<div id='question' class='question'><h1>How do I bake rye bread?</h1>"
            f"<div class='s-prose js-post-body'><p>{SENTENCES[0]}</p></div></div>"
            f"<div id='answers'>{answers}</div>")
    result = run(render(text_browser, tmp_path, body))
    for sentence in SENTENCES[:4]:
        (holder,) = [s for s in result.segmentation.segments if sentence in s.text]
        assert holder.kept and sum(other in holder.text for other in SENTENCES[:4]) == 1
        assert "User" not in holder.main_text


def test_forum_index_rows_named_as_posts_are_not_prose(text_browser, tmp_path):
    rows = "".join(
        f"<li class='forumbit_post L{n}'><h2><a href='#'>Forum {n}</a></h2>"
        f"<p class='forumdescription'>Bikes and frames only, sponsored by shop {n}</p>"
        f"<a class='rss' href='#'>View this forum's RSS feed</a>"
        f"<div class='lastpost'><a href='#'>Thread title number {n}...</a> by user{n}</div></li>"
        for n in range(1, 9))
    result = run(render(text_browser, tmp_path, f"<ol class='forums'>{rows}</ol>"))
    assert not any(s.kept for s in result.segmentation.segments)
    assert not result.verdict.is_article and "little_prose" in result.verdict.reasons


def test_login_page_instructions_do_not_reach_the_detector(text_browser, tmp_path):
    body = ("<h1>Sign in</h1><form><p>If you are a registered user, please enter your email "
            "address and your password below to continue.</p>"
            "<label>E-mail <input type='email'></label><label>Password <input type='password'>"
            "</label><button>Sign in</button></form>"
            "<p>New here? Creating an account takes a minute and lets you track every order "
            "you place with us.</p>")
    result = run(render(text_browser, tmp_path, body))
    assert not result.verdict.is_article and "login_form" in result.verdict.reasons
    assert not any(s.kept for s in result.segmentation.segments)
    password = [n for n in result.capture.nodes if n.attrs.get("type") == "password"]
    assert len(password) == 1


def test_a_page_wrapped_in_one_form_is_still_an_article(text_browser, tmp_path):
    article = " ".join(SENTENCES)
    body = (f"<form id='aspnetForm' action='/page.aspx'><input type='search' placeholder='Search'>"
            f"<div id='main'><h1>Baking rye at home</h1><p>{article}</p><p>{article}</p></div>"
            f"</form>")
    result = run(render(text_browser, tmp_path, body))
    assert result.verdict.is_article
    kept = [s for s in result.segmentation.segments if s.kept]
    assert kept and all(s.kind == "prose" for s in kept)


def test_post_names():
    assert post_name({"class": "postbitlegacy postbitim postcontainer", "id": "post_1"})
    assert post_name({"itemtype": "https://schema.org/Comment"}) == "Comment"
    for part in ("comment-content", "comments-area", "post-date", "comment-reply-link",
                 "post__sidebar", "comment__item"):  # BEM elements of a post are its parts
        assert post_name({"class": part}) is None, part
    assert post_name({"class": "thread__post"}) == "thread__post"


@pytest.mark.parametrize("verdict_share", [0.0, 1.0])
def test_verdict_threshold_moves_the_page(text_browser, tmp_path, verdict_share):
    """The page verdict's threshold is a config value, not a constant."""
    from wps.pipeline import PipelineOptions
    from wps.config import default_config

    config = default_config()
    config["decide"]["min_page_prose_share"] = verdict_share
    capture = render(text_browser, tmp_path, wordpress_comments())
    result = wps.segment(capture, PipelineOptions(config=config))
    assert result.verdict.is_article == (verdict_share == 0.0)


def test_comments_in_an_inner_scrolling_pane_are_reported_as_unreached(text_browser, tmp_path):
    comments = "".join(f"<div class='comment'><p>{SENTENCES[n % 6]} ({n})</p></div>"
                       for n in range(40))
    body = (f"<article><p>{' '.join(SENTENCES)}</p></article>"
            f"<aside style='height: 300px; overflow-y: auto'>{comments}</aside>")
    result = run(render(text_browser, tmp_path, body))
    (pane,) = result.capture.unreached
    assert pane["tag"] == "ASIDE" and pane["hidden_px"] > 500
    assert result.main_text_report()["unreached"] == result.capture.unreached
