"""SAM in "everything" mode on full-page screenshots (algorithms.md §3; the SAM baseline of
Huynh et al. 2025).

The screenshot is cut into square windows as wide as the page (SAM sees 1024² inputs, so a
1366 × 5,000 page is five 1366² windows, not one squashed image), each window goes through
``SamAutomaticMaskGenerator`` with the published settings, masks are joined across window borders,
page-sized, duplicate and nested masks are dropped, and the rest are fitted to DOM nodes (≥ 75 %
of a node's box inside the mask) so each segment has its nodes and text.

Where wps reads §3 in its own way: masks covering more than ``max_area_fraction`` of their
window are dropped before merging (a window's background), not only of the page; of two nested
masks the outer one stays (``nested="drop-inner"``), which gives blocks rather than lines.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...errors import UsageError
from ...model import PageCapture, Segmentation
from .. import register_segmenter
from .._vision import (
    PageMask,
    checkpoint_path,
    clean_masks,
    load_sam,
    load_screenshot,
    merge_tile_masks,
    pick_device,
    precision_dtype,
    require_vision,
    segments_from_masks,
    tile_windows,
)
from .._vision.masks import NESTED_RULES
from .._vision.models import check_choices

CHECKPOINT_VARIABLE = "WPS_SAM_CHECKPOINT"
"""Environment variable naming the SAM checkpoint when ``checkpoint`` is not given."""


@register_segmenter("sam")
@dataclass
class SamSegmenter:
    """SAM's automatic mask generator, tiled over the page, fitted to the DOM.

    Parameters
    ----------
    checkpoint
        Path of an official SAM checkpoint (``sam_vit_b_01ec64.pth``, or any state dict saved
        with ``torch.save``); default ``$WPS_SAM_CHECKPOINT``. Never downloaded.
    model_type
        ``auto`` (read from the weights), ``vit_b``, ``vit_l``, ``vit_h`` or ``tiny`` (the random
        test configuration).
    device
        ``auto`` (CUDA when available), ``cpu`` or ``cuda``.
    precision
        ``auto``: bfloat16 autocast of the image encoder where the hardware has bf16 (a GPU, a
        CPU with AVX512-BF16/AMX); ``bf16``: always; ``fp32``: never.
    points_per_side, points_per_batch, pred_iou_thresh, stability_score_thresh, box_nms_thresh,
    crop_n_layers, min_mask_region_area
        ``SamAutomaticMaskGenerator`` options; defaults are its own, the settings of the
        published SAM baseline.
    tile_size
        Side of the square windows in screenshot pixels; 0 = the screenshot's width.
    tile_overlap
        Share of a window's side that neighbouring windows share.
    work_size
        Windows are shrunk to this long side before the generator, its masks scaled back;
        0 = the model's input side (1024), which the model itself resizes to anyway.
    merge_iou
        Masks of two windows join when their IoU inside the shared band reaches this.
    max_area_fraction
        Masks larger than this share of their window (before merging) or of the page (after)
        are dropped (§3: ~70 %).
    duplicate_iou, nested_fraction, nested
        Near-duplicates (IoU ≥ ``duplicate_iou``) keep the larger; a mask with
        ``nested_fraction`` of its pixels inside a larger one is dropped (``drop-inner``), the
        larger is (``drop-outer``) or both stay (``keep``).
    fit_fraction
        Share of a node's box that must lie inside a mask for the node to join it (§3: 75 %).
    """

    checkpoint: str | None = None
    model_type: str = "auto"
    device: str = "auto"
    precision: str = "auto"
    points_per_side: int = 32
    points_per_batch: int = 64
    pred_iou_thresh: float = 0.88
    stability_score_thresh: float = 0.95
    box_nms_thresh: float = 0.7
    crop_n_layers: int = 0
    min_mask_region_area: int = 0
    tile_size: int = 0
    tile_overlap: float = 0.25
    work_size: int = 0
    merge_iou: float = 0.5
    max_area_fraction: float = 0.7
    duplicate_iou: float = 0.9
    nested_fraction: float = 0.9
    nested: str = "drop-inner"
    fit_fraction: float = 0.75
    name: str = "sam"
    needs_screenshot = True
    """It segments the screenshot's pixels."""
    _generator: Any = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for option in ("tile_overlap", "merge_iou", "max_area_fraction", "duplicate_iou",
                       "nested_fraction", "fit_fraction"):
            value = getattr(self, option)
            if not 0 <= value <= 1 or (option == "tile_overlap" and value >= 1):
                raise UsageError(f"sam: {option} must be in [0, 1], got {value}")
        if self.nested not in NESTED_RULES:
            raise UsageError(f"sam: nested must be one of {list(NESTED_RULES)}, got {self.nested!r}")
        if min(self.tile_size, self.work_size) < 0 or min(self.points_per_side,
                                                          self.points_per_batch) < 1:
            raise UsageError("sam: tile_size and work_size must be >= 0, points_per_side and "
                             "points_per_batch >= 1")
        check_choices("sam", device=self.device, precision=self.precision,
                      model_type=self.model_type)
        require_vision("sam")
        self.checkpoint = str(checkpoint_path(self.checkpoint, CHECKPOINT_VARIABLE, "checkpoint",
                                              "sam"))

    def segment(self, page: PageCapture) -> Segmentation:
        rgb = load_screenshot(page, self.name)
        scale = rgb.shape[1] / page.width if page.width > 0 else 1.0
        segments = segments_from_masks(page, self.masks(rgb), scale, self.fit_fraction)
        return Segmentation(page.page_id, self.name, page.width, page.height, segments)

    def masks(self, rgb: np.ndarray) -> list[PageMask]:
        """The cleaned masks of an H×W×3 uint8 RGB screenshot, in screenshot pixels."""
        height, width = rgb.shape[:2]
        tiles = []
        for window in tile_windows(width, height, self.tile_size or width, self.tile_overlap):
            left, top, right, bottom = window
            found = [PageMask.from_array(pixels, left, top, score)
                     for pixels, score in self._window_masks(rgb[top:bottom, left:right])]
            tiles.append((window, [mask for mask in found if mask is not None]))
        merged = merge_tile_masks(tiles, self.merge_iou)
        return clean_masks(merged, width * height, self.max_area_fraction, self.duplicate_iou,
                           self.nested_fraction, self.nested)

    def _window_masks(self, window: np.ndarray) -> list[tuple[np.ndarray, float]]:
        """(window-sized bool mask, predicted IoU) of one window, window-sized masks excluded.

        The generator runs on the window shrunk to the model's input side (SAM sees no more
        detail than that, and upsampling 3 × 1,024 candidate masks to the full window is most
        of its CPU time); the kept masks are scaled back to the window."""
        import cv2
        import torch

        generator = self.generator()
        height, width = window.shape[:2]
        side = self.work_size or int(generator.predictor.model.image_encoder.img_size)
        factor = min(1.0, side / max(height, width))
        small = window if factor == 1.0 else cv2.resize(
            window, (max(1, round(width * factor)), max(1, round(height * factor))),
            interpolation=cv2.INTER_AREA)
        limit = self.max_area_fraction * small.shape[0] * small.shape[1]
        with torch.inference_mode():
            records = generator.generate(np.ascontiguousarray(small))
        found = []
        for record in records:
            if record["area"] > limit:
                continue
            pixels = record["segmentation"]
            if factor != 1.0:
                pixels = cv2.resize(pixels.astype(np.uint8), (width, height),
                                    interpolation=cv2.INTER_NEAREST).astype(bool)
            found.append((pixels, float(record["predicted_iou"])))
        return found

    def generator(self) -> Any:
        """The ``SamAutomaticMaskGenerator`` (the model loads on first use, once per process)."""
        if self._generator is None:
            from segment_anything import SamAutomaticMaskGenerator

            device = pick_device(self.device)
            model = load_sam(self.checkpoint, self.model_type, device)
            self._generator = SamAutomaticMaskGenerator(
                model, points_per_side=self.points_per_side,
                points_per_batch=self.points_per_batch, pred_iou_thresh=self.pred_iou_thresh,
                stability_score_thresh=self.stability_score_thresh,
                box_nms_thresh=self.box_nms_thresh, crop_n_layers=self.crop_n_layers,
                min_mask_region_area=self.min_mask_region_area, output_mode="binary_mask")
            dtype = precision_dtype(self.precision, device)
            if dtype is not None:
                self._generator.predictor = _autocast_predictor(model, dtype)
        return self._generator


def _autocast_predictor(model: Any, dtype: Any) -> Any:
    """A ``SamPredictor`` whose image encoder (nearly all of the time) runs under autocast; the
    features go back to float32, so the generator's numpy post-processing is unchanged (it cannot
    take bfloat16 tensors)."""
    import torch
    from segment_anything import SamPredictor

    class AutocastPredictor(SamPredictor):
        def set_torch_image(self, transformed_image: Any, original_image_size: Any) -> None:
            with torch.autocast(device_type=self.model.device.type, dtype=dtype):
                super().set_torch_image(transformed_image, original_image_size)
            self.features = self.features.float()

    return AutocastPredictor(model)
