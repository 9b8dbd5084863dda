"""Visual layout evidence for the DOM-cohesion segmenter: columns, background bands, layout tables
and posts.

The tree signal can be weak exactly where a page's layout is strong. A wrapper with two children
(a header and the rest) has H = 0 by definition, so the outlier rule never splits it, and a
wrapper narrower than the page (a white column on a coloured background) never exceeds the
page-fraction rule: a styled page then comes out as one segment. What the capture shows settles
it instead: a large element whose children stand side by side (a vertical band no child crosses,
found as VIPS finds separators) or sit on different backgrounds (computed ``background-color``
on browser captures, the screenshot's colours on Webis folders) holds several regions.

Tables used for layout (cells holding headings, lists, forms, nested tables or several blocks)
are layout, not running text: they are split like ``div`` layout. Posts found by
:func:`wps.posts.find_posts` (records named and repeated as posts) are one segment each, with
their replies.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ...model import Box, PageCapture
from ...page.tree import nearest
from ..geometry import find_separators, screenshot_pixels

TABLE_PARTS = frozenset("TABLE THEAD TBODY TFOOT TR TD TH CAPTION".split())
CELL_TAGS = frozenset({"TD", "TH"})
LAYOUT_CELL_CONTENT = frozenset(
    "H1 H2 H3 H4 H5 H6 UL OL DL TABLE FORM NAV HEADER FOOTER ASIDE SECTION ARTICLE".split())
"""A cell holding one of these is a layout cell, not a data cell."""
BLOCK_CHILD_TAGS = frozenset("DIV P PRE BLOCKQUOTE FIGURE CENTER ADDRESS HR".split()) \
    | LAYOUT_CELL_CONTENT
MIN_LAYOUT_CELL_BLOCKS = 2
"""A cell with at least this many block-level children is a layout cell too (one ``<p>`` or
``<div>`` wrapper around a value is still data)."""
COLUMN_TOLERANCE_PX = 2.0
"""Boxes overlapping by this much still leave a column gap between them (layout rounding)."""
SAMPLES_PER_SIDE = 12
"""A region's colour is the median of about 12 × 12 screenshot pixels spread over its box."""
_RGB = re.compile(r"rgba?\(\s*([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)(?:\s*[,/]\s*([\d.]+%?))?\s*\)")


def layout_tables(page: PageCapture) -> set[int]:
    """Ids of the table elements (table, sections, rows, cells) of tables used for layout."""
    tables: set[int] = set()
    for node in page.nodes:
        if node.tag in CELL_TAGS and _layout_cell(page, node.id):
            table = nearest(page, node.id, "TABLE")
            if table is not None:
                tables.add(table)
    if not tables:
        return set()
    parts = set(tables)
    for node in page.nodes:
        if node.tag in TABLE_PARTS and nearest(page, node.id, "TABLE") in tables:
            parts.add(node.id)
    return parts


def _layout_cell(page: PageCapture, cell: int) -> bool:
    tags = [page.nodes[kid].tag for kid in page.children(cell)]
    return (any(tag in LAYOUT_CELL_CONTENT for tag in tags)
            or sum(tag in BLOCK_CHILD_TAGS for tag in tags) >= MIN_LAYOUT_CELL_BLOCKS)


HEADING_TAGS = frozenset("H1 H2 H3 H4 H5 H6".split())


def headed_nodes(page: PageCapture) -> np.ndarray:
    """Per node: a box that opens with a heading and holds more than it (a sidebar widget, a
    section); a bare heading is not one."""
    opens = np.zeros(len(page.nodes), dtype=bool)  # the first text in the subtree is a heading's
    decided = np.zeros(len(page.nodes), dtype=bool)
    headed = np.zeros(len(page.nodes), dtype=bool)
    for node in reversed(page.nodes):  # children come after their parents: bottom-up
        if node.is_text:
            continue
        if node.tag in HEADING_TAGS:
            opens[node.id], decided[node.id] = True, True
            continue
        kids = page.children(node.id)
        for kid in kids:
            if decided[kid] or (page.nodes[kid].is_text and page.nodes[kid].text.strip()):
                opens[node.id] = bool(opens[kid]) if decided[kid] else False
                decided[node.id] = True
                break
        headed[node.id] = bool(opens[node.id]) and (
            len(kids) > 1 or (len(kids) == 1 and headed[kids[0]]))
    return headed


@dataclass(slots=True)
class PostUnits:
    """Top-level posts (each one segment with its replies) and the elements that hold them."""

    tops: set[int] = field(default_factory=set)
    holders: set[int] = field(default_factory=set)


def post_units(page: PageCapture) -> PostUnits:
    """The records :func:`wps.posts.find_posts` finds by names and declarations that lie in no
    other record, and their ancestors (which must be split so that each post is a segment).

    Records found by repeated structure alone are left to the posts step, which cuts them out
    for the detector after segmentation: a layout segmenter that split them too took a news
    page's comment section (one region to the Webis annotators) apart, webseg-dev wd00015 .92
    to .49 mean F, and no dev page gained."""
    from ...posts import Evidence, find_posts

    posts = find_posts(page, Evidence(structure=False))
    units = PostUnits()
    for record in posts.records:
        parent = page.nodes[record].parent
        if parent is not None and posts.record_of[parent] >= 0:
            continue  # a reply: it stays with its post
        units.tops.add(record)
        while parent is not None and parent not in units.holders:
            units.holders.add(parent)
            parent = page.nodes[parent].parent
    return units


@dataclass(slots=True)
class Backgrounds:
    """The colour each region is drawn on, from computed styles or else from the screenshot."""

    page: PageCapture
    styled: np.ndarray | None = None
    """Per node, its effective background (own or nearest ancestor's) as RGB; ``None`` when
    the capture records no background colours (Webis folders)."""
    image: Any = None
    image_read: bool = False

    @classmethod
    def of(cls, page: PageCapture, screenshot: bool = True) -> Backgrounds:
        """``screenshot``: read colours from the screenshot where styles do not give them."""
        return cls(page, _effective_backgrounds(page), image_read=not screenshot)

    def colour(self, node_ids: list[int], box: Box) -> np.ndarray | None:
        """The background of a group of sibling nodes (``None``: unknown)."""
        if self.styled is not None:
            colours = self.styled[node_ids]
            return colours[0] if (colours == colours[0]).all() else None
        image = self._image()
        if image is None:
            return None
        left, top = max(int(box[0]), 0), max(int(box[1]), 0)
        right, bottom = min(int(box[2]), image.shape[1]), min(int(box[3]), image.shape[0])
        if right - left < 2 or bottom - top < 2:
            return None
        step_y = max(1, (bottom - top) // SAMPLES_PER_SIDE)
        step_x = max(1, (right - left) // SAMPLES_PER_SIDE)
        samples = image[top:bottom:step_y, left:right:step_x].reshape(-1, 3)
        return np.median(samples, axis=0)

    def _image(self) -> Any:
        if not self.image_read:
            self.image_read = True
            shot = self.page.screenshot
            if shot is not None and Path(shot).exists():
                self.image = screenshot_pixels(shot)
        return self.image


def _effective_backgrounds(page: PageCapture) -> np.ndarray | None:
    """Per node the first opaque ``background-color`` on its ancestor path (white at the top)."""
    if not any("background-color" in node.style for node in page.nodes if not node.is_text):
        return None
    colours = np.full((len(page.nodes), 3), 255.0)
    for node in page.nodes:  # parents come before their children
        own = _parse_colour(node.style.get("background-color", "")) if not node.is_text else None
        if own is not None:
            colours[node.id] = own
        elif node.parent is not None:
            colours[node.id] = colours[node.parent]
    return colours


def _parse_colour(value: str) -> np.ndarray | None:
    """An opaque CSS ``rgb()``/``rgba()`` colour as an array; ``None`` for transparent ones."""
    match = _RGB.fullmatch(value.strip())
    if match is None:
        return None
    alpha = match.group(4)
    if alpha is not None:
        opacity = float(alpha[:-1]) / 100 if alpha.endswith("%") else float(alpha)
        if opacity < 0.5:
            return None
    return np.asarray([float(match.group(k)) for k in (1, 2, 3)])


@dataclass(slots=True)
class LayoutState:
    """Per page, what the segmenter's visual split rules read."""

    content_area: float
    """Area of the page's drawn content (the root's subtree), what ``visual_split_fraction``
    is a share of."""
    tables: set[int]
    """The parts of layout tables (:func:`layout_tables`)."""
    posts: PostUnits
    headed: np.ndarray
    """:func:`headed_nodes`."""
    backgrounds: Backgrounds = field(repr=False)


def stand_apart(boxes: list[Box], groups: list[list[int]], backgrounds: Backgrounds | None,
                delta: float) -> bool:
    """Whether sibling groups form visually separate regions: side by side (a column gap that
    no group crosses) or, with ``backgrounds``, neighbours drawn on different colours."""
    if len(boxes) < 2:
        return False
    array = np.asarray(boxes, dtype=float)
    if find_separators(array, 0, COLUMN_TOLERANCE_PX):
        return True
    if backgrounds is None:
        return False
    colours = [backgrounds.colour(group, box) for group, box in zip(groups, boxes)]
    order = np.argsort(array[:, 1], kind="stable")
    for first, second in zip(order[:-1], order[1:]):
        a, b = colours[first], colours[second]
        if a is not None and b is not None and float(np.abs(a - b).sum()) > delta:
            return True
    return False
