"""The weights-free screenshot segmenter (``xycut``): recursive XY-cut, then DOM fitting.

Owns the segmenter class and its granularity rules (:mod:`.segmenter`) and the image core — ink
mask, cut candidates, the cut tree (:mod:`._xycut_core`). Box and reading-order helpers come from
:mod:`wps.segmenters.geometry`.
"""

from .segmenter import GRANULARITIES, XYCutSegmenter, assign_nodes, load_screenshot

__all__ = ["GRANULARITIES", "XYCutSegmenter", "assign_nodes", "load_screenshot"]
