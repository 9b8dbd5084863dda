"""Boilerplate that reads like prose, by evidence that holds in every language: statistics boxes
and site notices.

- A **statistics box** ("In total there are 35 users online :: 2 registered, 0 hidden and 33
  guests", "Our members have made a total of 51,236 posts") is written in sentences, but its
  sentences carry counts: many of its words are numbers. Prose that cites figures has far fewer
  of them per word, and a short box is a box, not an article.
- A **site notice** ("Powered by phpBB® Forum Software © phpBB Limited", "vBulletin® Version
  4.2.5, Copyright © 2024", an SEO add-on's credit) carries a legal mark (© ® ™, or "(c)"
  before a year) or a software version, and stands at the page's end: after the last writing of
  the page, in document order.

Both are judged on the segment's text and place, not on words of one language. Site-wide
repetition (the same footer on every page of a site) is what the de-duplication step catches when
its state is on.
"""

from __future__ import annotations

import re

from ..text.sentences import word_count

MIN_NUMBER_SHARE = 0.15
"""Share of a statistics box's words that are numbers (counts, dates, times) at least."""
MIN_NUMBERS = 3
MAX_STATISTICS_WORDS = 120
"""A statistics box is short; a longer text with figures is a report."""
MAX_NOTICE_WORDS = 60
MIN_NOTICE_SHARE = 0.3
"""Share of a notice segment's characters on lines that carry a legal mark or a version."""

_NUMBER = re.compile(r"\d")
_WORDLIKE = re.compile(r"\w")
_LEGAL_MARK = re.compile(r"[©®™℗]|\([cC]\)\s*\d{4}|\b(?:19|20)\d\d\s*[-–]\s*(?:19|20)\d\d\b")
_VERSION = re.compile(r"\b[vV]?\d+\.\d+(?:\.\d+)+\b|\b[vV]\d+(?:\.\d+)+\b")
"""A software version (``4.2.5``, ``v2.0.32``; a plain ``3.5`` is a figure, not a version)."""


def number_share(text: str) -> float:
    """Share of the words of ``text`` (space-separated, with a letter or digit) that hold a
    digit.

    >>> number_share("In total there are 35 users online :: 2 registered and 33 guests")
    0.25
    """
    words = _words(text)
    return sum(bool(_NUMBER.search(word)) for word in words) / len(words) if words else 0.0


def is_statistics(text: str) -> bool:
    """A short text whose words are largely numbers: a board's or a site's statistics.

    >>> is_statistics("Our users have posted a total of 51236 articles. We have 1987 registered "
    ...               "users. In total there are 35 users online: 2 registered and 33 guests.")
    True
    >>> is_statistics("The bakery opened in 1952 and has sold bread in the old town ever since.")
    False
    >>> is_statistics("The new server handled more than 200,000 requests in 20 seconds during "
    ...               "the test, faster by a factor of 100 than the old one.")
    False
    """
    count = word_count(text)  # scripts written without spaces: their letters
    if count > MAX_STATISTICS_WORDS:
        return False  # a long text (an article's main text): its words need not be read
    words = _words(text)
    numbers = sum(bool(_NUMBER.search(word)) for word in words)
    count = max(len(words), count)
    return (numbers >= MIN_NUMBERS and count <= MAX_STATISTICS_WORDS
            and numbers >= MIN_NUMBER_SHARE * count)


def _words(text: str) -> list[str]:
    return [word for word in text.split() if _WORDLIKE.search(word)]


def is_notice_line(line: str) -> bool:
    """A line with a legal mark or a software version: a copyright or "powered by" credit.

    >>> [is_notice_line(x) for x in ("Powered by phpBB® Forum Software © phpBB Limited",
    ...                              "vBulletin Version 4.2.5", "We met in 2019 and 2020.")]
    [True, True, False]
    """
    return bool(_LEGAL_MARK.search(line) or _VERSION.search(line))


def is_notice(text: str) -> bool:
    """A short text that is mostly notice lines (:func:`is_notice_line`)."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines or len(text.split()) > MAX_NOTICE_WORDS:
        return False
    marked = sum(len(line) for line in lines if is_notice_line(line))
    return marked >= MIN_NOTICE_SHARE * sum(len(line) for line in lines)
