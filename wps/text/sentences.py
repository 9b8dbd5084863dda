"""Sentences and words of a text, for every script: what the post rules and the prose decision
count (a sentence: 8+ words ending in punctuation; a line break ends one, so list items, table rows
and menus are not sentences)."""

from __future__ import annotations

import re

SENTENCE_END = (".", "!", "?", '"', "”", "“", "»", "«", "…", "。", "！", "？", "．", "」")
_SENTENCE_BREAK = re.compile(r"(?<=[.!?…])\s+|(?<=[。！？])|\n")
_UNSPACED = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
"""Kana, CJK ideographs and Hangul syllables: scripts written without spaces between words."""
CHARS_PER_UNSPACED_WORD = 2
"""Characters of an unspaced script counted as one word (about the mean Chinese word length)."""


def sentence_share(text: str) -> float:
    """Share of ``text`` in sentences of 8 words or more that end in punctuation.

    >>> sentence_share("Home\\nProducts\\nThe shop opened in 1952 and has sold bread ever since.")
    0.79
    """
    sentences = _SENTENCE_BREAK.split(text)
    long = sum(len(s) for s in sentences
               if word_count(s) >= 8 and s.rstrip().endswith(SENTENCE_END))
    return round(long / max(len(text), 1), 2)


def word_count(text: str) -> int:
    """Words of ``text``: space-separated, plus those of scripts written without spaces.

    >>> word_count("Crème brûlée"), word_count("這次介紹的是阿茲特克劇情")
    (2, 6)
    """
    unspaced = len(_UNSPACED.findall(text))
    if not unspaced:
        return len(text.split())
    return len(_UNSPACED.sub(" ", text).split()) + unspaced // CHARS_PER_UNSPACED_WORD


__all__ = ["SENTENCE_END", "sentence_share", "word_count"]
