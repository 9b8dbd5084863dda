"""The DOM walk: one ``page.evaluate`` of ``walk.js`` returning one JSON string, turned into Nodes.

One round trip, not one call per node: the walk computes both XPaths, page-coordinate boxes,
computed styles, own text, ``inside`` contexts and depth in the page, and serialises the result
with ``JSON.stringify`` (Playwright's structured serialiser is an order of magnitude slower).
"""

from __future__ import annotations

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
    """Turn the walk's JSON string into :class:`~wps.model.Node` objects."""
    data = json.loads(payload)
    insides: dict[str, frozenset[str]] = {"": frozenset()}
    nodes: list[Node] = []
    for index, row in enumerate(data["nodes"]):
        parent, tag, xpath, xpath_all, left, top, right, bottom, text, style, inside, depth = row
        context = insides.get(inside)
        if context is None:
            context = insides[inside] = frozenset(inside.split(","))
        nodes.append(
            Node(
                id=index,
                parent=None if parent < 0 else parent,
                tag=tag,
                xpath=xpath,
                bbox=(left, top, right, bottom),
                text=text if tag == TEXT_TAG else "",
                xpath_all=xpath_all,
                style=dict(zip(STYLE_PROPERTIES, style)) if style is not None else {},
                inside=context,
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
