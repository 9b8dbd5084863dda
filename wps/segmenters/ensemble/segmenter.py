"""The ``ensemble`` segmenter: ECIR'21's Min-vote@k over segmenters built by name.

Each member segments the page; their segmentations are fused with the R-identical fusion of
:mod:`wps.evaluation.fuse` exactly as the ECIR'21 ensemble was (webis-webseg-20.md §6:
``--segments-min-annotators k --size-function pixels --disagreement-threshold 0.625``): only the
area at least ``min_votes`` members put in a segment is kept, and it is grouped where most members
group it. Each fused segment holds the nodes whose box centre it covers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...errors import SegmentationError, UsageError
from ...model import PageCapture, Segment, Segmentation
from ...page.reading import reading_text
from .. import Segmenter, build_segmenter, register_segmenter
from ..geometry import granularity_level, shared_screenshot

DEFAULT_MEMBERS = "dom-cohesion,vips,xycut"


@register_segmenter("ensemble")
@dataclass
class EnsembleSegmenter:
    """Min-vote@k fusion of member segmenters.

    Parameters
    ----------
    members
        Comma-separated registered segmenter names, each built with its defaults.
    min_votes
        k: a piece of the page is kept when at least this many members cover it (ECIR'21: 2).
    disagreement_threshold
        Pieces are grouped while the share of members that separate them stays below this
        (ECIR'21: 0.625).
    granularity
        The shared coarse ↔ fine scale, passed on to every member.
    """

    members: str = DEFAULT_MEMBERS
    min_votes: int = 2
    disagreement_threshold: float = 0.625
    granularity: str | float | None = None
    name: str = "ensemble"
    _members: list[Segmenter] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        names = [name.strip() for name in self.members.split(",") if name.strip()]
        if len(names) < 2 or len(set(names)) != len(names):
            raise UsageError(f"ensemble: members must name at least two different segmenters, "
                             f"got {self.members!r}")
        if "ensemble" in names:
            raise UsageError("ensemble: an ensemble cannot be its own member")
        if not 1 <= self.min_votes <= len(names):
            raise UsageError(f"ensemble: min_votes must be in [1, {len(names)}], "
                             f"got {self.min_votes}")
        if not 0.0 <= self.disagreement_threshold <= 1.0:
            raise UsageError(f"ensemble: disagreement_threshold must be in [0, 1], got "
                             f"{self.disagreement_threshold}")
        options: dict[str, Any] = {}
        if self.granularity is not None:
            granularity_level(self.granularity, "ensemble")  # checked once, here
            options["granularity"] = self.granularity
        self._members = [build_segmenter(name, **options) for name in names]

    @property
    def needs_screenshot(self) -> bool:
        """Whether any member reads the screenshot."""
        return any(member.needs_screenshot for member in self._members)

    def segment(self, page: PageCapture) -> Segmentation:
        from ...evaluation.fuse import fuse_segmentations
        from ...webis import to_webis

        voters: dict[str, list] = {}
        with shared_screenshot():  # the members decode the screenshot once
            for number, member in enumerate(self._members):
                try:
                    output = member.segment(page)
                except SegmentationError:
                    continue  # a member with nothing to say does not vote
                webis = to_webis(output, f"{number}-{member.name}")
                voters.update(webis["segmentations"])
        voters = {name: segments for name, segments in voters.items() if segments}
        if len(voters) < self.min_votes:
            raise SegmentationError(f"{page.url or page.page_id}: {len(voters)} of "
                                    f"{len(self._members)} ensemble members gave segments, "
                                    f"{self.min_votes} votes needed")
        fused = fuse_segmentations(
            {"id": page.page_id or "page", "width": int(page.width), "height": int(page.height),
             "segmentations": voters},
            min_annotators=self.min_votes,
            disagreement_thresholds=self.disagreement_threshold,
            size_function="pixels",
        )
        polygons = next(iter(fused.segmentations.values()))
        return Segmentation(page.page_id, self.name, page.width, page.height,
                            _segments(page, polygons))


def _segments(page: PageCapture, fused: list) -> list[Segment]:
    """Fused Webis multipolygons as segments holding the nodes whose box centre they cover."""
    import shapely

    from ...evaluation.geometry import segment_geometry

    boxes = np.asarray([node.bbox for node in page.nodes], dtype=float).reshape(-1, 4)
    xs, ys = (boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2
    free = np.ones(len(page.nodes), dtype=bool)
    segments = []
    for polygons in fused:
        geometry = segment_geometry(polygons)
        if geometry.is_empty or geometry.area < 1:
            continue
        inside = free & shapely.contains_xy(geometry, xs, ys)
        free &= ~inside
        node_ids = [int(i) for i in np.flatnonzero(inside)]
        segment = Segment(id=str(len(segments)), polygons=polygons, node_ids=node_ids)
        segment.text = reading_text(page, node_ids)
        segments.append(segment)
    return segments
