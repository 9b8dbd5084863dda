"""Per-segment text statistics from the capture's node tree, on the segment's main-text part.

Blocks follow the non-article rules' definition (text-and-filters.md §2): text between boundaries
of block-level elements and ``<br>``. Captures of Webis pages carry no computed style, so block-ness
is decided by tag: consecutive text nodes under the same nearest block-level ancestor, with no
``<br>``/``<hr>`` between them, form one block.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..filters.base import count_tokens
from ..filters.c4 import c4_kept_lines
from ..model import PageCapture

__all__ = ["BLOCK_TAGS", "ITEM_TAGS", "PageLayout", "build_layout", "text_statistics",
           "SHORT_ITEM_CHARS", "LARGE_BLOCK_CHARS", "DOM_SHARES", "DOM_COUNTS", "text_counts",
           "c4_lines_dropped", "text_only_statistics"]

BLOCK_TAGS = frozenset({
    "ADDRESS", "ARTICLE", "ASIDE", "BLOCKQUOTE", "BODY", "CAPTION", "CENTER", "DD", "DETAILS",
    "DIALOG", "DIV", "DL", "DT", "FIELDSET", "FIGCAPTION", "FIGURE", "FOOTER", "FORM", "H1", "H2",
    "H3", "H4", "H5", "H6", "HEADER", "HGROUP", "HTML", "LI", "MAIN", "NAV", "OL", "P", "PRE",
    "SECTION", "SUMMARY", "TABLE", "TBODY", "TD", "TFOOT", "TH", "THEAD", "TR", "UL", "LEGEND",
    "OPTION", "BUTTON", "TEXTAREA", "SELECT",
})
BREAK_TAGS = frozenset({"BR", "HR"})
ITEM_TAGS = frozenset({"LI", "DT", "DD", "TD", "TH"})
SHORT_ITEM_CHARS = 100
"""List items and table cells count for the list/table share only up to this length."""
LARGE_BLOCK_CHARS = 200
DOM_SHARES = ("main_text_overlap", "link_share", "code_share", "list_table_share",
              "large_block_share")
"""Statistics of :func:`text_statistics` that are shares of characters (in [0, 1])."""
DOM_COUNTS = ("largest_block",)
"""Statistics of :func:`text_statistics` that count main-text characters."""


@dataclass(slots=True)
class PageLayout:
    """For each text node of the text stream: its block, its item/cell and its contexts."""

    block: np.ndarray
    """Block number of each stream position (consecutive numbers in document order)."""
    item: np.ndarray
    """Id of the nearest list item / table cell ancestor, or -1."""
    in_link: np.ndarray
    in_code: np.ndarray
    """Inside a code element whose text reads as code (:func:`code_elements`), not merely
    inside ``<pre>``/``<code>``."""


def build_layout(capture: PageCapture, text_node_ids: np.ndarray) -> PageLayout:
    """Block and item structure of the stream's text nodes (one pass over the nodes)."""
    nodes = capture.nodes
    block_of: dict[int, int] = {}  # element id -> nearest block-level ancestor-or-self
    item_of: dict[int, int] = {}
    code_of: dict[int, int] = {}

    def nearest(node_id: int | None, tags: frozenset[str], memo: dict[int, int]) -> int:
        chain: list[int] = []
        found = -1
        while node_id is not None:
            if node_id in memo:
                found = memo[node_id]
                break
            chain.append(node_id)
            if nodes[node_id].tag in tags:
                found = node_id
                break
            node_id = nodes[node_id].parent
        for visited in chain:
            memo[visited] = found
        return found

    position_of = {int(node_id): position for position, node_id in enumerate(text_node_ids)}
    count = len(text_node_ids)
    block = np.zeros(count, dtype=np.int64)
    item = np.full(count, -1, dtype=np.int64)
    in_link = np.zeros(count, dtype=bool)
    in_code = np.zeros(count, dtype=bool)
    code = code_elements(capture, nearest)
    current_block, previous_key, broken = -1, None, False
    for node in nodes:  # node ids are in document order
        if node.tag in BREAK_TAGS:
            broken = True
            continue
        position = position_of.get(node.id)
        if position is None:
            continue
        key = nearest(node.parent, BLOCK_TAGS, block_of)
        if key != previous_key or broken:
            current_block += 1
        previous_key, broken = key, False
        block[position] = current_block
        item[position] = nearest(node.parent, ITEM_TAGS, item_of)
        in_link[position] = "link" in node.inside
        in_code[position] = "code" in node.inside and nearest(node.parent, CODE_TAGS,
                                                              code_of) in code
    return PageLayout(block, item, in_link, in_code)


CODE_TAGS = frozenset({"PRE", "CODE", "KBD", "SAMP"})


def code_elements(capture: PageCapture, nearest: Any) -> set[int]:
    """The code elements (nearest ``pre``/``code``/``kbd``/``samp`` of a text node) whose whole
    text reads as code (:func:`wps.text.code.looks_like_code`): a plain-text document in
    ``<pre>`` is prose. ``nearest(node_id, tags, memo)`` finds an ancestor (:func:`build_layout`)."""
    from .code import looks_like_code

    texts: dict[int, list[str]] = {}
    memo: dict[int, int] = {}
    for node in capture.nodes:
        if node.is_text and "code" in node.inside:
            owner = nearest(node.parent, CODE_TAGS, memo)
            if owner >= 0:
                texts.setdefault(owner, []).append(node.text)
    return {owner for owner, parts in texts.items() if looks_like_code("".join(parts))}


def text_statistics(layout: PageLayout, positions: np.ndarray, main_chars: np.ndarray,
                    full_chars: np.ndarray) -> dict[str, float]:
    """Shares of the main text of the stream ``positions`` (a segment) in links, code, short
    list items / cells, and large blocks; the largest block; the main-text overlap."""
    positions = np.asarray(positions, dtype=np.int64)
    main = main_chars[positions].astype(np.float64)
    total_main = float(main.sum())
    total_full = float(full_chars[positions].sum())
    stats = {
        "main_text_overlap": total_main / total_full if total_full else 0.0,
        "link_share": 0.0, "code_share": 0.0, "list_table_share": 0.0,
        "largest_block": 0.0, "large_block_share": 0.0,
    }
    if total_main <= 0:
        return stats
    stats["link_share"] = float(main[layout.in_link[positions]].sum()) / total_main
    stats["code_share"] = float(main[layout.in_code[positions]].sum()) / total_main
    _, block_index = np.unique(layout.block[positions], return_inverse=True)
    block_chars = np.bincount(block_index, weights=main)
    stats["largest_block"] = float(block_chars.max())
    stats["large_block_share"] = float(block_chars[block_chars >= LARGE_BLOCK_CHARS].sum()) \
        / total_main
    items = layout.item[positions]
    in_item = items >= 0
    if in_item.any():
        _, item_index = np.unique(items[in_item], return_inverse=True)
        item_chars = np.bincount(item_index, weights=main[in_item])
        short = item_chars[(item_chars <= SHORT_ITEM_CHARS)].sum()
        stats["list_table_share"] = float(short) / total_main
    return stats


def text_counts(main_text: str, text: str) -> dict[str, float]:
    """Token (:func:`~wps.filters.base.count_tokens`) and character counts of a segment's text
    and of its main-text part."""
    tokens = count_tokens(text)
    return {
        "tokens": float(tokens),
        "chars": float(len(text)),
        "main_tokens": float(tokens if main_text == text else count_tokens(main_text)),
        "main_chars": float(len(main_text)),
    }


def c4_lines_dropped(main_text: str) -> float:
    """Non-blank main-text lines that C4's line rules drop (text-and-filters.md §6)."""
    lines = [line for line in main_text.splitlines() if line.strip()]
    return float(len(lines) - len(c4_kept_lines(main_text)[0]))


def text_only_statistics(main_text: str, text: str) -> dict[str, float]:
    """Every statistic that the text alone decides (no DOM needed), so ``wps filter`` recomputes
    them instead of trusting a stored value: :func:`text_counts` and ``c4_lines_dropped``."""
    stats = text_counts(main_text, text)
    stats["c4_lines_dropped"] = c4_lines_dropped(main_text)
    return stats
