"""The DOM walk: one ``page.evaluate`` of ``walk.js`` returning one JSON string, turned into Nodes.

One round trip, not one call per node: the walk computes both XPaths, page-coordinate boxes,
computed styles, own text, ``inside`` contexts and depth in the page, and serialises the result
with ``JSON.stringify`` (Playwright's structured serialiser is an order of magnitude slower).
"""

from __future__ import annotations

import gc
import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from ..model import CONTEXT_TAGS, TEXT_TAG, Node

STYLE_PROPERTIES: tuple[str, ...] = (
    "display", "visibility", "position", "float", "z-index", "opacity", "overflow",
    "font-size", "font-weight", "font-style", "font-family", "line-height", "text-align",
    "color", "background-color", "background-image",
)
"""Computed-style properties recorded for every element; text nodes have none (use the parent's)."""

SKIPPED_TAGS: tuple[str, ...] = ("SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE")
"""Elements never captured, with their subtrees: they hold no rendered content."""

MAX_STYLE_CHARS = 200
"""Long computed values (data-URL backgrounds, font stacks) are cut to keep captures small."""


@dataclass(slots=True)
class DomWalk:
    """What the walk returns: the nodes, the page size it saw and its in-page time."""

    nodes: list[Node]
    page_height: int
    page_width: int
    walk_ms: float


@lru_cache(maxsize=1)
def walk_script() -> str:
    """The JavaScript of the walk, read once from the package."""
    return resources.files(__package__).joinpath("walk.js").read_text(encoding="utf-8")


def walk_arguments() -> dict[str, Any]:
    return {
        "contexts": CONTEXT_TAGS,
        "styles": list(STYLE_PROPERTIES),
        "skip": list(SKIPPED_TAGS),
        "maxStyleChars": MAX_STYLE_CHARS,
    }


def parse_walk(payload: str) -> DomWalk:
    """Turn the walk's JSON string into :class:`~wps.model.Node` objects.

    The walk sends one XPath step per node; full XPaths are the parent's plus the step. The
    cyclic garbage collector is paused meanwhile: 100k new objects trigger it dozens of times
    for nothing (none of them form cycles).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _parse_walk(payload)
    finally:
        if enabled:
            gc.enable()


def _parse_walk(payload: str) -> DomWalk:
    data = json.loads(payload)
    tags: list[str] = data["tags"]
    styles = [tuple(values) for values in data["styles"]]
    insides = [frozenset(value.split(",")) if value else frozenset() for value in data["insides"]]
    rows = data["nodes"]
    xpaths: list[str] = [""] * len(rows)
    xpaths_all: list[str] = [""] * len(rows)
    depths: list[int] = [0] * len(rows)
    nodes: list[Node] = []
    for index, row in enumerate(rows):
        parent, tag_index, visible, all_index, left, top, right, bottom, text, style, inside = row
        tag = tags[tag_index]
        if parent < 0:
            xpath, xpath_all, depth, parent = data["rootXpath"], data["rootXpathAll"], \
                data["rootDepth"], None
        else:
            step = "text()" if tag == TEXT_TAG else tag
            xpath = f"{xpaths[parent]}/{step}[{visible}]"
            xpath_all = f"{xpaths_all[parent]}/{step}[{all_index}]"
            depth = depths[parent] + 1
        xpaths[index], xpaths_all[index], depths[index] = xpath, xpath_all, depth
        nodes.append(
            Node(
                id=index,
                parent=parent,
                tag=tag,
                xpath=xpath,
                bbox=(left, top, right, bottom),
                text=text,
                xpath_all=xpath_all,
                style=dict(zip(STYLE_PROPERTIES, styles[style])) if style >= 0 else {},
                inside=insides[inside],
                depth=depth,
            )
        )
    return DomWalk(
        nodes=nodes,
        page_height=int(data["height"]),
        page_width=int(data["width"]),
        walk_ms=float(data["walk_ms"]),
    )


async def walk_dom(page: Any) -> DomWalk:
    """Run the walk in ``page`` (a Playwright async Page) and parse its result."""
    payload = await page.evaluate(walk_script(), walk_arguments())
    return parse_walk(payload)
