"""The DOM-structural cohesion segmenter (``dom-cohesion``; Huynh et al., World Wide Web 28, 2025).

Owns the segmenter class (:mod:`.segmenter`) and its private steps: record and block detection
(:mod:`._blocks`), tree edit distances and the IQR fence (:mod:`._tree_edit`), the coverage pass
(:mod:`._coverage`) and Canny tightening (:mod:`._canny`). Box and reading-order helpers come from
:mod:`wps.segmenters.geometry`.
"""

from .segmenter import DomCohesionSegmenter

__all__ = ["DomCohesionSegmenter"]
