"""The plain data passed between the pipeline stages: a page capture, its nodes, its segments.

Coordinates are page pixels (CSS px at device scale factor 1), origin at the top-left corner of the
page, y down. A box is ``(left, top, right, bottom)`` — the order shapely's ``box`` takes and the
Webis-WebSeg-20 ``nodes.csv`` columns hold (there as ``left,bottom,right,top``).
"""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterator

from .errors import InputFileError, WpsError
from .files import read_json, staging_directory

Box = tuple[float, float, float, float]
"""``(left, top, right, bottom)`` in page pixels, y down."""

Ring = list[list[float]]
Polygon = list[Ring]
MultiPolygon = list[Polygon]
"""A Webis segment: polygons, each an outer ring then holes; rings closed (last point = first)."""

TEXT_TAG = "#text"
CAPTURE_FORMAT = "wps-capture/1"

# Ancestor tags that put a node "inside" a region of interest; the text stage uses these to measure
# link, list, table, code and boilerplate shares of a segment's text.
CONTEXT_TAGS: dict[str, str] = {
    "A": "link",
    "UL": "list", "OL": "list", "DL": "list", "MENU": "list",
    "TABLE": "table",
    "CODE": "code", "PRE": "code", "KBD": "code", "SAMP": "code",
    "FORM": "form", "BUTTON": "form", "SELECT": "form", "TEXTAREA": "form", "LABEL": "form",
    "NAV": "nav", "HEADER": "header", "FOOTER": "footer", "ASIDE": "aside",
}


@dataclass(slots=True)
class Node:
    """One visible element or non-blank text node of a rendered page."""

    id: int
    """Index of the node in ``PageCapture.nodes``; stable for the capture."""
    parent: int | None
    tag: str
    """Upper-case tag name, or ``"#text"`` for a text node."""
    xpath: str
    """Webis-style XPath counting visible siblings only (what ``nodes.csv`` holds)."""
    bbox: Box
    text: str = ""
    """The node's own text (text nodes only; elements have ``""``)."""
    xpath_all: str = ""
    """XPath counting all siblings: resolves against the serialised ``dom.html``."""
    style: dict[str, str] = field(default_factory=dict)
    """A subset of the computed style (display, visibility, position, font-size, ...)."""
    inside: frozenset[str] = frozenset()
    """Contexts from ``CONTEXT_TAGS`` values that an ancestor (or the node itself) opens."""
    depth: int = 0
    attrs: dict[str, str] = field(default_factory=dict)
    """Attributes of an element that the later stages read (class, id, role, input type, item
    type; see ``wps.capture.dom.ATTRIBUTES``), only those set."""

    @property
    def is_text(self) -> bool:
        return self.tag == TEXT_TAG

    @property
    def width(self) -> float:
        return self.bbox[2] - self.bbox[0]

    @property
    def height(self) -> float:
        return self.bbox[3] - self.bbox[1]

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["inside"] = sorted(self.inside)
        data["bbox"] = list(self.bbox)
        if not self.attrs:
            del data["attrs"]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Node:
        return cls(
            id=int(data["id"]),
            parent=data.get("parent"),
            tag=data["tag"],
            xpath=data.get("xpath", ""),
            bbox=tuple(float(v) for v in data["bbox"]),  # type: ignore[arg-type]
            text=data.get("text", ""),
            xpath_all=data.get("xpath_all", ""),
            style=dict(data.get("style") or {}),
            inside=frozenset(data.get("inside") or ()),
            depth=int(data.get("depth", 0)),
            attrs={str(k): str(v) for k, v in (data.get("attrs") or {}).items()},
        )


def page_id_for(url: str) -> str:
    """A stable short id of a page: the first 12 hex digits of the SHA-1 of its URL."""
    return _short_sha1(url.encode("utf-8"))


def _short_sha1(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()[:12]


@dataclass(frozen=True, slots=True)
class StoredPage:
    """A page given as HTML (a Python string, stdin, a JSONL ``html`` field, a WARC record),
    rendered offline as a local file is, and the URL it is recorded under (``""``: none known;
    the page id then comes from the HTML, so two different pages never share one).

    With ``archive`` (a WARC file holding the page), the page is replayed instead: rendered
    under its http(s) URL with every request it makes answered from that archive (its
    stylesheets, fonts, images), still with no network."""

    html: bytes
    url: str = ""
    archive: str = ""

    @classmethod
    def of(cls, html: str | bytes, url: str | None = None, archive: str = "") -> StoredPage:
        """From text (encoded as UTF-8) or bytes (kept as they are: the page's own charset)."""
        return cls(html.encode("utf-8", "replace") if isinstance(html, str) else html, url or "",
                   archive)

    @property
    def page_id(self) -> str:
        """The id of a page at ``url`` (:func:`page_id_for`), or of these bytes where no URL is
        known."""
        return page_id_for(self.url) if self.url else _short_sha1(self.html)


@dataclass(slots=True)
class PageCapture:
    """Everything the later stages need from a rendered page; the only input of a segmenter."""

    url: str
    width: int
    """Page width in pixels (the viewport width, 1366 by default)."""
    height: int
    """Full page height in pixels, capped at the screenshot cap."""
    nodes: list[Node]
    html: str = ""
    """The DOM serialised after rendering (what trafilatura reads)."""
    page_id: str = ""
    final_url: str = ""
    title: str = ""
    status: int | None = None
    screenshot: Path | None = None
    screenshot_truncated: bool = False
    """True when the page is taller than the screenshot cap."""
    scroll_truncated: bool = False
    """True when the lazy-loading scroll pass stopped at its step or time bound."""
    incomplete: bool = False
    """True when the page never finished loading and what had rendered by then was captured."""
    unreached: list[dict[str, Any]] = field(default_factory=list)
    """Inner scrolling containers whose content goes on below their box (a comment overlay, a
    chat pane): tag, class, ``hidden_px`` and box. The capture holds only what they show."""
    timings: dict[str, float] = field(default_factory=dict)
    source: str = "browser"
    replay_missing: list[str] = field(default_factory=list)
    """WARC replay: what the page asked for and its archive does not hold (not loaded)."""
    """``"browser"`` for a fresh render, ``"webis"`` for a Webis-WebSeg-20 page folder."""
    _children: list[list[int]] | None = field(default=None, repr=False, compare=False)

    # ----------------------------------------------------------------------------- tree helpers
    def children(self, node_id: int) -> list[int]:
        """Ids of the node's children in document order."""
        if self._children is None:
            table: list[list[int]] = [[] for _ in self.nodes]
            for node in self.nodes:
                if node.parent is not None:
                    table[node.parent].append(node.id)
            self._children = table
        return self._children[node_id]

    def roots(self) -> list[int]:
        return [node.id for node in self.nodes if node.parent is None]

    def descendants(self, node_id: int) -> Iterator[int]:
        """Ids of the node's descendants (not the node), depth-first in document order."""
        stack = list(reversed(self.children(node_id)))
        while stack:
            current = stack.pop()
            yield current
            stack.extend(reversed(self.children(current)))

    def text_of(self, node_id: int) -> str:
        """Text of the node's subtree in document order, text nodes joined by single spaces."""
        node = self.nodes[node_id]
        if node.is_text:
            return node.text
        return " ".join(
            self.nodes[i].text for i in self.descendants(node_id) if self.nodes[i].is_text
        )

    # ------------------------------------------------------------------------------- disk format
    def save(self, directory: str | Path) -> Path:
        """Write ``capture.json`` (+ ``dom.html``, ``screenshot.png``) atomically into ``directory``.

        The files go to a temporary sibling folder first and replace ``directory`` by a rename, so
        a crash never leaves a half-written capture behind.
        """
        directory = Path(directory)
        with staging_directory(directory) as staging:
            screenshot_name = None
            if self.screenshot is not None and Path(self.screenshot).exists():
                screenshot_name = "screenshot.png"
                shutil.copyfile(self.screenshot, staging / screenshot_name)
            (staging / "dom.html").write_text(self.html, encoding="utf-8")
            meta = {
                "format": CAPTURE_FORMAT,
                "url": self.url,
                "final_url": self.final_url,
                "page_id": self.page_id,
                "title": self.title,
                "status": self.status,
                "width": self.width,
                "height": self.height,
                "screenshot": screenshot_name,
                "screenshot_truncated": self.screenshot_truncated,
                "scroll_truncated": self.scroll_truncated,
                "incomplete": self.incomplete,
                "unreached": self.unreached,
                "timings": self.timings,
                "source": self.source,
                "nodes": [node.to_json() for node in self.nodes],
            }
            if self.replay_missing:  # a replayed page only
                meta["replay_missing"] = self.replay_missing
            with open(staging / "capture.json", "w", encoding="utf-8") as handle:
                json.dump(meta, handle, ensure_ascii=False)
        if screenshot_name:
            self.screenshot = directory / screenshot_name
        return directory

    @classmethod
    def load(cls, directory: str | Path) -> PageCapture:
        """Read a capture written by :meth:`save`."""
        directory = Path(directory)
        path = directory / "capture.json"
        meta = read_json(path, "capture",
                         missing=f"{directory}: not a page capture (no capture.json)")
        if not isinstance(meta, dict):
            raise InputFileError(f"{path}: a capture must be a JSON object")
        if meta.get("format") != CAPTURE_FORMAT:
            raise InputFileError(f"{path}: unknown capture format {meta.get('format')!r}")
        try:
            return cls._from_meta(directory, meta)
        except KeyError as err:
            raise InputFileError(f"{path}: malformed capture (missing field {err})") from None
        except (TypeError, ValueError, AttributeError) as err:
            raise InputFileError(f"{path}: malformed capture ({type(err).__name__}: {err})"
                                 ) from None

    @classmethod
    def _from_meta(cls, directory: Path, meta: dict[str, Any]) -> PageCapture:
        html_path = directory / "dom.html"
        screenshot = (folder_image(directory, meta["screenshot"], directory / "capture.json")
                      if meta.get("screenshot") else None)
        return cls(
            url=meta["url"],
            width=int(meta["width"]),
            height=int(meta["height"]),
            nodes=[Node.from_json(item) for item in meta["nodes"]],
            html=html_path.read_text(encoding="utf-8") if html_path.exists() else "",
            page_id=meta.get("page_id", ""),
            final_url=meta.get("final_url", ""),
            title=meta.get("title", ""),
            status=meta.get("status"),
            screenshot=screenshot,
            screenshot_truncated=bool(meta.get("screenshot_truncated")),
            scroll_truncated=bool(meta.get("scroll_truncated")),
            incomplete=bool(meta.get("incomplete")),
            unreached=list(meta.get("unreached") or []),
            timings=dict(meta.get("timings") or {}),
            source=meta.get("source", "browser"),
            replay_missing=[str(url) for url in meta.get("replay_missing") or []],
        )


def folder_image(directory: Path, name: object, named_in: Path,
                 error: type[WpsError] = InputFileError) -> Path:
    """The image file ``name`` of a capture or page folder, checked: a capture's outputs copy it,
    so a hostile folder must not name a file outside itself (``../``, an absolute path, a
    symlink) nor a non-image that would fail deep inside drawing. ``named_in`` (the file that
    names it) is what a one-line ``error`` names."""
    if not isinstance(name, str) or name in ("", ".", "..") or "/" in name or "\\" in name:
        raise error(f"{named_in}: screenshot {name!r} is not a file name inside {directory}")
    path = directory / name
    if path.is_symlink() or not path.is_file():
        raise error(f"{named_in}: screenshot {name!r} is not a regular file in {directory} "
                    "(symlinks are not followed)")
    from PIL import Image

    try:
        with Image.open(path) as image:
            image.verify()
    except (OSError, ValueError, SyntaxError, Image.DecompressionBombError) as err:
        raise error(f"{path}: not an image ({type(err).__name__})") from None
    return path


@dataclass(slots=True)
class Segment:
    """One part of a page: its outline, the nodes it holds, and what the text stages add."""

    id: str
    polygons: MultiPolygon
    node_ids: list[int] = field(default_factory=list)
    parent: str | None = None
    """Id of the enclosing segment for hierarchical segmenters; ``None`` at the top level."""
    text: str = ""
    """Full text of the segment's nodes in reading order."""
    main_text: str = ""
    """The part of the page's extracted main text that falls inside this segment."""
    stats: dict[str, float] = field(default_factory=dict)
    kept: bool = True
    reasons: list[str] = field(default_factory=list)
    """Reason codes of every rule that dropped the segment."""
    extra: dict[str, Any] = field(default_factory=dict)
    """The segmenter's own evidence (``dom_bbox``, ``block_type``, ``mask_score``, ...): free
    fields, written as they are, after the place and text fields of a line."""
    # What the later stages add, one typed field each (``None``: the stage did not run or had
    # nothing to say); ``segments.jsonl`` writes them after ``extra``, in this order
    # (:data:`wps.records.ANNOTATION_FIELDS`).
    post_part: str | None = None
    """Posts step: the piece of a post this is, ``body``, ``quote`` or ``chrome``."""
    post_record: str | None = None
    """Posts step: XPath of the record (post) element the piece belongs to."""
    unsegmented: bool | None = None
    """Text step: made of main text that no segment held (``add_unsegmented``)."""
    main_text_match: dict[str, Any] | None = None
    """Text step: how the segment's text matched the extracted main text: ``overlap``, the
    weakest block ``match`` and its ``score``, and ``comment_share``, the share of its matched
    characters that the extractor took as comments."""
    noise_tail: dict[str, Any] | None = None
    """Noise-tail step: what it cut off the texts (removed text, chunk counts)."""
    page_reasons: list[str] | None = None
    """Why the page is not an article: the filters' page rules, then the decision's verdict."""
    prose_score: float | None = None
    """Decision: the share of the text in sentences."""
    kind: str | None = None
    """Decision: what the segment is (``prose``, ``post``, ``link-list``, ``quote``, ...)."""
    main_text_rescued: bool | None = None
    """Decision: prose the extractor missed, its own text made its main text."""
    rescue_overrides: list[str] | None = None
    """Decision: the filter reasons the rescue overrides, or that a segment kept for the lines
    it holds between the article's writing had (:mod:`wps.decide.between`); ``wps filter`` keeps
    it again only where the rules give no other reason."""
    main_text_untrimmed: str | None = None
    """Decision: the main text the filter rules judged, where lines were cut or a rescue
    replaced it (``wps filter`` judges a written line as the pipeline did)."""
    lines_trimmed: int | None = None
    """Decision: how many non-prose lines were cut from the main text."""
    page_rules: list[str] | None = None
    """Decision: the filters' page rules, once its verdict replaced them in ``page_reasons``."""
    unit: str | None = None
    """Decision: the detector unit of a kept segment, the pieces a detector judges as one text
    (``article``, ``article-N``, ``post-N``, ``prose-N``: :mod:`wps.decide.units`)."""
    lang: str | None = None
    """Language step: the language of a kept segment's detector text (``""``: none found)."""
    lang_score: float | None = None
    dup: dict[str, Any] | None = None
    """Dedup step: the ``dup`` object of text-and-filters.md §6."""
    simhash: str | None = None
    """Dedup step: the text's SimHash in hex (``None`` beside ``dup``: too little text)."""
    binoculars: dict[str, Any] | None = None
    """``wps binoculars``: the detector's scores, or why it skipped the segment."""

    @classmethod
    def from_box(cls, segment_id: str, box: Box, node_ids: list[int] | None = None) -> Segment:
        left, top, right, bottom = box
        ring = [[left, top], [right, top], [right, bottom], [left, bottom], [left, top]]
        return cls(id=segment_id, polygons=[[ring]], node_ids=list(node_ids or []))

    @property
    def bbox(self) -> Box:
        xs = [p[0] for polygon in self.polygons for ring in polygon for p in ring]
        ys = [p[1] for polygon in self.polygons for ring in polygon for p in ring]
        if not xs:
            return (0.0, 0.0, 0.0, 0.0)
        return (min(xs), min(ys), max(xs), max(ys))


@dataclass(slots=True)
class Segmentation:
    """The segments one segmenter found on one page."""

    page_id: str
    segmenter: str
    width: int
    height: int
    segments: list[Segment] = field(default_factory=list)
