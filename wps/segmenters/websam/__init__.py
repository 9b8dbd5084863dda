"""The ``websam`` segmenter: WebSAM-Adapter (Ren et al., ECIR 2024) on SAM ViT-B.

Laid out as segment-anything: :mod:`.modeling` holds only ``nn.Module`` s (adapter, WebSam) and
the loss, :mod:`.checkpoint` the adapter file format, :mod:`.predictor` one screenshot →
probabilities, :mod:`.segmenter` the registered segmenter and :mod:`.training` the training loop
behind ``scripts/train_websam.py``. Only the segmenter loads here; the rest imports torch and is
loaded when needed.
"""

from .segmenter import WebSamSegmenter

__all__ = ["WebSamSegmenter"]
