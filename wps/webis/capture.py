"""Webis-WebSeg-20 page folders as page captures, so every segmenter runs on the dataset offline.

``nodes.csv`` gives each visible node's box and Webis XPath (visible-sibling indices); the XPaths
give the tree and the tags; ``nodes-texts.csv`` gives the text nodes' texts. The page size comes from
``ground-truth.json`` (or ``annotations.json``), else from ``screenshot.png``, else from the boxes.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from ..errors import DatasetError
from ..jsonsafe import load_nested
from ..model import CONTEXT_TAGS, TEXT_TAG, Node, PageCapture, folder_image
from .nodes import read_node_rows, read_node_texts

WEBIS_WIDTH = 1366
_STEP = re.compile(r"^(?:([A-Za-z][\w:.-]*)|text\(\))\[(\d+)\]$")


def capture_from_webis(page_dir: str | Path) -> PageCapture:
    """Build a :class:`PageCapture` from a dataset page folder (``webis-webseg-20/<id>/``)."""
    page_dir = Path(page_dir)
    if not page_dir.is_dir():
        raise DatasetError(f"{page_dir}: not a Webis-WebSeg-20 page folder (no such directory)")
    nodes_path = page_dir / "nodes.csv"
    if not nodes_path.is_file():
        raise DatasetError(f"{page_dir}: not a Webis-WebSeg-20 page folder (no nodes.csv)")
    texts = read_node_texts(page_dir / "nodes-texts.csv")
    rows = read_node_rows(nodes_path)
    if not rows:
        raise DatasetError(f"{nodes_path}: no nodes")

    index_of: dict[str, int] = {}
    for position, (_, xpath) in enumerate(rows):
        index_of.setdefault(xpath, position)
    nodes: list[Node] = []
    for position, (box, xpath) in enumerate(rows):
        steps = xpath.strip("/").split("/")
        last = _STEP.match(steps[-1])
        if last is None:
            raise DatasetError(f"{nodes_path}: row {position + 2}: malformed XPath {xpath!r}")
        tag = TEXT_TAG if last.group(1) is None else last.group(1).upper()
        parent = _parent_index(xpath, index_of)
        nodes.append(
            Node(
                id=position,
                parent=parent,
                tag=tag,
                xpath=xpath,
                bbox=box,
                text=texts.get(xpath, "") if tag == TEXT_TAG else "",
                depth=len(steps) - 1,
            )
        )
    for node in nodes:  # contexts come from the tags on the node's own XPath
        contexts = {
            CONTEXT_TAGS[step.split("[", 1)[0].upper()]
            for step in node.xpath.strip("/").split("/")
            if step.split("[", 1)[0].upper() in CONTEXT_TAGS
        }
        node.inside = frozenset(contexts)

    screenshot = _screenshot(page_dir)
    width, height = _page_size(page_dir, rows, screenshot)
    html_path = page_dir / "dom.html"
    html = html_path.read_text(encoding="utf-8", errors="replace") if html_path.exists() else ""
    return PageCapture(
        url=f"webis-webseg-20:{page_dir.name}",
        width=width,
        height=height,
        nodes=nodes,
        html=html,
        page_id=page_dir.name,
        screenshot=screenshot,
        source="webis",
    )


def _parent_index(xpath: str, index_of: dict[str, int]) -> int | None:
    path = xpath
    while "/" in path.strip("/"):
        path = path.rsplit("/", 1)[0]
        if path in index_of:
            return index_of[path]
    return None


def _screenshot(page_dir: Path) -> Path | None:
    """The folder's ``screenshot.png``, if any: a regular file and an image (a hostile folder's
    link to a file elsewhere would be copied into the output)."""
    path = page_dir / "screenshot.png"
    if not (path.exists() or path.is_symlink()):
        return None
    return folder_image(page_dir, path.name, page_dir, DatasetError)


def _page_size(page_dir: Path, rows: list, screenshot: Path | None) -> tuple[int, int]:
    for name in ("ground-truth.json", "annotations.json", "fitted-annotations.json"):
        path = page_dir / name
        if path.exists():
            try:
                data = load_nested(path.read_text(encoding="utf-8"), str(path), json.loads,
                                   DatasetError)
                return int(data["width"]), int(data["height"])
            except (OSError, ValueError, KeyError, TypeError) as err:
                raise DatasetError(f"{path}: unreadable page size ({err})") from None
    if screenshot is not None:
        from PIL import Image

        with Image.open(screenshot) as image:
            return image.size
    right = max(box[2] for box, _ in rows)
    bottom = max(box[3] for box, _ in rows)
    return max(WEBIS_WIDTH, int(round(right))), int(round(bottom))
