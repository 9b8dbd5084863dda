"""The ``sam`` segmenter: segment-anything's automatic mask generator on the screenshot.

Owns the segmenter class (:mod:`.segmenter`). Tiling, mask cleaning and DOM fitting come from
:mod:`wps.segmenters._vision`, which ``websam`` shares; torch loads only when a page is segmented.
"""

from .segmenter import SamSegmenter

__all__ = ["SamSegmenter"]
