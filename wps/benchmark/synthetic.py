"""A generated page of a chosen size, for the segmenter's speed benchmark and tests.

No browser needed: sections of the kinds real pages have (menus, card grids, articles, tables,
forum posts) are stacked vertically with a simple block layout, so the tree has the breadth, depth
and repetition of a real page of that many element nodes.
"""

from __future__ import annotations

import random

from ..model import TEXT_TAG, Node, PageCapture

_WORDS = ("page segment river bridge market council bread starter forum post reply city "
          "weather sport library opening hours route update thanks advice crumb").split()
_LINE_HEIGHT = 20.0
_PADDING = 4.0


def generated_capture(element_count: int, *, seed: int = 0, width: int = 1366) -> PageCapture:
    """A capture with about ``element_count`` element nodes (plus text leaves)."""
    rng = random.Random(seed)
    tags: list[str] = ["BODY"]
    parents: list[int | None] = [None]
    texts: list[str] = [""]

    def add(parent: int, tag: str, text: str = "") -> int:
        tags.append(tag)
        parents.append(parent)
        texts.append(text)
        return len(tags) - 1

    def words(count: int) -> str:
        return " ".join(rng.choice(_WORDS) for _ in range(count))

    def leaf(parent: int, tag: str, count: int) -> None:
        add(add(parent, tag), TEXT_TAG, words(count))

    def menu(parent: int) -> None:
        nav = add(add(parent, "HEADER"), "UL")
        for _ in range(rng.randint(4, 12)):
            leaf(add(nav, "LI"), "A", 2)

    def cards(parent: int) -> None:
        grid = add(parent, "DIV")
        for _ in range(rng.randint(6, 24)):
            card = add(grid, "DIV")
            add(card, "IMG")
            leaf(card, "H3", 3)
            leaf(card, "P", rng.randint(5, 15))
            leaf(card, "A", 1)

    def article(parent: int) -> None:
        body = add(parent, "ARTICLE")
        leaf(body, "H2", 6)
        for _ in range(rng.randint(3, 12)):
            paragraph = add(body, "P")
            add(paragraph, TEXT_TAG, words(rng.randint(20, 60)))
            if rng.random() < 0.4:
                leaf(paragraph, "A", 2)

    def table(parent: int) -> None:
        rows = add(add(parent, "TABLE"), "TBODY")
        columns = rng.randint(3, 6)
        for _ in range(rng.randint(5, 20)):
            row = add(rows, "TR")
            for _ in range(columns):
                leaf(row, "TD", 1)

    def posts(parent: int) -> None:
        thread = add(parent, "DIV")
        for _ in range(rng.randint(3, 10)):
            post = add(thread, "DIV")
            author = add(post, "DIV")
            leaf(author, "SPAN", 1)
            add(author, "IMG")
            text = add(post, "DIV")
            for _ in range(rng.randint(1, 4)):
                leaf(text, "P", rng.randint(15, 50))

    kinds = (cards, article, table, posts, menu)
    menu(0)
    main = add(0, "MAIN")
    while sum(tag != TEXT_TAG for tag in tags) < element_count - 40:
        section = add(main, "SECTION")
        leaf(section, "H2", 4)
        rng.choice(kinds)(section)
    footer = add(0, "FOOTER")
    while sum(tag != TEXT_TAG for tag in tags) < element_count:
        leaf(footer, "P", 4)
    return _layout(tags, parents, texts, width, seed)


def _layout(tags: list[str], parents: list[int | None], texts: list[str], width: int,
            seed: int) -> PageCapture:
    """Stack every node's children vertically; leaves are one line high."""
    count = len(tags)
    children: list[list[int]] = [[] for _ in range(count)]
    for node, parent in enumerate(parents):
        if parent is not None:
            children[parent].append(node)
    heights = [_LINE_HEIGHT] * count
    for node in range(count - 1, -1, -1):  # children always come after their parent
        if children[node]:
            heights[node] = sum(heights[kid] for kid in children[node]) + 2 * _PADDING
    boxes: list[tuple[float, float, float, float]] = [(0.0, 0.0, float(width), heights[0])]
    boxes.extend((0.0, 0.0, 0.0, 0.0) for _ in range(count - 1))
    xpaths = ["/HTML[1]/BODY[1]"] + [""] * (count - 1)
    depths = [1] * count
    for node in range(count):
        left, top, right, _ = boxes[node]
        cursor = top + _PADDING
        seen: dict[str, int] = {}
        for kid in children[node]:
            inner_left, inner_right = left + _PADDING, max(left + _PADDING + 1, right - _PADDING)
            boxes[kid] = (inner_left, cursor, inner_right, cursor + heights[kid])
            cursor += heights[kid]
            step = "text()" if tags[kid] == TEXT_TAG else tags[kid]
            seen[step] = seen.get(step, 0) + 1
            xpaths[kid] = f"{xpaths[node]}/{step}[{seen[step]}]"
            depths[kid] = depths[node] + 1
    nodes = [
        Node(i, parents[i], tags[i], xpaths[i], boxes[i], text=texts[i], depth=depths[i])
        for i in range(count)
    ]
    return PageCapture(url=f"generated:{seed}", width=width, height=int(heights[0]) + 1,
                       nodes=nodes, page_id=f"generated-{count}", source="generated")
