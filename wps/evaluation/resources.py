"""Per-page evaluation resources: node rectangles, text lengths, edge masks (read once, cached).

All are read from the folder of the ground-truth file, as the R code does (§3.3). Evaluating many
algorithms on one page reuses the parsed nodes and the edge pixel lists.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import DatasetError, InputFileError
from ..webis.nodes import read_character_counts, read_node_boxes

EDGE_MASK_FILES = {
    "edges-fine": "screenshot-edges-fine.png",
    "edges-coarse": "screenshot-edges-coarse.png",
}


@dataclass(slots=True)
class EdgePixels:
    """Edge pixels of a mask, sorted by row: centres are ``(x + .5, y + .5)``, y down."""

    xs: np.ndarray
    ys: np.ndarray
    values: np.ndarray
    """Mask value of each listed pixel in (0, 1] (1 for the dataset's 1-bit PNGs)."""
    width: int = 0
    height: int = 0
    """Size of the mask (the page's screenshot)."""

    def window(
        self, left: float, top: float, right: float, bottom: float
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Centres (float) and values of the pixels whose centre lies in the box."""
        first_row = max(int(np.floor(top - 0.5)), -1)
        last_row = min(int(np.ceil(bottom - 0.5)), 2**31 - 1)
        start = int(np.searchsorted(self.ys, np.int32(first_row), side="left"))
        stop = int(np.searchsorted(self.ys, np.int32(last_row), side="right"))
        xs, ys, values = self.xs[start:stop], self.ys[start:stop], self.values[start:stop]
        inside = (xs + 0.5 >= left) & (xs + 0.5 <= right)
        return xs[inside] + 0.5, ys[inside] + 0.5, values[inside]


@dataclass(slots=True)
class GroundTruthPage:
    """The resources of one Webis page folder, loaded lazily."""

    directory: Path
    boxes: np.ndarray
    """Node rectangles ``(left, top, right, bottom)``, one row per ``nodes.csv`` row."""
    xpaths: list[str]
    character_counts: dict[str, float]
    """``ncharacter`` by text-node XPath; empty if ``nodes-texts.csv`` is missing or unreadable."""
    _edges: dict[str, EdgePixels] = field(default_factory=dict)

    def edge_pixels(self, name: str) -> EdgePixels:
        if name not in self._edges:
            self._edges[name] = _read_edge_mask(self.directory / EDGE_MASK_FILES[name])
        return self._edges[name]


def load_page(directory: str | Path) -> GroundTruthPage:
    """The cached resources of a page folder (re-read when one of its files changes)."""
    directory = Path(directory).resolve()
    try:
        stamp = [(directory / "nodes.csv").stat().st_mtime_ns]
    except OSError:
        raise DatasetError(f"{directory}: no nodes.csv beside the ground truth") from None
    for name in ("nodes-texts.csv", *EDGE_MASK_FILES.values()):
        try:
            stamp.append((directory / name).stat().st_mtime_ns)
        except OSError:
            stamp.append(-1)
    return _load_page(directory, tuple(stamp))


@functools.lru_cache(maxsize=2)  # a page is evaluated many times, then left
def _load_page(directory: Path, stamp: tuple[int, ...]) -> GroundTruthPage:
    boxes, xpaths = read_node_boxes(directory / "nodes.csv")
    counts = read_character_counts(directory / "nodes-texts.csv")
    return GroundTruthPage(directory, boxes, xpaths, counts)


def _read_edge_mask(path: Path) -> EdgePixels:
    """Only the non-zero pixels are kept (values scaled to 0..1 as R's ``readPNG`` does)."""
    from PIL import Image

    try:
        with Image.open(path) as image:
            if image.mode == "1":
                mask = np.asarray(image)
                scale = 1.0
            elif image.mode.startswith("I;16"):
                mask, scale = np.asarray(image), 65535.0
            else:
                mask, scale = np.asarray(image.convert("L")), 255.0
    except FileNotFoundError:
        raise InputFileError(f"{path}: edge mask missing beside the ground truth") from None
    except OSError as err:
        raise InputFileError(f"{path}: unreadable edge mask ({err})") from None
    if mask.ndim == 3:
        mask = mask[..., 0]
    ys, xs = np.nonzero(mask)
    if mask.dtype == bool:
        values = np.ones(xs.size, dtype=np.float32)
    else:
        values = mask[ys, xs] / scale
    height, width = mask.shape
    del mask
    return EdgePixels(xs.astype(np.int32), ys.astype(np.int32), values, width, height)
