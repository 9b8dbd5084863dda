"""The list of pages a batch renders: one URL or local file per line, keyed by a stable hash."""

from __future__ import annotations

from pathlib import Path

from ..capture.sources import is_url, page_id_for
from ..errors import InputFileError
from ..files import read_text


def read_source_list(path: str | Path) -> list[str]:
    """Sources in ``path``: one per line; blank lines and ``#`` comments skipped, repeats dropped.

    Relative file paths are taken relative to the list's folder, so a list travels with its files.
    """
    path = Path(path)
    lines = read_text(path, "URL list").splitlines()
    sources: list[str] = []
    seen: set[str] = set()
    for line in lines:
        entry = line.strip()
        if not entry or entry.startswith("#"):
            continue
        if not is_url(entry):
            local = Path(entry).expanduser()
            entry = str(local if local.is_absolute() else (path.parent / local).resolve())
        if entry not in seen:
            seen.add(entry)
            sources.append(entry)
    if not sources:  # most likely the wrong file: say so instead of "0 pages done"
        raise InputFileError(f"{path}: no URL or file listed (only blank lines and # comments)")
    return sources


def source_key(source: str) -> str:
    """The folder name of a source's output: the capture's ``page_id`` (SHA-1 prefix of the URL)."""
    if is_url(source):
        return page_id_for(source)
    return page_id_for(Path(source).resolve().as_uri())
