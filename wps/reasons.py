"""What each reason code means: the glossary in ``wps/reasons.toml`` (data, not code), shown in
the README and as tooltips in ``report.html``.

>>> explain("link_share")
'mostly link text (navigation, link lists, teasers)'
>>> explain("top_3_gram").startswith("Gopher")
True
>>> explain("no_such_reason") is None
True
"""

from __future__ import annotations

import fnmatch
import tomllib
from functools import lru_cache
from importlib import resources

__all__ = ["explain", "glossary"]


@lru_cache(maxsize=1)
def glossary() -> dict[str, dict[str, str]]:
    """``{section: {code or pattern: explanation}}`` as the packaged file holds them."""
    text = resources.files("wps").joinpath("reasons.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


def explain(code: str) -> str | None:
    """The explanation of a reason ``code`` (``top_3_gram`` matches ``top_*_gram``), or
    ``None`` for a code the glossary does not know."""
    for entries in glossary().values():
        if code in entries:
            return entries[code]
    for entries in glossary().values():
        for pattern, text in entries.items():
            if "*" in pattern and fnmatch.fnmatchcase(code, pattern):
                return text
    return None
