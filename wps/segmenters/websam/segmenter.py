"""WebSAM-Adapter as a segmenter: page mask → components → boxes → DOM fitting (§2.1).

The model predicts one binary mask per page (pixels inside any segment); its connected
components of at least ``min_area`` page pixels are the segments' candidates, each fitted to the
DOM nodes it holds (≥ 75 % of a node's box), so every segment has its nodes and text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...errors import UsageError
from ...model import PageCapture, Segmentation
from .. import register_segmenter
from .._vision import (
    checkpoint_path,
    components,
    load_screenshot,
    pick_device,
    precision_dtype,
    require_vision,
    segments_from_masks,
)
from .._vision.models import check_choices

CHECKPOINT_VARIABLE = "WPS_WEBSAM_CHECKPOINT"
"""Environment variable naming the adapter checkpoint when ``checkpoint`` is not given."""
SAM_CHECKPOINT_VARIABLE = "WPS_SAM_CHECKPOINT"


@register_segmenter("websam")
@dataclass
class WebSamSegmenter:
    """WebSAM-Adapter on SAM ViT-B; weights from local files only.

    Parameters
    ----------
    checkpoint
        The adapter checkpoint written by ``scripts/train_websam.py``; default
        ``$WPS_WEBSAM_CHECKPOINT``.
    sam_checkpoint
        The SAM checkpoint the adapter was trained on (checked by its SHA-256); default
        ``$WPS_SAM_CHECKPOINT``.
    device, precision
        As for ``sam``: ``auto``/``cpu``/``cuda``; ``auto``/``bf16``/``fp32`` autocast.
    mask_threshold
        Probability above which a pixel is inside a segment.
    min_area
        Components smaller than this many page pixels are dropped (§2.1: ~50).
    fit_fraction
        Share of a node's box that must lie inside a component (§3: 75 %).
    """

    checkpoint: str | None = None
    sam_checkpoint: str | None = None
    device: str = "auto"
    precision: str = "auto"
    mask_threshold: float = 0.5
    min_area: int = 50
    fit_fraction: float = 0.75
    name: str = "websam"
    needs_screenshot = True
    """It segments the screenshot's pixels."""
    _model: Any = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for option in ("mask_threshold", "fit_fraction"):
            if not 0 <= getattr(self, option) <= 1:
                raise UsageError(f"websam: {option} must be in [0, 1], got {getattr(self, option)}")
        if self.min_area < 1:
            raise UsageError(f"websam: min_area must be >= 1, got {self.min_area}")
        check_choices("websam", device=self.device, precision=self.precision)
        require_vision("websam")
        self.checkpoint = str(checkpoint_path(self.checkpoint, CHECKPOINT_VARIABLE, "checkpoint",
                                              "websam"))
        self.sam_checkpoint = str(checkpoint_path(self.sam_checkpoint, SAM_CHECKPOINT_VARIABLE,
                                                  "sam_checkpoint", "websam"))

    def segment(self, page: PageCapture) -> Segmentation:
        rgb = load_screenshot(page, self.name)
        scale = rgb.shape[1] / page.width if page.width > 0 else 1.0
        probabilities = self.probabilities(rgb)
        masks = components(probabilities >= self.mask_threshold,
                           max(1, round(self.min_area * scale * scale)))
        for mask in masks:
            left, top, right, bottom = mask.box
            mask.score = float(probabilities[top:bottom, left:right][mask.pixels].mean())
        segments = segments_from_masks(page, masks, scale, self.fit_fraction)
        return Segmentation(page.page_id, self.name, page.width, page.height, segments)

    def probabilities(self, rgb: np.ndarray) -> np.ndarray:
        """Per-pixel segment probability of an H×W×3 uint8 RGB screenshot."""
        from .predictor import page_probabilities

        model = self.model()
        device = str(next(model.parameters()).device)
        return page_probabilities(model, rgb, precision_dtype(self.precision, device))

    def model(self) -> Any:
        """The :class:`~.modeling.WebSam` (loads on first use, once per process)."""
        if self._model is None:
            from .checkpoint import load_websam

            self._model = load_websam(self.checkpoint, self.sam_checkpoint,
                                      pick_device(self.device))
        return self._model
