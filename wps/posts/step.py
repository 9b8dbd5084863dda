"""Posts as a pipeline step (after segmentation, before main text): every post, comment or answer
its own segment, its quotes and its chrome apart from it.

A segmenter groups by layout, so a thread's posts often share one segment, and a post's author box
and "Quote" button share the post's. This step cuts each segment along the records of
:func:`find_posts`: one piece per record and part (body, quote, chrome), in document order. A quote
is scored where it was written, not again in the post that quotes it; chrome is not prose. The
decision step drops both pieces with their own reasons.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from ..model import PageCapture, Segment
from ..page.reading import reading_text, union_box
from ..state import PageState, PipelineStep
from .records import Evidence, PostStructure, find_posts


@dataclass(frozen=True, slots=True)
class PostOptions:
    """The ``[posts]`` config section."""

    enabled: bool = True
    split_quotes: bool = True
    split_chrome: bool = True
    by_names: bool = True
    by_declared: bool = True
    """Posts declared in the page's JSON-LD."""
    by_structure: bool = True
    """Repeated unnamed siblings that hold prose plus short chrome."""

    @property
    def evidence(self) -> Evidence:
        return Evidence(self.by_names, self.by_declared, self.by_structure)

    @classmethod
    def from_config(cls, section: dict[str, Any] | None) -> PostOptions:
        known = set(cls.__dataclass_fields__)
        return cls(**{key: value for key, value in (section or {}).items() if key in known})


class PostStep(PipelineStep):
    """Split segments into one piece per post and part."""

    name = "posts"
    needs = ("segmentation",)
    adds = ("posts", "post_part", "post_record")

    def __init__(self, section: dict[str, Any] | None = None) -> None:
        self.options = PostOptions.from_config(section)

    def run(self, page: PageState) -> None:
        assert page.segmentation is not None  # needs, checked by run_steps
        page.posts = find_posts(page.capture, self.options.evidence)
        page.segmentation.segments = split_posts(page.capture, page.segments, self.options,
                                                 page.posts)


def split_posts(capture: PageCapture, segments: list[Segment],
                options: PostOptions = PostOptions(),
                posts: PostStructure | None = None) -> list[Segment]:
    """``segments`` with each cut into its posts' pieces (unchanged on pages without records);
    ``posts``: :func:`find_posts` of the page, when already found."""
    posts = find_posts(capture, options.evidence) if posts is None else posts
    if not posts.records:
        return segments
    out: list[Segment] = []
    for segment in segments:
        out.extend(_pieces(capture, posts, segment, options))
    return out


def _pieces(capture: PageCapture, posts: PostStructure, segment: Segment,
            options: PostOptions) -> list[Segment]:
    def key(node_id: int) -> tuple[int, str]:
        record, part = posts.key(node_id)
        if (part == "quote" and not options.split_quotes) or \
                (part == "chrome" and not options.split_chrome):
            part = "body"
        return record, part

    keys = _subtree_keys(capture, segment.node_ids, key)
    groups: dict[tuple[int, str], list[int]] = {}
    for node_id in segment.node_ids:
        # an element whose text falls into several pieces goes into none of them: a segment's
        # element ids stand for all the text below them (the text step expands them)
        if len(keys[node_id]) == 1:
            groups.setdefault(next(iter(keys[node_id])), []).append(node_id)
    texty = {key: ids for key, ids in groups.items()
             if any(capture.nodes[i].is_text and capture.nodes[i].text.strip() for i in ids)}
    if len(texty) <= 1:
        key = next(iter(texty), None)
        if key is not None:
            _label(capture, segment, key)
        return [segment]
    first_key = next(iter(texty))
    for key, ids in groups.items():  # wrappers without text go with the first piece
        if key not in texty:
            texty[first_key].extend(ids)
    pieces: list[Segment] = []
    for number, (key, ids) in enumerate(texty.items()):
        ids = sorted(ids)
        box = union_box(capture.nodes[i].bbox for i in ids
                        if capture.nodes[i].is_text and capture.nodes[i].text.strip())
        piece = Segment.from_box(segment.id if number == 0 else f"{segment.id}-{number}", box,
                                 ids)
        piece.parent = segment.parent
        piece.extra = dict(segment.extra)
        piece.extra["dom_bbox"] = list(box)
        piece.text = reading_text(capture, ids)
        _label(capture, piece, key)
        pieces.append(piece)
    return pieces


def _subtree_keys(capture: PageCapture, node_ids: list[int],
                  key: Callable[[int], tuple[int, str]]) -> dict[int, set[tuple[int, str]]]:
    """The keys of the text under each node of the segment (ids are in document order, so
    children come after their parents: one reverse pass)."""
    inside = set(node_ids)
    keys: dict[int, set[tuple[int, str]]] = {}
    for node_id in sorted(node_ids, reverse=True):
        node = capture.nodes[node_id]
        found = {key(node_id)} if node.is_text or not capture.children(node_id) else set()
        for child in capture.children(node_id):
            found |= keys.get(child, set()) if child in inside else set()
        keys[node_id] = found or {key(node_id)}
    return keys


def _label(capture: PageCapture, segment: Segment, key: tuple[int, str]) -> None:
    record, part = key
    if record < 0:
        return
    segment.post_part = part
    segment.post_record = capture.nodes[record].xpath
    if part == "body":
        segment.extra["block_type"] = "record"
