"""One way to parse a page's HTML with lxml, whatever its first line says."""

from __future__ import annotations

from typing import Any


def parse_document(html: str) -> Any | None:
    """The document's root element, or ``None`` when lxml finds no document in ``html``.

    The text goes to lxml as UTF-8 bytes with the encoding named: lxml refuses a ``str`` that
    opens with an XML declaration (``<?xml version="1.0" encoding="..."?>``, as XHTML pages and
    their saved copies do), and the declared encoding no longer applies to decoded text.
    """
    import lxml.etree
    import lxml.html

    if not html.strip():
        return None
    parser = lxml.html.HTMLParser(encoding="utf-8")
    try:
        return lxml.html.document_fromstring(html.encode("utf-8", "surrogatepass"), parser=parser)
    except (lxml.etree.ParserError, ValueError):
        return None
