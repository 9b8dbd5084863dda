"""Rules by name, built from a config section (``[filters.segment]`` or ``[filters.page]``).

A section lists the enabled rules in order (``rules = [...]``) and may hold one sub-table of
keyword arguments per rule, e.g. ``[filters.segment.min_length] min_tokens = 40``.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

from ..errors import UsageError
from .base import Rule
from .c4 import C4NoPunct
from .gopher import (GopherQuality, GopherRepetition, LinesWithoutPunctuation, MedianWordLength,
                     RepeatedSequence)
from .non_article import (LargeBlockShare, LinkCodeShare, ListTableShare, LongBlock,
                          MainTextOverlap, MinLength)

__all__ = ["RULES", "build_rule", "rules_from_config", "rule_names"]

RULES: dict[str, Callable[..., Rule]] = {
    "main_text_overlap": MainTextOverlap,
    "min_length": MinLength,
    "link_code_share": LinkCodeShare,
    "long_block": LongBlock,
    "large_block_share": LargeBlockShare,
    "list_table_share": ListTableShare,
    "c4": C4NoPunct,
    "gopher_quality": GopherQuality,
    "gopher_repetition": GopherRepetition,
    "median_word_length": MedianWordLength,
    "lines_without_punctuation": LinesWithoutPunctuation,
    "repeated_sequence": RepeatedSequence,
}


def rule_names() -> list[str]:
    return sorted(RULES)


def build_rule(name: str, **options: Any) -> Rule:
    """The rule registered as ``name`` with its thresholds overridden by ``options``."""
    if name not in RULES:
        raise UsageError(f"unknown filter rule {name!r}; choose from {rule_names()}")
    factory = RULES[name]
    fields = {f.name: f for f in dataclasses.fields(factory)}  # type: ignore[arg-type]
    arguments: dict[str, Any] = {}
    for key, value in options.items():
        if key not in fields or key == "name":
            allowed = sorted(k for k in fields if k != "name")
            raise UsageError(f"filter rule {name!r} has no option {key!r}; options: {allowed}")
        if key in ("top_n_grams", "dup_n_grams"):
            value = tuple((int(n), float(limit)) for n, limit in value)
        arguments[key] = value
    return factory(**arguments)


def rules_from_config(section: dict[str, Any]) -> list[Rule]:
    """The enabled rules of a ``[filters.*]`` section, in the order its ``rules`` list gives."""
    names = section.get("rules", [])
    if not isinstance(names, list):
        raise UsageError(f"filters 'rules' must be a list of rule names, not {names!r}")
    return [build_rule(name, **dict(section.get(name) or {})) for name in names]
