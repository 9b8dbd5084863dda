"""The one-segment baseline of Webis-WebSeg-20: the whole page is one segment."""

from __future__ import annotations

from dataclasses import dataclass

from ..model import PageCapture, Segment, Segmentation
from . import register_segmenter


@register_segmenter("baseline")
@dataclass
class BaselineSegmenter:
    """Every evaluation's reference row; also what an empty segmentation is replaced by."""

    name: str = "baseline"
    needs_screenshot = False
    """One box over the page: no pixels read."""

    def segment(self, page: PageCapture) -> Segmentation:
        box = (0.0, 0.0, float(page.width), float(page.height))
        whole = Segment.from_box("0", box, node_ids=[node.id for node in page.nodes])
        return Segmentation(page.page_id, self.name, page.width, page.height, [whole])
