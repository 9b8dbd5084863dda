"""What the page shows as chrome, rendered in Chromium and run through the whole pipeline: a
login box in the header or a pop-up leaves an article an article, a password form in the page's
body makes a login page (its shop description and legal notes are not writing), and inside a kept
segment the headings, the lines of a header or footer, "read more" rows, footnotes and
``Pros: a, b, c`` fields are cut."""

from __future__ import annotations

import pytest
from test_posts import SENTENCES, render, run

from wps.decide.lines import is_prose_line, prose_lines
from wps.page.names import NEGATIVE_NAMES

ARTICLE = " ".join(SENTENCES)
SHOP_BLURB = ("Our shop offers more than one hundred thousand products for your home, and every "
              "order over fifty euros ships for free within two working days. Our team in the "
              "warehouse packs each parcel by hand and answers your questions six days a week.")


def kept_text(result) -> str:
    return "\n".join(s.main_text for s in result.segmentation.segments if s.kept)


LOGIN_BOXES_OF_ARTICLES = {
    "in the header and a modal": (
        f"<header id='top'><div class='account-dropdown'><form><input type='text'>"
        f"<input type='password'><button>Sign in</button></form></div></header>"
        f"<main><h1>Baking rye at home</h1><p>{ARTICLE}</p><p>{ARTICLE}</p></main>"
        f"<div id='modalLogin' class='modal'><form><input type='email'>"
        f"<input type='password'></form></div>"),
    "under the story, to comment": (
        f"<main><h1>Baking rye at home</h1><p>{ARTICLE} {ARTICLE}</p><p>{ARTICLE}</p>"
        f"<section id='respond'><p>Log in to comment.</p><form><input type='text'>"
        f"<input type='password'><button>Log in</button></form></section></main>"),
    "above the story, to read on": (
        f"<div class='paywall'><p>Subscribers, log in to read on.</p><form>"
        f"<input type='email'><input type='password'><button>Log in</button></form></div>"
        f"<main><h1>Baking rye at home</h1>" + f"<p>{ARTICLE} {ARTICLE}</p>" * 3 + "</main>"),
}


@pytest.mark.parametrize("where", sorted(LOGIN_BOXES_OF_ARTICLES))
def test_a_login_box_leaves_an_article_an_article(text_browser, tmp_path, where):
    result = run(render(text_browser, tmp_path, LOGIN_BOXES_OF_ARTICLES[where]))
    assert result.verdict.is_article
    assert SENTENCES[0] in kept_text(result)


def test_a_password_form_in_the_body_makes_a_login_page(text_browser, tmp_path):
    body = ("<div id='page'><div id='box_middle'><h1>Anmelden</h1><form id='login_form'>"
            "<label>E-Mail <input type='email'></label><label>Passwort <input type='password'>"
            f"</label><button>Anmelden</button></form></div><div class='seo'><h2>Our shop</h2>"
            f"<p>{SHOP_BLURB}</p><p>{SHOP_BLURB}</p></div></div>")
    result = run(render(text_browser, tmp_path, body))
    assert result.verdict.reasons == ["login_form"]
    assert kept_text(result) == ""
    assert any(s.reasons == ["non_article_page"] for s in result.segmentation.segments)


def test_a_thread_under_a_login_form_keeps_its_posts(text_browser, tmp_path):
    posts = "".join(f"<div class='post' id='post{n}'><div class='postbody'><p>{text}</p></div>"
                    f"</div>" for n, text in enumerate(SENTENCES))
    body = (f"<div id='main'><form><input type='text'><input type='password'></form>{posts}"
            f"</div>")
    result = run(render(text_browser, tmp_path, body))
    assert "login_form" not in result.verdict.reasons
    assert all(text in kept_text(result) for text in SENTENCES)


def test_chrome_lines_are_cut_from_kept_prose(text_browser, tmp_path):
    body = (f"<article><h1>Baking rye at home</h1><p>{ARTICLE}</p>"
            f"<div class='readmore'>( <a href='/more'>Read 664 more words</a> ~ 9 comments )"
            f"</div><p>Pros: Quiet, Light Weight, Easy to start</p>"
            f"<p class='footnoteText'>* All prices include VAT plus shipping.</p>"
            f"<section class='comments'><header><p>Commenting on this article is closed.</p>"
            f"</header></section></article>")
    result = run(render(text_browser, tmp_path, body))
    text = kept_text(result)
    assert SENTENCES[0] in text
    for chrome in ("Baking rye at home", "Read 664", "Pros:", "All prices", "Commenting"):
        assert chrome not in text, chrome
    trimmed = sum((s.lines_trimmed or 0) for s in result.segmentation.segments if s.kept)
    assert trimmed >= 5


def test_a_headline_set_large_is_a_heading_whatever_its_tag(text_browser, tmp_path):
    # Styled headlines are often plain divs; the size they are set in says what they are. A
    # standfirst set large stays: it is a sentence with its terminal.
    standfirst = "The council agreed after a long debate that the reading rooms stay open."
    body = (f"<div class='story'><div style='font-size: 32px; font-weight: bold'>Library to "
            f"stay open until nine</div><div style='font-size: 24px'>{standfirst}</div>"
            f"<div>{ARTICLE}</div><div>{ARTICLE}</div></div>")
    text = kept_text(run(render(text_browser, tmp_path, body)))
    assert SENTENCES[0] in text and standfirst in text
    assert "Library to stay open" not in text


def test_a_story_set_larger_than_the_page_keeps_its_unended_lines(text_browser, tmp_path):
    # A story in large type on a page whose most text is small (a long column of links): its
    # lines are measured against its own body text, so a poem's unended lines stay, and only
    # its headline, set larger still, is a heading.
    verse = ["The river keeps the colour of the hills", "and carries it down past the mill",
             "where nobody has worked for forty years", "and the swallows nest in the wheel"]
    links = "".join(f"<li><a href='/t{n}'>Other story about the town number {n}</a></li>"
                    for n in range(120))
    poem = "".join(f"<p>{line}</p>" for line in verse)
    body = (f"<div style='font-size: 14px'><ul>{links}</ul></div>"
            f"<div class='story' style='font-size: 22px'><div style='font-size: 34px'>The mill "
            f"by the river</div><p>{ARTICLE}</p>{poem}<p>{ARTICLE}</p></div>")
    text = kept_text(run(render(text_browser, tmp_path, body)))
    assert SENTENCES[0] in text and all(line in text for line in verse)
    assert "The mill by the river" not in text


def test_posts_keep_short_lines_in_an_aside(text_browser, tmp_path):
    """Comment lists often sit in ``<aside>``: a post's short line there is still writing."""
    comments = "".join(f"<div class='comment'><div class='comment-body'><p>{text}</p></div></div>"
                       for text in ("A sense of humor, perhaps.", "Great list, made me laugh",
                                    SENTENCES[0], SENTENCES[1]))
    body = f"<main><p>{ARTICLE}</p></main><aside class='blog-aside'>{comments}</aside>"
    result = run(render(text_browser, tmp_path, body))
    assert "A sense of humor, perhaps." in kept_text(result)


def test_line_rules():
    assert not is_prose_line("Pros: Quiet, Light Weight, Exceeded Expectations, Durable")
    assert not is_prose_line("Martindale (Scheuertouren bei Bezugsstoff!): 40.000 Touren")
    assert is_prose_line("I bought it in spring, and it has run every weekend since then.")
    assert {"readmore", "footnote", "disclaimer"} <= NEGATIVE_NAMES
    lead_in = ("The unit also has a terminal for charging the batteries of cars and boats. Its "
               "power is commonly used for the following typical devices:")
    assert is_prose_line(lead_in) and not is_prose_line("Our typical devices are these:")
    post = "Still getting error 801812C1 after the update =(\nHelp!"
    assert prose_lines(post, post=True) == (post, 0)
    assert prose_lines(post) == ("Still getting error 801812C1 after the update =(", 1)
    for fields in ("Posted: Tue Mar 01, 2005 10:20 am Post subject: Re: Rye",
                   "Joined: 12 Mar 2005 Posts: 15 Location: Berlin"):
        assert not is_prose_line(fields, 1, code=False), fields  # fields in a row, in a post
    assert is_prose_line("Well, my oven runs hot so I bake at 180 and he bakes at 200", 1)
    assert is_prose_line("You can replace: if bar is None: bar = [] with: bar = bar or []", 1,
                         code=False)  # a reader's writing about code, not fields


FORUMS = [("The Office", "Magazine related stuff and where you can find contact details for us."),
          ("Buying Advice", "Discuss the eternal question of which fork or bike you should buy."),
          ("Beginners", "New to riding and not sure where to start? Come on in and ask away."),
          ("Workshop", "Sorting out your brackets, fettling your gears and even stuff on parts."),
          ("Training", "Get fit for riding with plans, diets and advice from those who race.")]


def test_an_index_of_titled_records_is_a_listing_not_prose(text_browser, tmp_path):
    rows = "".join(f"<li class='row'><dl><dt><a class='forumtitle' href='#'>{title}</a><br>"
                   f"{blurb}</dt><dd class='topics'>{n * 37} <dfn>Topics</dfn></dd>"
                   f"<dd class='posts'>{n * 411} <dfn>Posts</dfn></dd></dl></li>"
                   for n, (title, blurb) in enumerate(FORUMS, 1))
    body = (f"<div class='forabg'><ul class='topiclist'><li class='header'>Forum</li></ul>"
            f"<ul class='topiclist forums'>{rows}</ul></div><p>{ARTICLE}</p>")
    result = run(render(text_browser, tmp_path, body))
    listing = [s for s in result.segmentation.segments if FORUMS[0][1] in s.text]
    assert listing and not any(s.kept for s in listing)
    assert {s.kind for s in listing} == {"listing"}
    assert SENTENCES[0] in kept_text(result)


def test_an_article_among_bare_boxes_is_not_a_listing(text_browser, tmp_path):
    """Script-free saved pages are bare ``div``s: a photo credit, a section link and the title
    each open with a link or heading, but the body holds most words."""
    body = (f"<div><div><div><a href='#'>Photo: the bakery at dawn</a></div>"
            f"<div><a href='#'>FOOD</a></div><div><h1>Rye at home</h1><span>By A. Baker</span>"
            f"</div><div><p>{ARTICLE}</p><p>{ARTICLE}</p></div></div></div>")
    result = run(render(text_browser, tmp_path, body))
    assert SENTENCES[0] in kept_text(result)
    assert all(s.kind != "listing" for s in result.segmentation.segments)


def test_a_post_list_keeps_its_posts_and_loses_its_notices(text_browser, tmp_path):
    comments = "".join(f"<li class='comment'><div class='comment-body'><p>{text}</p></div></li>"
                       for text in SENTENCES[:3])
    body = (f"<main><p>{ARTICLE}</p><div id='reviews'><p>There are 0 reviews for this item so "
            f"far.</p><p>Have you used it? Then tell us here what you think of it.</p></div>"
            f"<div id='comments'><h3>3 comments on this</h3><p>The comment form is closed for "
            f"this story today.</p><ol class='comment-list'>{comments}</ol></div></main>")
    result = run(render(text_browser, tmp_path, body))
    text = kept_text(result)
    assert all(sentence in text for sentence in SENTENCES[:3])
    for notice in ("0 reviews", "tell us here", "3 comments", "form is closed"):
        assert notice not in text, notice


def test_post_list_names():
    from wps.posts.records import is_post_list

    assert is_post_list({"class": "comments-area"}) and is_post_list({"id": "reviews"})
    assert not is_post_list({"class": "blog_post-wrapper"})  # one post's wrapper, not a list
    assert not is_post_list({"class": "comment-body"})


PAYWALLED_LEDE = (
    "<div class='paywall'><p>Subscribers, log in to read on.</p><form><input type='email'>"
    "<input type='password'><button>Log in</button></form></div>"
    f"<main><h1>Baking rye at home</h1><p>{ARTICLE}</p></main>")
DECLARATIONS = {
    "og:type article": "<meta property='og:type' content='article'>",
    "JSON-LD NewsArticle": ("<script type='application/ld+json'>{\"@context\": "
                            "\"https://schema.org\", \"@graph\": [{\"@type\": \"WebPage\"}, "
                            "{\"@type\": \"NewsArticle\", \"headline\": \"Rye\"}]}</script>"),
    "og:type website": "<meta property='og:type' content='website'>",
}


@pytest.mark.parametrize("declared", sorted(DECLARATIONS))
def test_a_short_story_behind_a_login_form_is_kept_where_the_page_declares_an_article(
        text_browser, tmp_path, declared):
    """A story's lede (under 150 words) under "log in to read on": a login page by its prose
    alone, an article where the page says it is one."""
    page = tmp_path / "story.html"
    page.write_text(f"<!doctype html><html><head><meta charset='utf-8'><title>Rye</title>"
                    f"{DECLARATIONS[declared]}</head><body>{PAYWALLED_LEDE}</body></html>",
                    encoding="utf-8")
    result = run(text_browser.capture(str(page)))
    if declared == "og:type website":
        assert result.verdict.reasons == ["login_form"] and kept_text(result) == ""
    else:
        assert result.verdict.is_article
        assert SENTENCES[0] in kept_text(result)


def test_an_article_in_a_page_wrapping_form_with_many_controls_stays(text_browser, tmp_path):
    # ASP.NET sets the whole page in one form; with its search, language and newsletter boxes
    # the form has few words per control, but its paragraphs are the article, not a box's text.
    boxes = ("<input type='search'><button>Search</button><select><option>EN</option></select>"
             "<input type='email'><button>Subscribe</button>")
    body = (f"<form id='aspnetForm'><div id='top'>{boxes}</div><div id='main'><h1>Baking rye at "
            f"home</h1><p>{ARTICLE}</p><p>{SHOP_BLURB}</p><p>{ARTICLE}</p></div></form>")
    result = run(render(text_browser, tmp_path, body))
    assert result.verdict.is_article
    assert SENTENCES[0] in kept_text(result) and SHOP_BLURB[:60] in kept_text(result)


def test_a_one_paragraph_brief_in_a_page_wrapping_form_stays(text_browser, tmp_path):
    # The same form around a brief of one paragraph: too few paragraphs to tell writing from a
    # box by, but the form holds the page's main landmark, which no login or search box does.
    boxes = ("<input type='search'><button>Search</button><select><option>EN</option></select>"
             "<input type='email'><button>Subscribe</button>")
    brief = " ".join(SENTENCES[:4])
    for landmark in ("<main>{}</main>", "<div role='main'>{}</div>", "<article>{}</article>"):
        content = landmark.format(f"<h1>Rye at home</h1><p>{brief}</p>")
        body = f"<form id='aspnetForm'><div id='top'>{boxes}</div>{content}</form>"
        result = run(render(text_browser, tmp_path, body, f"{len(landmark)}.html"))
        assert SENTENCES[0] in kept_text(result), landmark
