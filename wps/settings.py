"""The typed run configuration: one frozen dataclass per section of ``wps/defaults.toml``.

Every default lives in that file and nowhere else. A section's dataclass is made from it (each
key a field of its default value's type), so a key added there is typed and checked without a
second list to keep up; the option objects of the API (:class:`~wps.capture.CaptureOptions`,
:class:`~wps.dedup.DedupSettings`) take their defaults from it with :func:`packaged_defaults`.
:func:`run_config` validates a whole resolved configuration at once with pydantic (strict: an
integer may stand for a number, nothing else changes type), and :func:`check_like_default` is
the one rule "a value has its default's type" that the config, the segmenter options and the
filter-rule options all apply.

>>> config = run_config(packaged_config())
>>> config.run.timeout_s, config.capture.viewport_width
(30.0, 1366)
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import inspect
import tomllib
from collections.abc import Callable
from importlib import resources
from typing import Annotated, Any, TypeVar

from .errors import UsageError

__all__ = ["RunConfig", "check_like_default", "none_for_empty", "packaged_config",
           "packaged_defaults", "run_config", "to_toml"]

OPEN_SECTIONS = frozenset({"filters"})
"""Sections whose tables name rules (checked by :mod:`wps.filters.rules`), kept as dicts."""

_TYPE_NAMES = {bool: "true or false", int: "an integer", float: "a number", str: "a string",
               list: "a list", dict: "a table"}

Class = TypeVar("Class", bound=type)


@functools.cache
def _packaged_text() -> str:
    return resources.files("wps").joinpath("defaults.toml").read_text(encoding="utf-8")


def packaged_config() -> dict[str, Any]:
    """The packaged defaults (``wps/defaults.toml``), a fresh copy each call."""
    return tomllib.loads(_packaged_text())


def packaged_defaults(section: str, **elsewhere: str) -> Callable[[Class], Class]:
    """Class decorator (under ``@dataclass``): each annotated field's default is the key of the
    same name in the packaged ``[section]``; ``elsewhere`` maps a field to a ``"section.key"`` of
    another section. In a field whose type allows ``None``, ``""`` stands for ``None`` (TOML has
    no null; :func:`none_for_empty`). A field the file does not define is an error at import;
    a field given a default in the class body is no setting (run state, like a batch's pipeline)
    and keeps it."""
    def apply(cls: Class) -> Class:
        config = packaged_config()
        for name in inspect.get_annotations(cls):
            if name in vars(cls):
                continue
            table_name, _, key = elsewhere.get(name, f"{section}.{name}").rpartition(".")
            if key not in config[table_name]:
                raise TypeError(f"{cls.__name__}.{name}: no default {table_name}.{key} in "
                                "defaults.toml")
            setattr(cls, name, config[table_name][key])
        for name, value in none_for_empty(cls, vars(cls)).items():
            setattr(cls, name, value)
        return cls
    return apply


def none_for_empty(cls: type, values: dict[str, Any]) -> dict[str, Any]:
    """``values`` of ``cls``'s annotated fields with ``""`` as ``None`` where the field's type
    allows ``None`` (how TOML writes "unset")."""
    annotations = inspect.get_annotations(cls)
    return {name: None if value == "" and "None" in str(annotations.get(name, "")) else value
            for name, value in values.items() if name in annotations}


def _expected(default: Any) -> type | None:
    """The type a setting must have: its default's (``None``: anything)."""
    for kind in (bool, int, float, str, list, dict):
        if isinstance(default, kind):
            return kind
    return None


@functools.cache
def _strict(kind: type) -> Any:
    """``kind`` for pydantic: no coercion (an integer may stand for a number), finite numbers."""
    from pydantic import AllowInfNan, Strict

    return Annotated[kind, Strict(), AllowInfNan(False)] if kind is float \
        else Annotated[kind, Strict()]


@functools.cache
def _adapter(kind: type) -> Any:
    from pydantic import TypeAdapter

    return TypeAdapter(kind if dataclasses.is_dataclass(kind) else _strict(kind))


def check_like_default(default: Any, value: Any, where: str) -> Any:
    """``value`` if it has the type of ``default`` (an integer may stand for a finite number;
    ``true`` is not an integer), else a :class:`UsageError` naming ``where``: the one type rule
    of every setting, so ``min_tokens = "5"`` fails when read, not as a TypeError on a page.

    >>> check_like_default(0.5, 1, "share")
    1
    >>> check_like_default(3, True, "[dedup] shingle_words")
    Traceback (most recent call last):
    wps.errors.UsageError: [dedup] shingle_words must be an integer, not True
    """
    from pydantic import ValidationError

    kind = _expected(default)
    if kind is None:
        return value
    try:
        _adapter(kind).validate_python(value)
    except ValidationError:
        raise UsageError(f"{where} must be {_TYPE_NAMES[kind]}, not {value!r}") from None
    return value


@dataclasses.dataclass(frozen=True, slots=True)
class RunConfig:
    """A resolved configuration, one frozen dataclass per section (``config.capture.frames``);
    :meth:`section` gives one back as the dict the steps read."""

    sections: dict[str, Any]

    def __getattr__(self, name: str) -> Any:
        try:
            return self.sections[name]
        except KeyError:
            raise AttributeError(name) from None

    def section(self, name: str) -> dict[str, Any]:
        value = self.sections[name]
        return copy.deepcopy(value) if name in OPEN_SECTIONS else dataclasses.asdict(value)


@functools.cache
def _section_type(name: str) -> type:
    """The frozen dataclass of the packaged section ``name``: its keys, typed by their
    defaults."""
    table = packaged_config()[name]
    fields = [(key, _strict(kind) if (kind := _expected(value)) else Any)
              for key, value in table.items()]
    title = "".join(part.title() for part in name.split("_")) + "Section"
    kind = dataclasses.make_dataclass(title, fields, frozen=True, slots=True)
    kind.__module__ = __name__
    kind.__pydantic_config__ = {"extra": "forbid"}  # type: ignore[attr-defined]
    return kind


def run_config(config: dict[str, Any], source: str = "config") -> RunConfig:
    """``config`` (every packaged section present, as :func:`wps.config.load_config` gives it)
    validated at once and typed; a wrong type is a :class:`UsageError` naming the setting."""
    from pydantic import ValidationError

    packaged = packaged_config()
    sections: dict[str, Any] = {}
    for name, table in config.items():
        if name not in packaged or name in OPEN_SECTIONS or not isinstance(table, dict):
            sections[name] = table
            continue
        kind = _section_type(name)
        try:
            sections[name] = _adapter(kind).validate_python(table)
        except ValidationError as err:
            first = err.errors()[0]
            key = ".".join(str(part) for part in first["loc"])
            if first["type"] == "missing":
                raise UsageError(f"{source}: missing setting '{name}.{key}'") from None
            if first["type"] == "unexpected_keyword_argument":
                raise UsageError(f"{source}: unknown setting '{name}.{key}'") from None
            default = packaged[name].get(key)
            check_like_default(default, table.get(key), f"{source}: '{name}.{key}'")
            raise UsageError(f"{source}: '{name}.{key}': {first['msg']}") from None
    return RunConfig(sections)


def to_toml(config: dict[str, Any]) -> str:
    """``config`` as TOML text (top-level keys first, then each table), for ``wps config
    show``."""
    import tomli_w

    return tomli_w.dumps(config)
