"""wps: browser-rendered web page segmentation.

capture → segment → text → filter → output; each stage is a module, the data passed between them
is in :mod:`wps.model`.
"""

from .errors import WpsError
from .model import Node, PageCapture, Segment, Segmentation
from .pipeline import PageResult, segment, segment_to_directory
from .segmenters import build_segmenter, segmenter_names

__version__ = "0.1.0"

__all__ = [
    "Node",
    "PageCapture",
    "PageResult",
    "Segment",
    "Segmentation",
    "WpsError",
    "build_segmenter",
    "segment",
    "segment_to_directory",
    "segmenter_names",
]
