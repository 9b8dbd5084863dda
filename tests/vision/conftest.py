"""Fixtures of the vision segmenter tests: a tiny random SAM checkpoint and a Webis page folder
with a screenshot (page 000000's nodes and ground truth, a screenshot drawn from them)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from shared_data import WEBIS_SAMPLE, require_shared

PAGE_FILES = ("nodes.csv", "nodes-texts.csv", "ground-truth.json", "dom.html",
              "screenshot-edges-fine.png", "screenshot-edges-coarse.png")


@pytest.fixture(scope="session", autouse=True)
def one_torch_thread():
    """The test machines are small and shared: one thread is faster than fighting for two."""
    try:
        import torch
    except ImportError:
        yield
        return
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(previous)


@pytest.fixture(scope="session")
def tiny_sam_checkpoint(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An official-format checkpoint (state dict via ``torch.save``) of the tiny random SAM."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("segment_anything")
    from wps.segmenters._vision.models import build_sam_tiny

    torch.manual_seed(0)
    path = tmp_path_factory.mktemp("sam") / "sam-tiny.pth"
    torch.save(build_sam_tiny().state_dict(), path)
    return path


@pytest.fixture(scope="session")
def page_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``<tmp>/000000``: page 000000 of the sample with a ``screenshot.png`` drawn from its ground
    truth (each segment a pale colour) and its text nodes (dark bars), 1366 × 5590 px."""
    import cv2

    source = require_shared(WEBIS_SAMPLE) / "000000"
    folder = tmp_path_factory.mktemp("webis") / "000000"
    folder.mkdir()
    for name in PAGE_FILES:
        shutil.copyfile(source / name, folder / name)
    cv2.imwrite(str(folder / "screenshot.png"), cv2.cvtColor(draw_page(folder), cv2.COLOR_RGB2BGR))
    return folder


def draw_page(folder: Path) -> np.ndarray:
    import cv2

    from wps.webis.capture import capture_from_webis
    from wps.webis.segmentation_json import read_segmentations

    capture = capture_from_webis(folder)
    image = np.full((capture.height, capture.width, 3), 255, dtype=np.uint8)
    _, segments = read_segmentations(folder / "ground-truth.json").select_one("majority-vote")
    rng = np.random.default_rng(0)
    for segment in segments:
        colour = tuple(int(v) for v in rng.integers(150, 240, size=3))
        for polygon in segment:
            cv2.fillPoly(image, [np.asarray(ring, dtype=np.int32) for ring in polygon], colour)
    for node in capture.nodes:
        if node.is_text:
            left, top, right, bottom = (int(round(v)) for v in node.bbox)
            cv2.rectangle(image, (left, top + 3), (right, max(top + 3, bottom - 3)),
                          (40, 40, 40), thickness=-1)
    return image
