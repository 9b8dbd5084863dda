"""Webis-WebSeg-20 evaluation, a faithful port of the reference R code (webis-webseg-20.md).

Extended BCubed for the five size functions, segmentation JSON I/O and validation, fitting to DOM
nodes, flattening, fusion of annotations and annotator agreement. Per-page resources (nodes,
text lengths, edge pixels) are cached by :func:`load_page`, so scoring many algorithms on one page
reads the PNGs once.
"""

from ..webis.segmentation_json import WebisSegmentations, read_segmentations, write_segmentations
from .agreement import AgreementResult, agreement
from .bcubed import BCubedScore
from .evaluate import EvaluationResult, evaluate
from .fit import fit_segmentations
from .flatten import flatten_segmentations
from .fuse import fuse_segmentations
from .resources import GroundTruthPage, load_page
from .sizes import SIZE_FUNCTIONS

__all__ = [
    "SIZE_FUNCTIONS",
    "AgreementResult",
    "agreement",
    "fit_segmentations",
    "flatten_segmentations",
    "fuse_segmentations",
    "BCubedScore",
    "GroundTruthPage",
    "load_page",
    "EvaluationResult",
    "WebisSegmentations",
    "evaluate",
    "read_segmentations",
    "write_segmentations",
]
