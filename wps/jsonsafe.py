"""JSON (and TOML) from files nobody vouches for, read without a RecursionError.

Python's parsers recurse once per nesting level: ``"[" * 100000`` ends in a RecursionError, and
a document nested just under the limit breaks later recursive code (``json.dumps``,
``copy.deepcopy``). No wps format nests more than a few levels, so anything deeper than
:data:`MAX_DEPTH` is refused as a one-line error of the reader's own class, naming the input.
So are an integer longer than Python converts (``sys.get_int_max_str_digits``, 4300 digits),
and in JSONL a string with an escaped lone surrogate (``"\\ud800"``), which no UTF-8 output
and no hash of the text can take.
"""

from __future__ import annotations

import json
import re
import sys
from itertools import accumulate
from pathlib import Path
from typing import Any, Callable, Iterator

from .errors import InputFileError, WpsError

__all__ = ["MAX_DEPTH", "depth_bound", "nesting_depth", "load_nested", "load_json_text",
           "jsonl_record"]

MAX_DEPTH = 100
"""Deepest nesting accepted: captures and Webis JSON need about 7 levels."""

_INT_LIMIT = "Exceeds the limit"
"""How Python's ``ValueError`` for a too long integer string begins (it has no class of its own)."""
_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")
_BRACKETS = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}
_NOT_BRACKETS = bytes(b for b in range(256) if b not in _BRACKETS)


def depth_bound(text: str) -> int:
    """An upper bound of the nesting depth of a JSON or TOML text: brackets counted as if none
    were inside a string (fast: the brackets are picked out in C)."""
    brackets = text.encode("utf-8", "surrogatepass").translate(None, _NOT_BRACKETS)
    return max(accumulate(map(_BRACKETS.__getitem__, brackets)), default=0)


def nesting_depth(value: Any) -> int:
    """Levels of lists and dicts in a parsed value, counted without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if not isinstance(item, (list, dict)):
            continue
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in
                     (item.values() if isinstance(item, dict) else item))
    return deepest


def load_nested(text: str, where: str, parse: Callable[[str], Any],
                error: type[WpsError] = InputFileError) -> Any:
    """``parse(text)``, refusing nesting deeper than :data:`MAX_DEPTH` as ``error`` naming
    ``where``; the parser's own errors (bad syntax) pass through for the caller to word."""
    try:
        if depth_bound(text) <= MAX_DEPTH:  # the common case: no deep nesting possible
            return parse(text)
        too_deep = error(f"{where}: nested deeper than {MAX_DEPTH} levels")
        try:
            value = parse(text)
        except RecursionError:
            raise too_deep from None
    except ValueError as err:
        if str(err).startswith(_INT_LIMIT):
            raise error(f"{where}: a number longer than {sys.get_int_max_str_digits()} digits"
                        ) from None
        raise
    if nesting_depth(value) > MAX_DEPTH:
        raise too_deep
    return value


def load_json_text(text: str, where: str, error: type[WpsError] = InputFileError) -> Any:
    """The JSON value of ``text``; bad JSON and deep nesting are one-line ``error`` s naming
    ``where`` (a file, or ``file:line``)."""
    try:
        return load_nested(text, where, json.loads, error)
    except json.JSONDecodeError as err:
        raise error(f"{where}: not valid JSON ({err})") from None


def jsonl_record(line: str, where: str) -> dict[str, Any]:
    """One JSONL line as a JSON object; ``where`` is ``file:line`` for the one-line errors."""
    try:
        record = load_nested(line, where, json.loads)
    except json.JSONDecodeError as err:
        raise InputFileError(f"{where}: not a JSON line ({err.msg})") from None
    if not isinstance(record, dict):
        raise InputFileError(f"{where}: a line must be a JSON object")
    if _ESCAPED_SURROGATE.search(line) and not _is_unicode(record):
        raise InputFileError(f"{where}: a string holds an escaped lone surrogate (not Unicode "
                             "text)")
    return record


def _is_unicode(value: Any) -> bool:
    """Whether every string in ``value`` can be written as UTF-8 (a pair of escaped surrogates
    is one character; a lone one is not text)."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
