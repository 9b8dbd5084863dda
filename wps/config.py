"""Run configuration: packaged defaults (``wps/defaults.toml``) overlaid by a user TOML file.

As in trafilatura's ``use_config``, a user file overrides only the keys it names. Keys inside a
section the defaults define must exist there (a typo is an error, not a silent no-op); sections the
defaults do not define pass through for stages that read them.
"""

from __future__ import annotations

import copy
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

from .errors import InputFileError, UsageError
from .jsonsafe import load_nested

__all__ = ["load_config", "default_config", "merge_config", "check_config", "resolve_config"]

_OPEN_TABLES = {("filters", "segment"), ("filters", "page")}
"""Tables whose keys are rule names: a user may configure a rule the defaults leave unset."""


def default_config() -> dict[str, Any]:
    """The packaged defaults, a fresh copy each call."""
    text = resources.files("wps").joinpath("defaults.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


def load_config(path: str | Path | None = None) -> dict[str, Any]:
    """Defaults overlaid by the TOML file at ``path`` (``None``: defaults only)."""
    config = default_config()
    if path is None:
        return config
    path = Path(path)
    try:
        user = load_nested(path.read_text(encoding="utf-8"), str(path), tomllib.loads)
    except FileNotFoundError:
        raise InputFileError(f"{path}: config file not found") from None
    except (OSError, UnicodeDecodeError) as err:
        raise InputFileError(f"{path}: unreadable config file ({err})") from None
    except tomllib.TOMLDecodeError as err:
        raise InputFileError(f"{path}: invalid TOML ({err})") from None
    return check_config(merge_config(config, user, source=str(path)), source=str(path))


def resolve_config(config: dict[str, Any] | str | Path | None,
                   extractor: str | None = None) -> dict[str, Any]:
    """The run's whole config, resolved once: a dict (already resolved, used as is), a TOML path
    or ``None`` (packaged defaults); ``extractor`` overrides ``[extract] extractor``. Each step
    then receives its own section of it.

    >>> resolve_config(None, extractor="newsfeed")["extract"]["extractor"]
    'newsfeed'
    """
    resolved = load_config(config) if config is None or isinstance(config, (str, Path)) \
        else config
    if extractor is not None:
        resolved = {**resolved, "extract": {**resolved["extract"], "extractor": extractor}}
    return resolved


def merge_config(base: dict[str, Any], overlay: dict[str, Any], source: str = "config",
                 _where: tuple[str, ...] = ()) -> dict[str, Any]:
    """``base`` with ``overlay``'s keys replacing its own, table by table."""
    merged = copy.deepcopy(base)
    for key, value in overlay.items():
        where = (*_where, key)
        if key not in merged:
            if _where and _where not in _OPEN_TABLES and _where[:2] not in _OPEN_TABLES:
                name = ".".join(where)
                raise UsageError(f"{source}: unknown setting {name!r}")
            merged[key] = copy.deepcopy(value)
        elif isinstance(merged[key], dict):
            if not isinstance(value, dict):
                raise UsageError(f"{source}: {'.'.join(where)!r} must be a table")
            merged[key] = merge_config(merged[key], value, source, where)
        else:
            _check_type(merged[key], value, source, where)
            merged[key] = copy.deepcopy(value)
    return merged


def _check_type(default: Any, value: Any, source: str, where: tuple[str, ...]) -> None:
    """A setting keeps its default's TOML type (an integer may stand for a float), so a typo such
    as ``min_tokens = "5"`` is refused here, not met as a TypeError deep in a stage."""
    if isinstance(default, bool):
        expected, fits = "true or false", isinstance(value, bool)
    elif isinstance(default, int):
        expected, fits = "an integer", isinstance(value, int) and not isinstance(value, bool)
    elif isinstance(default, float):
        expected = "a number"
        fits = isinstance(value, (int, float)) and not isinstance(value, bool)
    elif isinstance(default, str):
        expected, fits = "a string", isinstance(value, str)
    elif isinstance(default, list):
        expected, fits = "a list", isinstance(value, list)
    else:
        return
    if not fits:
        raise UsageError(f"{source}: {'.'.join(where)!r} must be {expected}, not {value!r}")


def check_config(config: dict[str, Any], source: str = "config") -> dict[str, Any]:
    """``config`` if every stage can be built from it: the extractor exists and each
    ``[filters.*]`` table names known rules with options of the right type. Run when the file is
    read, so a bad file fails before any page is rendered, not after."""
    from .filters.rules import check_rules_section
    from .text.extract import ExtractOptions

    try:
        ExtractOptions.from_config(config.get("extract", {}))
    except UsageError as err:
        raise UsageError(f"{source}: extract: {err}") from None
    for level, section in config.get("filters", {}).items():
        if level in ("segment", "page"):
            check_rules_section(section, f"{source}: filters.{level}")
    return config
