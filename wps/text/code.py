"""Whether a text is code, judged by the text (not by the ``<pre>`` or ``<code>`` tag around it):
source code is dense in operators and brackets and in identifiers (``snake_case``,
``camelCase``, ``obj.attr``, ``call(``); a plain-text document in ``<pre>`` (an Internet-Draft,
a mailing-list archive) is sentences.
"""

from __future__ import annotations

import re

import regex

from .sentences import sentence_share, unwrap

SYMBOLS = frozenset("{}[]()<>;=+*/\\|&^~%$#@`")
"""Characters of program text that prose rarely uses."""
_BOX_DRAWING = "[\u2500-\u257f]+"
_SYMBOL = re.compile("[" + re.escape("".join(sorted(SYMBOLS))) + "]|" + _BOX_DRAWING)
"""One of :data:`SYMBOLS`, or a run of box-drawing characters (the rules and bars of a table a
terminal printed: ``n │ zscore ───┼───``), counted once a run so a drawn line under prose is
one mark (counted in C, not character by character in Python)."""
_IDENTIFIER = regex.compile(
    r"^(?:[A-Za-z_][A-Za-z0-9]*_[A-Za-z0-9_]*|[a-z]+[A-Z][A-Za-z0-9]*|"
    r"[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)+|[A-Za-z_][\w.]*\(.*)$")
"""A token that names something in a program: ``snake_case``, ``camelCase``, ``a.b``, ``f(``."""
_PROSE_MARKS = regex.compile(r"(?<!\S)\(([^(){}\[\];=<>]*)\)|(?<=\d)%")
"""A parenthesis opened after a space around words ("units (38%)") and a percent sign after a
number: prose's own marks, which a program writes otherwise (``f(x)``, ``a % b``)."""
MIN_CODE_SYMBOL_SHARE = 0.04
MIN_CODE_IDENTIFIER_SHARE = 0.15
MIN_PROSE_SENTENCE_SHARE = 0.5
"""Text this much in sentences is prose unless symbols are denser than prose ever has them
(:data:`MAX_PROSE_SYMBOL_SHARE`), or both symbols and identifiers are as dense as in code."""
MAX_PROSE_SYMBOL_SHARE = 0.08
MIN_EVIDENCE = 3
"""Symbols or identifiers needed at all: an emoticon (``=(``) or one ``file_name`` in a
sentence is not a program."""


def _maybe_identifier(word: str) -> bool:
    """A cheap test before :data:`_IDENTIFIER`: plain words have no ``_ . (`` and no capital
    after a small letter."""
    return ("_" in word or "." in word or "(" in word
            or (not word.islower() and not word.isupper() and not word.istitle()))


def looks_like_code(text: str) -> bool:
    """Whether ``text`` reads as program text rather than sentences, names or numbers.

    >>> looks_like_code("for (int i = 0; i < n; i++) {\\n    total += values[i];\\n}")
    True
    >>> looks_like_code("The working group met in March and agreed to publish the draft. "
    ...                 "Comments are welcome on the mailing list until the end of April.")
    False
    """
    chars = len(text.replace(" ", "").replace("\n", ""))
    if not chars:
        return False
    marked = _PROSE_MARKS.sub(r"\1", text) if "(" in text or "%" in text else text
    symbol_count = len(_SYMBOL.findall(marked))
    symbols = symbol_count / chars if symbol_count >= MIN_EVIDENCE else 0.0
    words = text.split()
    identifier_count = sum(1 for word in words if _maybe_identifier(word)
                           and _IDENTIFIER.match(word.strip(",;:")))
    identifiers = identifier_count / len(words) if identifier_count >= MIN_EVIDENCE else 0.0
    if symbols < MIN_CODE_SYMBOL_SHARE and identifiers < MIN_CODE_IDENTIFIER_SHARE:
        return False  # no sign of code
    if symbols > MAX_PROSE_SYMBOL_SHARE or (symbols >= MIN_CODE_SYMBOL_SHARE
                                            and identifiers >= MIN_CODE_IDENTIFIER_SHARE):
        return True  # code even where it is mostly sentences (comments in a program)
    # one sign of code, and not dense: mostly sentences make it prose (only this needs them)
    return sentence_share(unwrap(text)) < MIN_PROSE_SENTENCE_SHARE


__all__ = ["looks_like_code", "SYMBOLS"]
