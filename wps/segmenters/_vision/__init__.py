"""What the screenshot-model segmenters (``sam``, ``websam``) share; private to them.

- :mod:`.models`: the optional dependency check, device choice, checkpoint paths and hashes, and
  the literal builder registry of SAM image models (segment-anything's three plus a tiny random
  one for tests);
- :mod:`.masks`: page masks (bool crops in screenshot pixels), tiling a tall screenshot into
  overlapping windows and merging masks across window borders, dropping page-sized, duplicate
  and nested masks, connected components, and fitting masks to DOM nodes by the 0.75-containment
  rule (algorithms.md §3) so that each segment has its nodes and text.

Only :mod:`.models`' loaders import torch, and only when called.
"""

from .masks import (
    PageMask,
    clean_masks,
    components,
    load_screenshot,
    load_screenshot_file,
    merge_tile_masks,
    segments_from_masks,
    tile_windows,
)
from .models import (
    SAM_BUILDERS,
    checkpoint_path,
    file_sha256,
    load_sam,
    pick_device,
    precision_dtype,
    require_vision,
)

__all__ = ["PageMask", "SAM_BUILDERS", "checkpoint_path", "clean_masks", "components",
           "file_sha256", "load_sam", "load_screenshot", "load_screenshot_file",
           "merge_tile_masks", "pick_device",
           "precision_dtype", "require_vision", "segments_from_masks", "tile_windows"]
