"""Webis-WebSeg-20 files: the one place that reads and writes them (webis-webseg-20.md).

- :mod:`.nodes` — ``nodes.csv`` / ``nodes-texts.csv``: strict readers for building captures and
  R-lenient readers for the evaluation;
- :mod:`.capture` — a page folder as a :class:`~wps.model.PageCapture` (no browser needed);
- :mod:`.segmentation_json` — the segmentation JSON: read, validate, write, and
  :func:`to_webis` for a :class:`~wps.model.Segmentation`;
- :mod:`.dataset` — the dataset as a stream of pages, from extracted folders or the zip parts.

The evaluation (:mod:`wps.evaluation`) and the benchmark (:mod:`wps.benchmark`) build on these.
"""

from .capture import capture_from_webis
from .dataset import (
    DATASET_FOLDER,
    EVALUATION_FILES,
    PUBLISHED_PARTS,
    WebisDataset,
    WebisPage,
    write_zip_parts,
)
from .nodes import read_character_counts, read_node_boxes, read_node_rows, read_node_texts
from .segmentation_json import (
    MultiPolygonJson,
    WebisSegmentations,
    check_same_page,
    integral_coordinates,
    parse_segmentations,
    read_segmentations,
    to_webis,
    write_segmentations,
)

__all__ = [
    "DATASET_FOLDER", "EVALUATION_FILES", "PUBLISHED_PARTS", "MultiPolygonJson",
    "WebisDataset", "WebisPage", "WebisSegmentations", "capture_from_webis", "check_same_page",
    "integral_coordinates", "parse_segmentations", "read_character_counts", "read_node_boxes",
    "read_node_rows", "read_node_texts", "read_segmentations", "to_webis", "write_segmentations",
    "write_zip_parts",
]
