"""Data derived from installed packages, kept on disk between runs so that a process's start does
not derive it again: py3langid's model decompressed (0.45 s to load from the package, 0.04 s
from here) and jusText's union of its stoplists (0.15 s). Every ``wps segment`` and every batch's
fork server paid for both before its first page.

A cached file is named by what it was derived from (the package's version and a digest of the
source's content, so that every install of the same package shares it, and a new one replaces the
old: the folder does not grow with reinstalls), written atomically, and read without unpickling
anything. The folder is ``$WPS_CACHE_DIR``, else ``$XDG_CACHE_HOME/wps``, else ``~/.cache/wps``.
Where it cannot be read or written, the data is derived in memory as before.
"""

from __future__ import annotations

import glob
import hashlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from .errors import WpsError
from .files import atomic_file

__all__ = ["cache_dir", "cached_file", "cached_path", "source_key"]


def cache_dir() -> Path:
    """Where derived data is kept (see the module docstring)."""
    base = os.environ.get("WPS_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or "~/.cache", "wps")
    return Path(base).expanduser()


def source_key(path: str | Path, version: str) -> str:
    """What a derived file depends on: ``version`` and a digest of ``path``'s content (a file's
    bytes, 10 ms for py3langid's 4.5 MB model; a folder's file names and sizes)."""
    path = Path(path)
    digest = hashlib.blake2b(digest_size=8)
    if path.is_dir():
        for child in sorted(path.iterdir()):
            digest.update(f"{child.name}\0{child.stat().st_size}\n".encode())
    else:
        digest.update(path.read_bytes())
    return f"{version}-{digest.hexdigest()}"


def cached_path(name: str, key: str) -> Path:
    """Where the cache file ``name`` (``stem.suffix``) derived for ``key`` is kept."""
    stem, dot, suffix = name.partition(".")
    return cache_dir() / f"{stem}-{key}{dot}{suffix}"


def cached_file(name: str, key: str, write: Callable[[IO[Any]], None]) -> Path | None:
    """The cache file ``name`` (``stem.suffix``) derived for ``key``, written by ``write``
    (given the open binary file) if it is not there yet, when it replaces the files of ``name``
    derived for other keys; ``None`` if it cannot be written."""
    stem, dot, suffix = name.partition(".")
    path = cached_path(name, key)
    folder = path.parent
    if path.is_file():
        return path
    try:
        with atomic_file(path, binary=True) as stream:
            write(stream)
        for older in folder.glob(f"{glob.escape(stem)}-*{dot}{glob.escape(suffix)}"):
            if older != path:
                older.unlink(missing_ok=True)
    except (OSError, WpsError):
        return path if path.is_file() else None  # written; an older one may be left
    return path
