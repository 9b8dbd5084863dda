"""Small page captures built by hand: ``("DIV", [("P", ["text", ("A", ["link"])])])``."""

from __future__ import annotations

from typing import Any

from wps.model import CONTEXT_TAGS, TEXT_TAG, Node, PageCapture


def build_capture(tree: Any, html: str = "", line_height: float = 20.0) -> PageCapture:
    """Nodes in document order; each text node gets its own line unless it follows inline text
    of the same block, where it continues the line right after the previous node."""
    nodes: list[Node] = []
    cursor = {"x": 0.0, "y": 0.0}

    def add(item: Any, parent: int | None, inside: frozenset[str], depth: int) -> None:
        if isinstance(item, str):
            width = 8.0 * len(item)
            box = (cursor["x"], cursor["y"], cursor["x"] + width, cursor["y"] + line_height)
            cursor["x"] += width
            nodes.append(Node(len(nodes), parent, TEXT_TAG, "", box, text=item, inside=inside,
                              depth=depth))
            return
        tag, children = item
        node_id = len(nodes)
        context = CONTEXT_TAGS.get(tag)
        inner = inside | {context} if context else inside
        nodes.append(Node(node_id, parent, tag, "", (0, 0, 0, 0), inside=inner, depth=depth))
        if tag in {"P", "DIV", "LI", "TD", "H1", "H2", "BR", "UL", "TABLE", "TR", "BODY"}:
            cursor["x"], cursor["y"] = 0.0, cursor["y"] + line_height
        for child in children:
            add(child, node_id, inner, depth + 1)

    add(tree, None, frozenset(), 0)
    return PageCapture(url="http://example.test/", width=1000, height=int(cursor["y"]) + 40,
                       nodes=nodes, html=html)
