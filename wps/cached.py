"""Data derived from installed packages, kept on disk between runs so that a process's start does
not derive it again: py3langid's model decompressed (0.45 s to load from the package, 0.04 s
from here) and jusText's union of its stoplists (0.15 s). Every ``wps segment`` and every batch's
fork server paid for both before its first page.

A cached file is named by what it was derived from (the package's version and the source file's
size and modification time), written atomically, and read without unpickling anything. The
folder is ``$WPS_CACHE_DIR``, else ``$XDG_CACHE_HOME/wps``, else ``~/.cache/wps``. Where it cannot
be read or written, the data is derived in memory as before.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from .errors import WpsError
from .files import atomic_file

__all__ = ["cache_dir", "cached_file", "source_key"]


def cache_dir() -> Path:
    """Where derived data is kept (see the module docstring)."""
    base = os.environ.get("WPS_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or "~/.cache", "wps")
    return Path(base).expanduser()


def source_key(path: str | Path, version: str) -> str:
    """What a derived file depends on: ``version`` and ``path``'s size and modification time."""
    status = os.stat(path)
    return f"{version}-{status.st_size}-{status.st_mtime_ns}"


def cached_file(name: str, key: str, write: Callable[[IO[Any]], None]) -> Path | None:
    """The cache file ``name`` (``stem.suffix``) derived for ``key``, written by ``write``
    (given the open binary file) if it is not there yet; ``None`` if it cannot be written."""
    stem, dot, suffix = name.partition(".")
    path = cache_dir() / f"{stem}-{key}{dot}{suffix}"
    if path.is_file():
        return path
    try:
        with atomic_file(path, binary=True) as stream:
            write(stream)
    except (OSError, WpsError):
        return None
    return path
