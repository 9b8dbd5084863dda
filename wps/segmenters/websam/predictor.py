"""One screenshot in, the page-mask probabilities out (the WebSAM inference tier).

As in the paper, the whole screenshot is resized to the model's square input (1024² for SAM),
so training (:mod:`.training`) and inference see pages the same way; the probabilities are
resized back to the screenshot.
"""

from __future__ import annotations

from contextlib import nullcontext
from typing import Any

import numpy as np


def resize_to_input(rgb: np.ndarray, size: int) -> np.ndarray:
    """H×W×3 uint8 → size×size×3 uint8 (area interpolation: a tall page shrinks a lot)."""
    import cv2

    return cv2.resize(rgb, (size, size), interpolation=cv2.INTER_AREA)


def image_batch(images: list[np.ndarray], device: str) -> Any:
    """size×size×3 uint8 images → a B×3×size×size float tensor (0–255) on ``device``."""
    import torch

    stacked = np.stack(images).astype(np.float32)
    return torch.from_numpy(stacked).permute(0, 3, 1, 2).contiguous().to(device)


def autocast(device: str, dtype: Any) -> Any:
    """bfloat16 autocast on ``device`` when ``dtype`` is given, else nothing."""
    import torch

    if dtype is None:
        return nullcontext()
    return torch.autocast(device_type=device.split(":")[0], dtype=dtype)


def page_probabilities(model: Any, rgb: np.ndarray, dtype: Any = None) -> np.ndarray:
    """The probability that each screenshot pixel lies in a segment, H×W float32."""
    import cv2
    import torch

    device = str(next(model.parameters()).device)
    batch = image_batch([resize_to_input(rgb, model.image_size)], device)
    with torch.inference_mode(), autocast(device, dtype):
        logits = model(model.preprocess(batch))
    square = torch.sigmoid(logits.float())[0, 0].cpu().numpy()
    return cv2.resize(square, (rgb.shape[1], rgb.shape[0]), interpolation=cv2.INTER_LINEAR)
