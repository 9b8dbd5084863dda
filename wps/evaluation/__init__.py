"""Webis-WebSeg-20 evaluation, a faithful port of the reference R code (webis-webseg-20.md).

Extended BCubed for the five size functions, segmentation JSON I/O and validation, fitting to DOM
nodes, flattening, fusion of annotations and annotator agreement.
"""

from .agreement import AgreementResult, agreement
from .bcubed import BCubedScore
from .evaluate import EvaluationResult, evaluate
from .fit import fit_segmentations
from .flatten import flatten_segmentations
from .fuse import fuse_segmentations
from .sizes import SIZE_FUNCTIONS
from .webis_json import WebisSegmentations, read_segmentations, write_segmentations

__all__ = [
    "SIZE_FUNCTIONS",
    "AgreementResult",
    "agreement",
    "fit_segmentations",
    "flatten_segmentations",
    "fuse_segmentations",
    "BCubedScore",
    "EvaluationResult",
    "WebisSegmentations",
    "evaluate",
    "read_segmentations",
    "write_segmentations",
]
