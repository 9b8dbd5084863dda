"""JSON (and TOML) from files nobody vouches for, read without a RecursionError.

Python's parsers recurse once per nesting level: ``"[" * 100000`` ends in a RecursionError, and
a document nested just under the limit breaks later recursive code (``json.dumps``,
``copy.deepcopy``). No wps format nests more than a few levels, so anything deeper than
:data:`MAX_DEPTH` is refused as a one-line error of the reader's own class, naming the input.
So are an integer longer than Python converts (``sys.get_int_max_str_digits``, 4300 digits),
and in JSONL a string with an escaped lone surrogate (``"\\ud800"``), which no UTF-8 output
and no hash of the text can take. The file readers (:func:`read_json`, :func:`read_text`,
:func:`iter_jsonl`) turn every failure into one :class:`~wps.errors.InputFileError` naming the
file (and line).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from itertools import accumulate
from pathlib import Path
from typing import Any

from .errors import InputFileError, WpsError, os_reason

__all__ = ["MAX_DEPTH", "depth_bound", "iter_jsonl", "jsonl_record", "load_json_text",
           "load_nested", "nesting_depth", "read_json", "read_text", "reading"]

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


def read_json(path: Path, what: str, *, missing: str) -> Any:
    """The JSON value of the UTF-8 file ``path``. A missing file is an :class:`InputFileError`
    saying ``missing`` (what the folder then is not); unreadable bytes, text that is not UTF-8,
    bad JSON and deep nesting are one naming the file and ``what`` it should have been."""
    try:
        return load_nested(path.read_text(encoding="utf-8"), str(path), json.loads)
    except FileNotFoundError:
        raise InputFileError(missing) from None
    except (OSError, ValueError) as err:  # ValueError: not UTF-8 or not JSON
        raise InputFileError(f"{path}: unreadable {what} ({err})") from None


def read_text(path: str | Path, what: str) -> str:
    """The UTF-8 text of ``path``; a missing or unreadable file is an :class:`InputFileError`
    naming ``what`` it should have been."""
    path = Path(path)
    with reading(path, what):
        return path.read_text(encoding="utf-8")


def iter_jsonl(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for every non-blank line of a JSONL file, read as a stream.

    Errors name the file and line: missing file, not UTF-8, not JSON, nested too deep
    (:mod:`wps.jsonsafe`), not a JSON object.
    """
    path = Path(path)
    with reading(path, "file"), open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if line.strip():
                yield number, jsonl_record(line, f"{path}:{number}")


@contextmanager
def reading(path: Path, what: str) -> Iterator[None]:
    """Turn the OS's errors while reading ``path`` into one-line :class:`InputFileError` s."""
    try:
        yield
    except FileNotFoundError:
        raise InputFileError(f"{path}: no such {what}") from None
    except IsADirectoryError:
        raise InputFileError(f"{path}: is a folder, expected a {what}") from None
    except UnicodeDecodeError:
        raise InputFileError(f"{path}: unreadable {what} (not UTF-8 text)") from None
    except OSError as err:
        raise InputFileError(f"{path}: unreadable {what} ({os_reason(err)})") from None
