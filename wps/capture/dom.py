"""The DOM walk: one ``page.evaluate`` of ``walk.js`` returning one JSON string, turned into Nodes.

One round trip, not one call per node: the walk computes both XPaths, page-coordinate boxes,
computed styles, own text, ``inside`` contexts and depth in the page, and serialises the result
with ``JSON.stringify`` (Playwright's structured serialiser is an order of magnitude slower).

The walk follows the rendered (flat) tree. XPath convention for nodes outside the light DOM
(``Node.xpath`` and ``Node.xpath_all`` alike; light-DOM nodes keep plain Webis XPaths):

* open shadow root content: the host's XPath, ``/#shadow-root``, then steps counted among the
  shadow root's children, e.g. ``/HTML[1]/BODY[1]/X-CARD[1]/#shadow-root/H3[1]``;
* light-DOM nodes assigned to a ``<slot>``: their light-DOM XPath (``.../X-CARD[1]/P[1]``), while
  ``Node.parent`` is the slot they are rendered in; a slot's box is the union of what it holds;
* iframe content: the IFRAME's XPath, ``/#document``, then the frame document's own XPath
  (``.../IFRAME[1]/#document/HTML[1]/BODY[1]/...``); BODY's parent is the IFRAME node and boxes
  are in page coordinates (frame viewport + the iframe's content-box origin), clipped to the
  iframe's content box (content scrolled out of it gets a zero-size box on its edge).
  Cross-origin frames are walked through their Playwright frame and appended after the main walk.

Closed shadow roots are not reachable from page script: such hosts give their light DOM only.
``xpath_all`` of shadow content does not resolve against ``html`` (shadow roots are serialised
as ``<template shadowrootmode>``), nor does iframe content's (frames are not serialised).
"""

from __future__ import annotations

import asyncio
import gc
import json
import re
import time
from collections.abc import Callable
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

ATTRIBUTES: tuple[str, ...] = ("class", "id", "role", "type", "itemtype", "itemprop", "href")
"""Element attributes recorded when set: the evidence for repeated records (``post``,
``comment``, ``answer`` classes and ids, schema.org item types and properties) and for form
fields (an input's ``type``, password boxes) that boxes and styles do not show. ``href`` only
where it points into the page itself (``#name``: a heading that links to itself is a heading,
not a link away); the walk drops every other address (not evidence, and a capture's bulk)."""

MAX_ATTR_CHARS = 120


MAX_FRAMES = 20
"""Iframes walked per page at most (same- and cross-origin together); the rest are skipped."""

FRAME_TIMEOUT_S = 2.0
"""Time for walking one cross-origin frame; a frame that takes longer is skipped."""


FRAMES_TOTAL_S = 5.0
"""Time for walking all cross-origin frames of a page; frames still waiting then are skipped."""


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(
    r"(?<!\\)((?:\\\\)*)(\\ud[89ab][0-9a-f]{2}\\ud[c-f][0-9a-f]{2}|\\ud[89a-f][0-9a-f]{2})",
    re.IGNORECASE)
"""A ``\\uXXXX`` escape of a surrogate pair or of a lone surrogate, not itself escaped."""


def well_formed(text: str) -> str:
    """``text`` with each lone surrogate replaced by U+FFFD.

    A page's script can put lone surrogates into text nodes, titles and attributes
    (``"\\ud800"``); they reach Python as they are, and no UTF encoding can write them, so every
    later step that encodes text would fail on them.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _LONE_SURROGATE.sub("\ufffd", text)
    return text


def load_walk_json(payload: str) -> dict[str, Any]:
    """A walk's JSON, its lone surrogates as U+FFFD (``JSON.stringify`` writes them, and only
    them, as ``\\udXXX`` escapes, which ``json.loads`` would turn back into surrogates)."""
    if "\\ud" in payload or "\\uD" in payload:
        payload = _SURROGATE_ESCAPE.sub(_lone_escape_replaced, payload)
    return json.loads(payload)


def _lone_escape_replaced(match: re.Match[str]) -> str:
    escape = match.group(2)
    return match.group(0) if len(escape) == 12 else match.group(1) + "\\ufffd"


@dataclass(slots=True)
class DomWalk:
    """What the walk returns: the nodes, the page size it saw, its in-page time and frame counts.

    ``shadow_roots`` counts the open shadow roots walked; ``frames_walked`` / ``frames_skipped``
    count iframes entered / left out (over :data:`MAX_FRAMES`, timed out or detached).
    """

    nodes: list[Node]
    page_height: int
    page_width: int
    walk_ms: float
    shadow_roots: int = 0
    frames_walked: int = 0
    frames_skipped: int = 0


@dataclass(slots=True)
class FramePart:
    """One walk's parsed JSON, and the node (index in the merged list) whose document it walked."""

    data: dict[str, Any]
    frame_node: int | None = None


@lru_cache(maxsize=1)
def walk_script() -> str:
    """The JavaScript of the walk, read once from the package."""
    return resources.files(__package__).joinpath("walk.js").read_text(encoding="utf-8")


def walk_arguments(
    walk_id: int = 0, max_frames: int = MAX_FRAMES, frame: list[float] | None = None
) -> dict[str, Any]:
    """Arguments of walk.js; ``frame``: a frame's viewport origin and clip box in page coordinates
    (``[left, top, clip_left, clip_top, clip_right, clip_bottom]``; None: the main frame)."""
    return {
        "contexts": CONTEXT_TAGS,
        "styles": list(STYLE_PROPERTIES),
        "skip": list(SKIPPED_TAGS),
        "maxStyleChars": MAX_STYLE_CHARS,
        "attributes": list(ATTRIBUTES),
        "maxAttrChars": MAX_ATTR_CHARS,
        "walkId": walk_id,
        "maxFrames": max_frames,
        "frame": frame,
    }


def parse_walk(payload: str | list[FramePart]) -> DomWalk:
    """Turn the walk's JSON string (or the walks of a page's frames) into Nodes.

    The walk sends one XPath step per node; full XPaths are the base node's (the parent's unless
    the row says otherwise) plus a prefix and the step. Frames walked on their own are appended
    after the main walk, their BODY attached to the IFRAME node. The cyclic garbage collector is
    paused meanwhile: 100k new objects trigger it dozens of times for nothing (no cycles).
    """
    parts = [FramePart(load_walk_json(payload))] if isinstance(payload, str) else payload
    enabled = gc.isenabled()
    gc.disable()
    try:
        nodes: list[Node] = []
        xpaths: list[str] = []
        xpaths_all: list[str] = []
        depths: list[int] = []
        for part in parts:
            _parse_part(part, nodes, xpaths, xpaths_all, depths)
    finally:
        if enabled:
            gc.enable()
    main = parts[0].data
    return DomWalk(
        nodes=nodes,
        page_height=int(main["height"]),
        page_width=int(main["width"]),
        walk_ms=sum(float(part.data["walk_ms"]) for part in parts),
        shadow_roots=sum(int(part.data.get("shadowRoots", 0)) for part in parts),
        frames_walked=sum(int(part.data.get("framesWalked", 0)) for part in parts)
        + len(parts) - 1,
        frames_skipped=sum(int(part.data.get("framesSkipped", 0)) for part in parts),
    )


def _parse_part(
    part: FramePart, nodes: list[Node], xpaths: list[str], xpaths_all: list[str],
    depths: list[int],
) -> None:
    data = part.data
    tags: list[str] = data["tags"]
    styles = [tuple(values) for values in data["styles"]]
    insides = [frozenset(value.split(",")) if value else frozenset() for value in data["insides"]]
    attrs = [{name: value for name, value in zip(ATTRIBUTES, values) if value}
             for values in data.get("attrs", [])]
    prefixes = [(visible, every, int(extra)) for visible, every, extra in
                data.get("prefixes", [["", "", "0"]])]
    first = len(nodes)
    frame_inside = nodes[part.frame_node].inside if part.frame_node is not None else frozenset()
    for row in data["nodes"]:
        parent, tag_index, visible, all_index, left, top, right, bottom, text, style, inside, \
            attr = row[:12]
        tag = tags[tag_index]
        if parent < 0 and part.frame_node is None:
            xpath, xpath_all, depth, parent = data["rootXpath"], data["rootXpathAll"], \
                data["rootDepth"], None
        else:
            if parent < 0:  # a frame's BODY: below its IFRAME node, via "/#document/HTML[1]"
                base = parent = part.frame_node
                prefix = (f"/#document{data['rootXpath'].rsplit('/', 1)[0]}",
                          f"/#document{data['rootXpathAll'].rsplit('/', 1)[0]}",
                          int(data["rootDepth"]) + 1)
            else:
                parent += first
                base = parent if len(row) == 12 or row[12] < 0 else row[12] + first
                prefix = prefixes[row[13]] if len(row) > 12 else prefixes[0]
            step = "text()" if tag == TEXT_TAG else tag
            xpath = f"{xpaths[base]}{prefix[0]}/{step}[{visible}]"
            xpath_all = f"{xpaths_all[base]}{prefix[1]}/{step}[{all_index}]"
            depth = depths[base] + prefix[2] + 1
        xpaths.append(xpath)
        xpaths_all.append(xpath_all)
        depths.append(depth)
        nodes.append(
            Node(
                id=len(nodes),
                parent=parent,
                tag=tag,
                xpath=xpath,
                bbox=(left, top, right, bottom),
                text=text,
                xpath_all=xpath_all,
                style=dict(zip(STYLE_PROPERTIES, styles[style])) if style >= 0 else {},
                inside=insides[inside] | frame_inside if frame_inside else insides[inside],
                depth=depth,
                attrs=attrs[attr] if attr >= 0 else {},
            )
        )


async def walk_dom(page: Any, max_frames: int = MAX_FRAMES,
                   frame_allowed: Callable[[str], bool] | None = None) -> DomWalk:
    """Walk ``page`` (a Playwright async Page), then each cross-origin iframe in its own frame.

    Same-origin iframes are walked in the one round trip; an iframe the page's script cannot
    enter is walked through its Playwright frame (``frame.evaluate``, bounded by
    :data:`FRAME_TIMEOUT_S`), boxes offset by the iframe's content-box origin, if
    ``frame_allowed`` says yes to the URL it is at now (the browser's error page of a blocked
    frame and frames of other origins are left out: see :mod:`.policy`).
    """
    payload = await page.evaluate(walk_script(), walk_arguments(0, max_frames))
    parts = [FramePart(load_walk_json(payload))]
    if parts[0].data["frames"]:
        await _walk_child_frames(page, parts, max_frames, frame_allowed or (lambda _url: True))
    return parse_walk(parts)


async def _walk_child_frames(page: Any, parts: list[FramePart], max_frames: int,
                             frame_allowed: Callable[[str], bool]) -> None:
    """Walk the frames the walks listed as pending, breadth first, within the frame budget."""
    from playwright.async_api import Error

    budget = max_frames - _frames_used(parts[0].data)
    offsets = [0]  # index of each part's first node in the merged list
    sizes = [len(parts[0].data["nodes"])]
    pending = len(parts[0].data["frames"])
    queue = list(page.main_frame.child_frames)
    skipped = 0
    stop_at = time.perf_counter() + FRAMES_TOTAL_S
    while queue and pending > 0 and time.perf_counter() < stop_at:
        frame = queue.pop(0)
        queue.extend(frame.child_frames)
        try:
            element = await asyncio.wait_for(frame.frame_element(), FRAME_TIMEOUT_S)
            tag = await asyncio.wait_for(element.evaluate("(el) => el.__wpsFrame || null"),
                                         FRAME_TIMEOUT_S)
        except (Error, TimeoutError):  # detached: if listed, it counts as skipped
            continue
        if not tag:
            continue  # walked in its parent's document, or not rendered
        walk_id, slot = tag
        pending -= 1
        if not frame_allowed(frame.url):
            skipped += 1
            continue
        owner = parts[walk_id].data
        node_index, frame_box = owner["frames"][slot]
        arguments = walk_arguments(len(parts), max(budget, 0), frame_box)
        try:
            payload = await asyncio.wait_for(frame.evaluate(walk_script(), arguments),
                                             FRAME_TIMEOUT_S)
        except (Error, TimeoutError):  # timed out, navigated: leave that frame out
            skipped += 1
            continue
        data = load_walk_json(payload)
        budget -= _frames_used(data)
        pending += len(data["frames"])
        parts.append(FramePart(data, offsets[walk_id] + node_index))
        offsets.append(offsets[-1] + sizes[-1])
        sizes.append(len(data["nodes"]))
    parts[0].data["framesSkipped"] = parts[0].data.get("framesSkipped", 0) + skipped + pending


def _frames_used(data: dict[str, Any]) -> int:
    """The frames of a walk's budget: walked, listed for their own walk, and never loaded
    (skipped there, but counted as the listed frames they were before they were aborted)."""
    return (int(data.get("framesWalked", 0)) + len(data["frames"])
            + int(data.get("framesUnloaded", 0)))


_SERIALIZE_JS = """() => {
  // The document with its open shadow roots as <template shadowrootmode="open"> (declarative
  // shadow DOM): page.content() leaves them out.
  const roots = [];
  const collect = (scope) => {
    for (const el of scope.querySelectorAll("*")) {
      if (el.shadowRoot) { roots.push(el.shadowRoot); collect(el.shadowRoot); }
    }
  };
  collect(document);
  const root = document.documentElement;
  const escape = (value) => value.replace(/&/g, "&amp;").replace(/"/g, "&quot;");
  const attributes = [...root.attributes].map((a) => ` ${a.name}="${escape(a.value)}"`).join("");
  const doctype = document.doctype ? `<!DOCTYPE ${document.doctype.name}>` : "";
  return `${doctype}<html${attributes}>${root.getHTML({shadowRoots: roots})}</html>`;
}"""


async def serialize_with_shadow_roots(page: Any) -> str:
    """The page's HTML including open shadow roots (``getHTML``), else ``page.content()``.

    Trafilatura drops ``<template>`` elements, so shadow text still does not reach main text;
    the serialisation keeps ``html`` faithful for other readers (the declarative form re-renders).
    """
    if not await page.evaluate("typeof Element.prototype.getHTML === 'function'"):
        return well_formed(await page.content())
    return well_formed(await page.evaluate(_SERIALIZE_JS))
