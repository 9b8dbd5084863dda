"""VIPS (Cai, Yu, Wen, Ma 2003): visual blocks from the DOM, separators between them, and a
content structure cut where the permitted degree of coherence (``pdoc``) asks for it.

:mod:`._blocks` extracts the visual blocks, :mod:`._separators` finds and weights the separators
between them, :mod:`.segmenter` builds the content structure and emits the segments.
"""

from .segmenter import VipsSegmenter

__all__ = ["VipsSegmenter"]
