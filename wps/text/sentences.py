"""Sentences and words of a text, in every script: what the post rules and the prose decision
count (a sentence: 8+ words ending in sentence punctuation; a line break ends one, so list items,
table rows and menus are not sentences).

No language lists: sentence ends are Unicode's ``Sentence_Terminal`` characters (UAX #29: ``. ! ?``
and ``। ॥ ؟ ۔ 。 ！ ？ ‼ ⁇ ።`` among 170 others) plus the ellipsis, and words of scripts written
without spaces are counted from their characters with the ratios of :data:`SCRIPT_RATIOS`.
Thai and Lao end sentences with a space only: there a long run of text counts as a sentence
(:data:`MIN_SPACE_ENDED_RUN`).
"""

from __future__ import annotations

import re

import regex

TERMINAL = r"[\p{Sentence_Terminal}…]"
"""A sentence terminal (Unicode's property, with the ellipsis the property leaves out)."""
CLOSERS = "\"'”“»«」』)）]’"
"""Quotes and brackets that may follow a terminal and still end the sentence."""
_ENDS = regex.compile(rf"(?:{TERMINAL}[{regex.escape(CLOSERS)}]*|[\"”“»«」』])\s*$")
_BREAK = regex.compile(
    rf"(?<={TERMINAL}[{regex.escape(CLOSERS)}]*)\s+"        # . ! ? । ؟ … then a space
    rf"|(?V1)(?<=[\p{{Sentence_Terminal}}--[\x00-\x7f]][{regex.escape(CLOSERS)}]*)(?=\S)"
    r"|\n")
"""Where a sentence ends: after a terminal (and its closing quotes) and a space, right after a
terminal of another script (``。`` needs no space: ``3.14`` and ``e.g.`` keep theirs), or at a
line break."""

SCRIPT_RATIOS = {
    "Han": 2.0, "Hiragana": 2.0, "Katakana": 2.0,
    "Thai": 3.5, "Lao": 3.5, "Khmer": 4.0, "Myanmar": 4.0,
}
"""Characters (base letters, combining marks not counted) per word in scripts written without
spaces between words: about the mean word length of Chinese and Japanese (2; mixed kana and
kanji text is close to it) and of Thai and Lao (3.5 base letters; Khmer and Burmese 4). Korean
separates words by spaces and is counted by them."""
_UNSPACED = {script: regex.compile(rf"(?V1)[\p{{{script}}}--\p{{M}}]")
             for script in SCRIPT_RATIOS}
_ANY_UNSPACED = regex.compile(
    "(?V1)[" + "".join(rf"\p{{{script}}}" for script in SCRIPT_RATIOS) + "]")
_UNSPACED_RUN = regex.compile(_ANY_UNSPACED.pattern + "+")
FIRST_UNSPACED = "\u0e00"
"""No letter of a script in :data:`SCRIPT_RATIOS` comes before Thai's block: text below it (the
Latin, Greek, Cyrillic, Arabic, Hebrew and Indic scripts) is counted by its spaces at once."""
SPACE_ENDED = ("Thai", "Lao")
"""Scripts that end a sentence with a space and no punctuation (Khmer and Burmese have their
terminals ``។ ။``, which are Sentence_Terminal characters)."""
_SPACE_ENDED = regex.compile(
    "(?V1)[" + "".join(rf"\p{{{script}}}" for script in SPACE_ENDED) + r"--\p{M}]")
MIN_SPACE_ENDED_RUN = 12
"""Mean base letters between spaces above which a Thai or Lao piece is running text (clauses of
several words) rather than a menu or a list of names (one or two words between spaces)."""
MIN_SENTENCE_WORDS = 8
MIN_UNENDED_WORDS = 10
"""A piece this long that ends in a word (a list item written as a sentence, a lead-in ending
with a colon) is a sentence without its terminal; menus, names and table cells are shorter.
Not in scripts without spaces, whose word counts come from letters (:data:`SCRIPT_RATIOS`)."""
MAX_UNENDED_WORDS = 35
"""Longer runs without a terminal are lines the page broke without a block (``<br>``: "You
cannot post new topics in this forum You cannot reply to ..."), not one sentence."""
WORDS_PER_SEPARATOR = 6
"""An unended piece with a comma (``, ; · / |``) for fewer words than this is a list of names
("Crested Butte, Gunnison, Montrose, Durango"), not a sentence."""
_LIST_SEPARATORS = regex.compile(r"[,;·/|、，]")
_UNENDED = regex.compile(r"[\p{L}\p{M}][\p{Pe}\p{Pf}\"']*:?\s*$")

_CLOSER = f"[{re.escape(CLOSERS)}]"
_PLAIN_BREAK = re.compile(
    r"\s(?:" + "|".join(rf"(?<=[.!?…]{_CLOSER * n}\s)" for n in range(4)) + r")\s*|\n")
""":data:`_BREAK` for text whose only terminals are ``. ! ? …`` (up to three closers after one),
with the standard ``re``: several times faster than ``regex``'s set operations and lookbehinds
of any length, and most text, in any script, ends its sentences so. Each match opens with a
space or a line break, so that only those positions are tried (the terminal before the space is
looked behind for there)."""
_OTHER_TERMINAL = regex.compile(r"(?V1)[\p{Sentence_Terminal}--[\x00-\x7f]]")
"""A terminal of another script (``。 । ؟``): such text needs :data:`_BREAK`."""


def sentence_share(text: str) -> float:
    """Share of ``text`` in sentences of 8 words or more that end in a sentence terminal.

    >>> sentence_share("Home\\nProducts\\nThe shop opened in 1952 and has sold bread ever since.")
    0.79
    >>> sentence_share("ร้านนี้เปิดมาตั้งแต่ปี 1952 และขายขนมปังทุกวันตั้งแต่เช้ามืด ลูกค้าประจำบอกว่าเปลือกขนมปังอร่อยที่สุดในเมือง")
    1.0
    """
    if not text:
        return 0.0
    plain = text.isascii() or not any(char > "\x7f" and _OTHER_TERMINAL.match(char)
                                      for char in set(text))  # each character tested once
    pieces = (_PLAIN_BREAK if plain else _BREAK).split(text)
    long = sum(len(piece) for piece in pieces if is_sentence(piece))
    return round(long / len(text), 2)


MIN_WRAPPED_LINE = 50
"""A line this long that ends without a terminal, followed by a line of text, is a hard-wrapped
line of plain text (``<pre>``, e-mail: 72 columns), not a list item or a heading."""


def unwrap(text: str) -> str:
    """``text`` with hard-wrapped lines joined: a line of :data:`MIN_WRAPPED_LINE` characters or
    more that does not end a sentence continues on the next non-blank line.

    >>> unwrap("The draft describes how a server should answer when\\nthe client asks twice.\\n\\nNext")
    'The draft describes how a server should answer when the client asks twice.\\n\\nNext'
    """
    lines = text.split("\n")
    out = [lines[0]]
    for line in lines[1:]:
        previous = out[-1]
        if (line.strip() and len(previous.strip()) >= MIN_WRAPPED_LINE
                and not ends_sentence(previous)):
            out[-1] = f"{previous.rstrip()} {line.strip()}"
        else:
            out.append(line)
    return "\n".join(out)


def is_sentence(piece: str) -> bool:
    """Whether one piece of text (no line break) is a sentence: 8+ words that end in a terminal,
    or 8+ words of long runs of a script that ends sentences with a space only."""
    words = word_count(piece)
    if words < MIN_SENTENCE_WORDS:
        return False
    return (ends_sentence(piece) or _space_ended_prose(piece)
            or (MIN_UNENDED_WORDS <= words <= MAX_UNENDED_WORDS
                and _UNENDED.search(piece) is not None and not has_unspaced(piece)
                and ":" not in piece.rstrip().rstrip(":")  # a Key: value field
                and _LIST_SEPARATORS.subn("", piece)[1] * WORDS_PER_SEPARATOR <= words))


def ends_sentence(text: str) -> bool:
    """Whether ``text`` ends with a sentence terminal (and closing quotes) or a closing quote.

    >>> [ends_sentence(x) for x in ("Is it?", "यह किताब है।", "هل هذا كتاب؟", "Menu", "終わり。")]
    [True, True, True, False, True]
    """
    return _ENDS.search(text, _tail_start(text)) is not None


_TAIL_CHAR = regex.compile(rf"[\p{{Sentence_Terminal}}…{regex.escape(CLOSERS)}\s]")
"""A character that may stand in the match of :data:`_ENDS` (it needs no more of the text)."""


def _tail_start(text: str) -> int:
    """Where the trailing run of terminals, closers and spaces of ``text`` begins: a sentence
    end lies within it, so :func:`ends_sentence` searches there, not through the whole text."""
    start = len(text)
    while start and _TAIL_CHAR.match(text, start - 1):
        start -= 1
    return start


def _space_ended_prose(piece: str) -> bool:
    letters = len(_SPACE_ENDED.findall(piece))
    if letters < 0.5 * len(piece.replace(" ", "")):
        return False
    runs = [run for run in piece.split() if run]
    return letters / max(len(runs), 1) >= MIN_SPACE_ENDED_RUN


def word_count(text: str) -> int:
    """Words of ``text``: space-separated, plus those of scripts written without spaces
    (:data:`SCRIPT_RATIOS`).

    >>> word_count("Crème brûlée"), word_count("這次介紹的是阿茲特克劇情"), word_count("สวัสดีครับ")
    (2, 6, 2)
    """
    if text.isascii() or not has_unspaced(text):
        return len(text.split())
    return len(_UNSPACED_RUN.sub(" ", text).split()) + round(unspaced_words(text))


def unspaced_words(text: str) -> float:
    """Words of ``text`` in scripts written without spaces, from their letters."""
    return sum(len(pattern.findall(text)) / SCRIPT_RATIOS[script]
               for script, pattern in _UNSPACED.items())


_CHAR_TOKENS = regex.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}]")


def token_count(text: str) -> int:
    """Tokens as the C4 and Gopher rules count them: whitespace tokens, every Han, kana and
    Hangul character one token, Thai, Lao, Khmer and Burmese by :data:`SCRIPT_RATIOS`.

    >>> token_count("這次介紹的 ok"), token_count("hello world")
    (6, 2)
    """
    if text.isascii() or max(text) < FIRST_UNSPACED:  # no letter of those scripts: at once
        return len(text.split())
    if not _ANY_UNSPACED.search(text) and not _CHAR_TOKENS.search(text):
        return len(text.split())
    chars = len(_CHAR_TOKENS.findall(text))
    rest = _CHAR_TOKENS.sub(" ", text)
    return chars + word_count(rest)


def has_unspaced(text: str) -> bool:
    """Whether ``text`` holds a letter of a script written without spaces: each distinct
    character from :data:`FIRST_UNSPACED` up is tested once (several times faster than running
    the script pattern through a long text)."""
    return any(char >= FIRST_UNSPACED and _ANY_UNSPACED.match(char) for char in set(text))


__all__ = ["TERMINAL", "SCRIPT_RATIOS", "sentence_share", "is_sentence", "ends_sentence",
           "word_count", "token_count", "unspaced_words", "has_unspaced", "unwrap"]
