"""Give each segment its part of the page's main text and the statistics the filters read.

Segmentation happens after main-text extraction in spirit: a segment's ``main_text`` is only the
text Trafilatura (or NewsFeed) kept as main content, so navigation around an article never reaches
the detector even when a segmenter groups it with the article.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

import numpy as np

from ..model import PageCapture, Segment, Segmentation
from ..page.normalise import clean_piece
from .extract import ExtractOptions, MainBlock, MainText, extract_main_text
from .mapping import Alignment, align_main_text, build_text_stream
from .stats import PageLayout, build_layout, text_counts, text_statistics

__all__ = ["TextReport", "PageText", "annotate_segments", "page_text", "kept_main_text"]

NO_SPACE_BEFORE = tuple(",.;:!?)]}%'’”")
NO_SPACE_AFTER = tuple("([{'‘“")


@dataclass(slots=True)
class TextReport:
    """Page-level results of the text stage."""

    main_text: MainText
    alignment: Alignment
    layout: PageLayout
    page_stats: dict[str, float] = field(default_factory=dict)
    position_of: dict[int, int] = field(default_factory=dict)
    """Text node id -> its position in the text stream."""
    node_text: PageText | None = None
    """Per text node: characters in total and in main text, covered spans."""

    @property
    def unaligned(self) -> list[MainBlock]:
        """Extracted blocks found nowhere in the capture's text nodes (kept, without geometry)."""
        return self.alignment.unaligned

    @property
    def aligned_share(self) -> float:
        """Share of the extracted main text's characters that were found on the page."""
        total = sum(len(m.block.text) for m in self.alignment.matches)
        found = sum(len(m.block.text) for m in self.alignment.matches if m.match != "none")
        return found / total if total else 0.0

    def to_json(self) -> dict[str, object]:
        matches = [m.match for m in self.alignment.matches]
        return {
            "extractor": self.main_text.extractor,
            "blocks": len(matches),
            "matched": {kind: matches.count(kind) for kind in ("exact", "anchor", "fuzzy", "none")},
            "aligned_share": round(self.aligned_share, 4),
            "unaligned": [{"kind": b.kind, "tag": b.tag, "text": b.text} for b in self.unaligned],
            "page_stats": self.page_stats,
        }


@dataclass(slots=True)
class PageText:
    """Per text node (stream position): characters in total and in main text, main-text spans."""

    full_chars: np.ndarray
    main_chars: np.ndarray
    spans: dict[int, list[tuple[int, int, int]]]
    """Stream position -> covered ``(start, end, first compact index)`` spans of its raw text."""
    first_compact: np.ndarray
    """Compact index of each text node's first character."""
    match_of_char: np.ndarray
    """For each compact character, the index of the block match covering it, or -1."""


def annotate_segments(capture: PageCapture, segmentation: Segmentation,
                      options: ExtractOptions | None = None,
                      main_text: MainText | None = None,
                      add_unsegmented: bool = False) -> TextReport:
    """Fill ``text``, ``main_text``, ``stats`` and ``main_text_match`` of every segment.

    ``main_text`` may be passed in (already extracted); otherwise the extractor runs on the
    capture's rendered HTML, the same DOM the text nodes come from. With ``add_unsegmented``,
    main text that no segment holds (a segmenter leaving gaps) becomes extra segments
    ``unsegmented-<n>``, one per run in reading order, so it is filtered rather than lost.
    """
    if main_text is None:
        main_text = extract_main_text(capture.html, capture.final_url or capture.url, options)
    stream = build_text_stream(capture)
    alignment = align_main_text(capture, main_text, stream)
    layout = build_layout(capture, stream.node_ids)
    page = page_text(alignment)
    report = TextReport(main_text, alignment, layout)
    report.node_text = page
    position_of = {int(node_id): position for position, node_id in enumerate(stream.node_ids)}
    report.position_of = position_of
    everything = np.arange(len(stream.node_ids), dtype=np.int64)
    report.page_stats = _unit_stats(report, everything, main_text.text,
                                    assemble_text(capture, report, everything, main_only=False))
    if add_unsegmented:
        segmentation.segments.extend(_unsegmented(capture, segmentation, report))
    for segment in segmentation.segments:
        positions = segment_positions(capture, segment.node_ids, position_of)
        if not segment.text:
            segment.text = assemble_text(capture, report, positions, main_only=False)
        segment.main_text = assemble_text(capture, report, positions, main_only=True)
        segment.stats.update(_unit_stats(report, positions, segment.main_text, segment.text))
        segment.main_text_match = _match_summary(report, page, positions,
                                                  segment.stats["main_text_overlap"])
    return report


def _unsegmented(capture: PageCapture, segmentation: Segmentation,
                 report: TextReport) -> list[Segment]:
    """Segments for runs of main-text nodes that no segment holds."""
    stream = report.alignment.stream
    in_segment = np.zeros(len(stream.node_ids), dtype=bool)
    for segment in segmentation.segments:
        in_segment[segment_positions(capture, segment.node_ids, report.position_of)] = True
    has_main = report.node_text.main_chars > 0
    runs: list[list[int]] = []
    current: list[int] = []
    for position in range(len(in_segment)):
        if in_segment[position]:
            if current:
                runs.append(current)
                current = []
        elif has_main[position]:
            current.append(int(stream.node_ids[position]))
    if current:
        runs.append(current)
    added = []
    for number, node_ids in enumerate(runs):
        boxes = np.asarray([capture.nodes[node_id].bbox for node_id in node_ids])
        box = (float(boxes[:, 0].min()), float(boxes[:, 1].min()),
               float(boxes[:, 2].max()), float(boxes[:, 3].max()))
        segment = Segment.from_box(f"unsegmented-{number}", box, node_ids)
        segment.unsegmented = True
        added.append(segment)
    return added


def kept_main_text(capture: PageCapture, segmentation: Segmentation,
                   report: TextReport) -> str:
    """Main text of the kept segments in reading order, each text node once (nested or
    overlapping segments do not repeat text)."""
    positions: set[int] = set()
    for segment in segmentation.segments:
        if segment.kept:
            positions.update(segment_positions(capture, segment.node_ids,
                                               report.position_of).tolist())
    ordered = np.asarray(sorted(positions), dtype=np.int64)
    return assemble_text(capture, report, ordered, main_only=True)


def page_text(alignment: Alignment) -> PageText:
    stream = alignment.stream
    count = len(stream.node_ids)
    full = np.fromiter((len(clean_piece(text)) for text in stream.texts), dtype=np.int64,
                       count=count)
    main = np.zeros(count, dtype=np.int64)
    position_of = {int(node_id): position for position, node_id in enumerate(stream.node_ids)}
    spans: dict[int, list[tuple[int, int, int]]] = {}
    for node_id, node_spans in alignment.node_spans().items():
        position = position_of[node_id]
        text = stream.texts[position]
        spans[position] = node_spans
        main[position] = sum(len(clean_piece(text[s:e])) for s, e, _ in node_spans)
    match_of_char = np.full(len(stream.compact), -1, dtype=np.int64)
    for index, match in enumerate(alignment.matches):
        if match.match != "none":
            match_of_char[match.start:match.end] = index
    first_compact = np.searchsorted(stream.owner, np.arange(count), side="left")
    return PageText(full_chars=full, main_chars=main, spans=spans, first_compact=first_compact,
                    match_of_char=match_of_char)


def segment_positions(capture: PageCapture, node_ids: Iterable[int],
                      position_of: dict[int, int]) -> np.ndarray:
    """Stream positions of the text nodes a segment holds, directly or as descendants."""
    found: set[int] = set()
    walked: set[int] = set()  # a segment lists nested nodes: each subtree is walked once
    count = len(capture.nodes)
    for node_id in node_ids:
        if node_id < 0 or node_id >= count:
            continue
        stack = [node_id]
        while stack:
            current = stack.pop()
            if current in walked:
                continue
            walked.add(current)
            if current in position_of:
                found.add(position_of[current])
            stack.extend(capture.children(current))
    return np.asarray(sorted(found), dtype=np.int64)


def assemble_text(capture: PageCapture, report: TextReport, positions: np.ndarray,
                  main_only: bool) -> str:
    """Text of the stream ``positions`` in document order: blocks on their own lines, inline
    pieces joined with a space where the extracted text had one (else by punctuation)."""
    page = report.node_text
    alignment = report.alignment
    stream = alignment.stream
    block = report.layout.block
    lines: list[str] = []
    line: list[str] = []
    previous: tuple[int, str] | None = None  # (position, text of the previous piece)
    for position in positions.tolist():
        text = stream.texts[position]
        if main_only:
            spans = page.spans.get(position, [])
        else:
            spans = [(0, len(text), int(page.first_compact[position]))]
        for start, end, compact in spans:
            piece = clean_piece(text[start:end])
            if not piece:
                continue
            if previous is not None:
                last_position, last_piece = previous
                if block[last_position] != block[position]:
                    lines.append("".join(line))
                    line = []
                elif _space_between(alignment, compact, last_position == position, last_piece,
                                    piece):
                    line.append(" ")
            line.append(piece)
            previous = (position, piece)
    if line:
        lines.append("".join(line))
    return "\n".join(lines)


def _space_between(alignment: Alignment, compact: int, same_node: bool, before: str,
                   after: str) -> bool:
    if same_node:
        return True
    if compact < len(alignment.space_known) and alignment.space_known[compact]:
        return bool(alignment.space_before[compact])
    return not (after.startswith(NO_SPACE_BEFORE) or before.endswith(NO_SPACE_AFTER))


def _unit_stats(report: TextReport, positions: np.ndarray, main_text: str,
                full_text: str) -> dict[str, float]:
    page = report.node_text
    stats = text_statistics(report.layout, positions, page.main_chars, page.full_chars)
    stats.update(text_counts(main_text, full_text))
    return stats


def _match_summary(report: TextReport, page: PageText, positions: np.ndarray,
                   overlap: float) -> dict[str, object]:
    """Overlap with main text, the weakest match of the blocks covering the segment, and the
    share of its matched characters in blocks the extractor took as comments."""
    stream = report.alignment.stream
    held = np.zeros(len(stream.node_ids), dtype=bool)
    held[positions] = True
    covered = page.match_of_char[held[stream.owner]]
    covered = covered[covered >= 0]
    if len(covered) == 0:
        return {"overlap": round(overlap, 4), "match": "none", "score": 0.0}
    chars = np.bincount(covered)
    indices = np.flatnonzero(chars)
    matches = [report.alignment.matches[i] for i in indices.tolist()]
    rank = {"exact": 0, "anchor": 1, "fuzzy": 2}
    weakest = max(matches, key=lambda m: (rank[m.match], -m.score))
    comments = sum(int(chars[i]) for i, m in zip(indices.tolist(), matches)
                   if m.block.kind == "comment")
    return {"overlap": round(overlap, 4), "match": weakest.match,
            "score": round(min(m.score for m in matches), 2),
            "comment_share": round(comments / len(covered), 4)}
