"""Text decides, not tags: a plain-text document in ``<pre>`` is prose and a program in
``<pre>`` is code; a list article's intro survives beside its big table of names, while the
table's rows (names and numbers) stay out. Pages built here, rendered in Chromium."""

from __future__ import annotations

from test_posts import render, run

from wps.text.code import looks_like_code

DRAFT = """Internet Engineering Task Force                                 A. Writer
Internet-Draft                                              Example Org
Intended status: Informational                               March 2024

                   Retrying Requests Without Surprises

Abstract

   This document describes how a client should retry a request that
   timed out, so that a server which already acted on the first copy
   does not act on it a second time.  It collects practice that several
   implementations share and explains why each step is needed.

1.  Introduction

   Networks lose packets, and a client that hears nothing back cannot
   tell whether its request was lost or only the answer.  Retrying
   blindly doubles orders and payments; never retrying leaves users
   waiting for work that will not happen.  The approach described here
   gives every request a key that the server remembers for a while.
"""
PROGRAM = """def retry(request, attempts=3):
    for attempt in range(attempts):
        try:
            return send(request, key=request.idempotency_key)
        except TimeoutError as err:
            last_error = err
    raise last_error
"""


def kept_text(result) -> str:
    return " ".join(" ".join(s.main_text for s in result.segmentation.segments
                             if s.kept).split())


QUERY_OUTPUT = """SELECT n, (n - series_mean) / series_stddev AS zscore FROM series, stats;
 n │         zscore
───┼────────────────────────
 2 │ -0.75703329861022517346
 3 │ -0.43259045634870009448
 5 │  0.21629522817435006346
12 │  2.4873951240050256
 4 │ -0.10814761408717501551
"""


def test_code_is_judged_by_its_text():
    assert not looks_like_code(DRAFT)
    assert looks_like_code(PROGRAM)


def test_a_query_with_the_table_it_printed_is_code_and_a_drawn_rule_under_prose_is_not():
    """A terminal's table (box-drawing bars and rules around numbers) is program output; a
    line of box-drawing characters under a paragraph is one mark, not a program."""
    assert looks_like_code(QUERY_OUTPUT)
    assert looks_like_code(" ".join(QUERY_OUTPUT.split()))  # as a page's text run joins it
    assert not looks_like_code(DRAFT + "\n" + "─" * 72 + "\n")


def test_a_plain_text_document_in_pre_is_prose(text_browser, tmp_path):
    page = f"<pre>{DRAFT}</pre>"
    text = kept_text(run(render(text_browser, tmp_path, page)))
    assert "It collects practice that several implementations share" in text
    assert "gives every request a key that the server remembers" in text


def test_a_program_in_pre_is_not_prose(text_browser, tmp_path):
    intro = ("The function below retries a request a few times and keeps the same key for "
             "every attempt, so that the server can tell the copies apart from new requests.")
    page = f"<article><p>{intro}</p><pre><code>{PROGRAM}</code></pre></article>"
    text = kept_text(run(render(text_browser, tmp_path, page)))
    assert intro in text
    assert "idempotency_key" not in text


FILMS = [(f"The Quiet Harbour Part {n}", 1950 + n, f"Director Number {n}") for n in range(40)]


def test_a_list_article_keeps_its_intro_beside_its_table(text_browser, tmp_path):
    intro = ("This list collects every film that won the festival's main prize since 1950. "
             "The jury changes each year, and its members are named in the festival's report.")
    rows = "".join(f"<tr><td><a href='/film/{n}'>{title}</a></td><td>{year}</td>"
                   f"<td><a href='/people/{n}'>{director}</a></td></tr>"
                   for n, (title, year, director) in enumerate(FILMS))
    page = (f"<main><h1>Festival winners</h1><p>{intro}</p>"
            f"<table><tr><th>Film</th><th>Year</th><th>Director</th></tr>{rows}</table></main>")
    text = kept_text(run(render(text_browser, tmp_path, page)))
    assert intro in text
    assert "Director Number 7" not in text
