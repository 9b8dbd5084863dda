"""Rules by name, built from a config section (``[filters.segment]`` or ``[filters.page]``).

A section lists the enabled rules in order (``rules = [...]``) and may hold one sub-table of
keyword arguments per rule, e.g. ``[filters.segment.min_length] min_tokens = 40``.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Callable

from ..errors import UsageError
from ..settings import check_like_default
from .base import Rule
from .c4 import C4NoPunct
from .gopher import (
    GopherQuality,
    GopherRepetition,
    LinesWithoutPunctuation,
    MedianWordLength,
    RepeatedSequence,
)
from .non_article import (
    LargeBlockShare,
    LinkCodeShare,
    ListTableShare,
    LongBlock,
    MainTextOverlap,
    MinLength,
)

__all__ = ["RULES", "build_rule", "rules_from_config", "rule_names", "check_rules_section"]

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
        arguments[key] = _option_value(name, key, fields[key].default, value)
    return factory(**arguments)


def _option_value(rule: str, key: str, default: Any, value: Any) -> Any:
    """``value`` if it has the type of the option's default (an integer may stand for a
    float), so a wrong type fails when the config is read, not as a TypeError on a page."""
    if isinstance(default, tuple):  # (n, limit) pairs: top_n_grams, dup_n_grams
        if isinstance(value, (list, tuple)) and all(
                isinstance(pair, (list, tuple)) and len(pair) == 2 and _is_int(pair[0])
                and _is_number(pair[1]) for pair in value):
            return tuple((int(n), float(limit)) for n, limit in value)
        raise UsageError(f"filter rule {rule!r}: {key!r} must be a list of [n, limit] pairs, "
                         f"not {value!r}")
    return check_like_default(default, value, f"filter rule {rule!r}: {key!r}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) \
        and math.isfinite(value)


def rules_from_config(section: dict[str, Any]) -> list[Rule]:
    """The enabled rules of a ``[filters.*]`` section, in the order its ``rules`` list gives."""
    names = section.get("rules", [])
    if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
        raise UsageError(f"filters 'rules' must be a list of rule names, not {names!r}")
    return [build_rule(name, **_rule_table(section, name)) for name in names]


def _rule_table(section: dict[str, Any], name: str) -> dict[str, Any]:
    table = section.get(name)
    if table is not None and not isinstance(table, dict):
        raise UsageError(f"filter rule {name!r}: settings must be a table, not {table!r}")
    return dict(table or {})


def check_rules_section(section: dict[str, Any], where: str) -> None:
    """Refuse a ``[filters.*]`` table a page would fail on: a listed or configured rule that
    does not exist, an option it does not take or of the wrong type. Tables of rules that are
    not listed are checked too (a typo there would otherwise be silently ignored)."""
    try:
        rules_from_config(section)
        for name in sorted(section.keys() - {"rules"}):
            build_rule(name)  # an unknown rule's name is the error, not its table
            build_rule(name, **_rule_table(section, name))
    except UsageError as err:
        raise UsageError(f"{where}: {err}") from None
