"""wps: browser-rendered web page segmentation.

capture → segment → main text → filters → prose decision → dedup → output: :mod:`wps.pipeline`
builds the ordered list of :mod:`wps.steps` (one ``run(page)`` shape each) and runs it within one
page deadline; the data passed between them is in :mod:`wps.model`, ``segments.jsonl`` is
:mod:`wps.records`'s.
"""

from .errors import WpsError
from .model import Node, PageCapture, Segment, Segmentation, StoredPage
from .pipeline import PageResult, PipelineOptions, segment, segment_to_directory
from .segmenters import build_segmenter, segmenter_names

__version__ = "0.1.0"

__all__ = [
    "Browser",
    "CaptureOptions",
    "Node",
    "PageCapture",
    "PageResult",
    "PipelineOptions",
    "Segment",
    "Segmentation",
    "StoredPage",
    "WpsError",
    "build_segmenter",
    "segment",
    "segment_to_directory",
    "segmenter_names",
]


def __getattr__(name: str) -> object:
    """``wps.Browser`` and ``wps.CaptureOptions`` load the capture package on first use, so
    ``import wps`` stays light for users who only evaluate or filter."""
    if name in ("Browser", "CaptureOptions"):
        from . import capture

        return getattr(capture, name)
    raise AttributeError(f"module 'wps' has no attribute {name!r}")
