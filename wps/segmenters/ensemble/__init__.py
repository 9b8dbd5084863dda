"""Ensembles of segmenters (``ensemble``): run several members, fuse their outputs by vote."""

from .segmenter import EnsembleSegmenter

__all__ = ["EnsembleSegmenter"]
