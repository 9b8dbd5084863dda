"""Text as the detector should see it, normalised the way trafilatura normalises its output.

Unicode NFC (a decomposed "é" and a composed one are the same word to a reader but different
tokens to a detector), soft hyphens (U+00AD, invisible line-break hints inside words) removed,
and every run of whitespace one space. Applied to each piece of page text that goes into a
segment's ``text`` and ``main_text``.
"""

from __future__ import annotations

import unicodedata

SOFT_HYPHEN = "\u00ad"


def clean_piece(text: str) -> str:
    """``text`` in NFC, without soft hyphens, with single spaces and no outer whitespace.

    >>> clean_piece("Cafe\\u0301  Zucker\\u00adb\\u00e4cker\\n")
    'Café Zuckerbäcker'
    """
    if SOFT_HYPHEN in text:
        text = text.replace(SOFT_HYPHEN, "")
    if not text.isascii():
        text = unicodedata.normalize("NFC", text)
    return " ".join(text.split())
