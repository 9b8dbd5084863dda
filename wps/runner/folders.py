"""Readable page folder names for ``wps batch``: host, a slug of the path, and the page id.

A folder of bare hashes says nothing to someone browsing ``DIR``; ``example.com_news-a-story_
3f2a9c1b0d4e`` does, and its last part (the page's ``page_id``, as before) keeps two pages apart.
A page that an earlier version of wps put in a folder named by its bare ``page_id`` (a marker
``DIR/.done/<page_id>`` or that folder exists) keeps it, so earlier batch folders resume as
they are.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

from ..capture.sources import is_url
from .entries import source_key

__all__ = ["SLUG_CHARS", "page_folder", "page_folder_name"]

SLUG_CHARS = 60
"""The most characters host and path take before the page id (names stay short to type)."""
_UNSAFE = re.compile(r"[^a-z0-9.]+")


def _slug(text: str) -> str:
    """Lower-case letters, digits and dots; every other run of characters one ``-``."""
    return _UNSAFE.sub("-", unquote(text).lower()).strip("-.")


def page_folder_name(location: str, key: str | None = None) -> str:
    """``<host>_<path slug>_<page_id>`` for a URL, ``<file name slug>_<page_id>`` for a local
    file; ``key`` is the page id (:func:`~.entries.source_key` of ``location`` by default).

    >>> page_folder_name("https://www.Example.com/news/A%20story.html?id=3", "3f2a9c1b0d4e")
    'www.example.com_news-a-story.html-id-3_3f2a9c1b0d4e'
    """
    key = key or source_key(location)
    if is_url(location):
        parts = urlsplit(location)
        host, path = _slug(parts.hostname or ""), _slug(parts.path + "-" + parts.query)
    else:
        host, path = "", _slug(Path(location).name)
    head = "_".join(part for part in (host, path) if part)[:SLUG_CHARS].strip("-._")
    return f"{head}_{key}" if head else key


def page_folder(out: Path, location: str, key: str) -> str:
    """The folder name of a page of the batch in ``out``: its bare ``key`` where an earlier run
    left a folder or a marker under that name, else :func:`page_folder_name`."""
    if (out / key).is_dir() or (out / ".done" / key).exists():
        return key
    return page_folder_name(location, key)
