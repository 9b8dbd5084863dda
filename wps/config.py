"""Run configuration: a packaged profile overlaid by a user TOML file.

Profiles (:data:`PROFILES`): ``detector`` is the packaged defaults (``wps/defaults.toml``): every
piece of human prose, comments included, each a segment, for an AI-text detector. ``article`` is
those defaults overlaid by ``wps/article-profile.toml``: the page's article body, comments off.
A user file picks a profile with a top-level ``profile = "article"`` (or the caller passes
``profile=``, as ``--profile`` does). As in trafilatura's ``use_config``, a user file overrides
only the keys it names. Keys inside a
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
from .settings import check_like_default, packaged_config, run_config

__all__ = ["load_config", "default_config", "profile_config", "merge_config", "check_config",
           "resolve_config", "PROFILES", "DEFAULT_PROFILE"]

PROFILES: dict[str, str | None] = {"detector": None, "article": "article-profile.toml"}
"""Profile name -> packaged TOML overlaying the defaults (``None``: the defaults alone)."""
DEFAULT_PROFILE = "detector"

_OPEN_TABLES = {("filters", "segment"), ("filters", "page"), ("segmenter", "options")}
"""Tables whose keys are rule names or a segmenter's options: a user may set one the defaults
leave unset (the rule or the segmenter checks it)."""
_UNCHECKED_TABLES = {("segmenter", "options")}
"""Tables whose values replace earlier ones whole, of any type: the segmenter checks its options
against its own defaults (:func:`wps.segmenters.build_segmenter`)."""


def default_config() -> dict[str, Any]:
    """The packaged defaults, a fresh copy each call."""
    return packaged_config()


def profile_config(profile: str | None = None) -> dict[str, Any]:
    """The packaged config of ``profile`` (``None``: the default profile, ``detector``)."""
    name = profile or DEFAULT_PROFILE
    if name not in PROFILES:
        raise UsageError(f"unknown profile {name!r}; choose from {sorted(PROFILES)}")
    config = default_config()
    overlay = PROFILES[name]
    if overlay is None:
        return config
    text = resources.files("wps").joinpath(overlay).read_text(encoding="utf-8")
    return merge_config(config, tomllib.loads(text), source=f"profile {name}")


def load_config(path: str | Path | None = None, profile: str | None = None) -> dict[str, Any]:
    """The ``profile``'s config overlaid by the TOML file at ``path`` (``None``: the profile
    alone). A file's top-level ``profile`` names the profile when ``profile`` is not given; both
    naming different profiles is an error."""
    if path is None:
        config = profile_config(profile)
        config["profile"] = profile or DEFAULT_PROFILE
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
    named = user.pop("profile", None)
    if named is not None and not isinstance(named, str):
        raise UsageError(f"{path}: 'profile' must be a string, not {named!r}")
    if named is not None and profile is not None and named != profile:
        raise UsageError(f"{path}: names profile {named!r} but profile {profile!r} was asked for")
    name = profile or named or DEFAULT_PROFILE
    config = profile_config(name)
    merged = check_config(merge_config(config, user, source=str(path)), source=str(path))
    merged["profile"] = name
    return merged


def resolve_config(config: dict[str, Any] | str | Path | None,
                   extractor: str | None = None, profile: str | None = None) -> dict[str, Any]:
    """The run's whole config, resolved once: a dict (already resolved, used as is), a TOML path
    or ``None`` (the packaged ``profile``, default ``detector``); ``extractor`` overrides
    ``[extract] extractor``. Each step then receives its own section of it.

    >>> resolve_config(None, extractor="newsfeed")["extract"]["extractor"]
    'newsfeed'
    """
    resolved = load_config(config, profile) \
        if config is None or isinstance(config, (str, Path)) else config
    if extractor is not None:
        resolved = {**resolved, "extract": {**resolved["extract"], "extractor": extractor}}
    return resolved


def merge_config(base: dict[str, Any], overlay: dict[str, Any], source: str = "config",
                 _where: tuple[str, ...] = ()) -> dict[str, Any]:
    """``base`` with ``overlay``'s keys replacing its own, table by table."""
    merged = copy.deepcopy(base)
    for key, value in overlay.items():
        where = (*_where, key)
        if key not in merged or _where in _UNCHECKED_TABLES:
            if _where and _where not in _OPEN_TABLES and _where[:2] not in _OPEN_TABLES:
                name = ".".join(where)
                raise UsageError(f"{source}: unknown setting {name!r}")
            merged[key] = copy.deepcopy(value)
        elif isinstance(merged[key], dict):
            if not isinstance(value, dict):
                raise UsageError(f"{source}: {'.'.join(where)!r} must be a table")
            merged[key] = merge_config(merged[key], value, source, where)
        else:
            check_like_default(merged[key], value, f"{source}: {'.'.join(where)!r}")
            merged[key] = copy.deepcopy(value)
    return merged


def check_config(config: dict[str, Any], source: str = "config") -> dict[str, Any]:
    """``config`` if every stage can be built from it: the extractor exists and each
    ``[filters.*]`` table names known rules with options of the right type, every section is
    typed (:func:`wps.settings.run_config`). Run when the file is read, so a bad file fails
    before any page is rendered, not after."""
    from .filters.rules import check_rules_section
    from .text.extract import ExtractOptions

    run_config(config, source)
    try:
        ExtractOptions.from_config(config.get("extract", {}))
    except UsageError as err:
        raise UsageError(f"{source}: extract: {err}") from None
    for level, section in config.get("filters", {}).items():
        if level in ("segment", "page"):
            check_rules_section(section, f"{source}: filters.{level}")
    return config
