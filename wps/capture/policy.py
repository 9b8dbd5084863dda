"""What a page may load and which of its frames are captured: one decision per request URL.

A local page is confined to its own folder tree: it may load subresources (stylesheets, images,
fonts) from the folder it lies in and below, never another ``file:`` document (no iframe of
``/etc/passwd``, no refresh or ``location`` to another file) and never the network. Symlinks are
resolved before the check, and a file with more than one hard link is refused: a hard link is
another name of a file that may lie anywhere on the same file system. A page from
the web may load third-party subresources (real pages need their CSS and fonts) unless
``same_origin`` is set, which keeps everything, its navigations and frames too, to the origin of
the URL given; iframes of another origin are neither loaded nor captured unless
``frames="all"``: third-party frames are ads, trackers and embeds, not the page's own text.
Which *addresses* a web page may reach is the egress proxy's decision (:mod:`.egress`), which
also holds every request, each redirect hop included, to that origin under ``same_origin``
(redirects never come back to this policy).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from .addresses import url_origin
from .sources import PageSource

INERT_SCHEMES = ("data:", "blob:", "about:")
"""URLs that load nothing from outside the page."""


@dataclass(frozen=True, slots=True)
class RequestPolicy:
    """The rules for one page; ``allow_request`` is asked for every request the page makes."""

    page_url: str
    """What the browser opens (a local page's temporary copy for gzipped input)."""
    local_roots: tuple[str, ...] = ()
    """Folders (with a trailing ``/``) a local page may load subresources from; empty for web."""
    same_origin: bool = False
    frames: str = "same-origin"

    @classmethod
    def for_source(cls, source: PageSource, *, same_origin: bool = False,
                   frames: str = "same-origin") -> RequestPolicy:
        roots: tuple[str, ...] = ()
        if source.is_file:
            folders = {_folder_of(source.url), _folder_of(source.navigate_url)}
            roots = tuple(sorted(folders))
        return cls(source.navigate_url, roots, same_origin, frames)

    @property
    def is_local(self) -> bool:
        return bool(self.local_roots)

    def local_folders(self) -> list[str]:
        """``file:`` URLs (ending in ``/``) of the folders a local page's subresources may lie
        in: its roots, and the page's own folder as written (before links are resolved).
        Chromium refuses every other ``file:`` request itself (:mod:`.tabs`), also one that
        reaches a root through another folder's link (the handler alone let that through)."""
        written = self.page_url[:self.page_url.rindex("/") + 1]
        roots = [Path(root).as_uri().rstrip("/") + "/" for root in self.local_roots]
        return sorted({written, *roots})

    def allow_request(self, url: str, *, is_document: bool, is_main_frame: bool,
                      main_url: str) -> bool:
        """May the page load ``url``? ``main_url``: where the main frame is now (after redirects).

        Documents are the main frame's navigations and iframes; the rest are subresources.
        """
        if self.is_local:
            return self._allow_local(url, is_document=is_document)
        if is_document and is_main_frame:
            return self.allow_main_frame(url)  # the proxy checks addresses and redirect hops
        if is_document:
            return self.allow_frame(url, main_url)
        if url.startswith(INERT_SCHEMES):
            return True
        return _is_web(url) and self._on_origin(url)

    def allow_frame(self, url: str, main_url: str) -> bool:
        """May the content of a frame now at ``url`` be loaded and captured?"""
        if url in ("about:blank", "about:srcdoc") or url.startswith(("data:", "blob:")):
            return self.frames != "none"
        if self.is_local or self.frames == "none":
            return False  # a local page never frames another file
        if self.frames == "all":
            return _is_web(url) and self._on_origin(url)
        return _is_web(url) and self._on_origin(url) and _same_origin(url, main_url)

    def allow_main_frame(self, url: str) -> bool:
        """Is the main frame, after loading, still a page we may capture?"""
        if self.is_local:
            return _same_file(url, self.page_url)
        return _is_web(url) and self._on_origin(url)

    def main_frame_refusal(self, url: str) -> str:
        """Why the main frame may not go to ``url`` (for the error that names it)."""
        if self.is_local:
            return "a local page stays on its own file"
        if not _is_web(url):
            return "only http(s) pages are captured"
        return f"not the origin of {self.page_url} (--same-origin)"

    def _on_origin(self, url: str) -> bool:
        """Within what ``same_origin`` allows: the origin of the URL given, else anywhere."""
        return not self.same_origin or _same_origin(url, self.page_url)

    def _allow_local(self, url: str, *, is_document: bool) -> bool:
        if url.startswith(INERT_SCHEMES):
            return True
        if not url.startswith("file:"):
            return False
        if is_document:
            return _same_file(url, self.page_url)
        path = _file_path(url)
        if path is None:
            return False
        return any(path.startswith(root) for root in self.local_roots) and not _hard_link(path)


def _folder_of(file_url: str) -> str:
    return str(Path(_file_path(file_url) or "/").parent).rstrip("/") + "/"


def _file_path(file_url: str) -> str | None:
    """The normalised local path of a ``file:`` URL (``..`` and symlinks resolved, so no
    climbing out); ``None`` for one no file can have (a NUL byte, ``%00``)."""
    path = unquote(urlsplit(file_url).path)
    if "\x00" in path:
        return None
    return str(Path("/" + path.lstrip("/")).resolve(strict=False))


def _hard_link(path: str) -> bool:
    """Is ``path`` a regular file with more than one name? (A missing file is not: it loads
    nothing.)"""
    try:
        status = os.stat(path)
    except (OSError, ValueError):
        return False
    return stat.S_ISREG(status.st_mode) and status.st_nlink > 1


def _same_file(url: str, page_url: str) -> bool:
    if not url.startswith("file:"):
        return False
    path = _file_path(url)
    return path is not None and path == _file_path(page_url)


def _is_web(url: str) -> bool:
    return url.startswith(("http://", "https://"))


def _same_origin(url: str, other: str) -> bool:
    origin = url_origin(url)
    return origin is not None and origin == url_origin(other)
