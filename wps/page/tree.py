"""Walks up a captured tree (parents come before their children in ``PageCapture.nodes``)."""

from __future__ import annotations

from ..model import PageCapture


def holds(page: PageCapture, ancestor: int, node_id: int | None) -> bool:
    """Whether ``node_id`` is ``ancestor`` or lies below it."""
    while node_id is not None:
        if node_id == ancestor:
            return True
        node_id = page.nodes[node_id].parent
    return False


def nearest(page: PageCapture, node_id: int | None, tag: str) -> int | None:
    """The node itself or its nearest ancestor with ``tag`` (``None``: none)."""
    while node_id is not None and page.nodes[node_id].tag != tag:
        node_id = page.nodes[node_id].parent
    return node_id


def chain_below(page: PageCapture, node_id: int, stop: int) -> list[int]:
    """Ids from just below ``stop`` down to ``node_id`` (all its ancestors when ``stop`` is not
    one of them)."""
    chain = []
    current: int | None = node_id
    while current is not None and current != stop:
        chain.append(current)
        current = page.nodes[current].parent
    chain.reverse()
    return chain
