"""Build a small Webis-WebSeg-20 copy at test time (never committed) from the shared sample."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

SECOND_ID = "000007"
"""A second evaluable page: page 000000's files with the ids rewritten."""
SCREENSHOT_ONLY_ID = "000001"
"""The sample's page with only page.png: listed, but not evaluable."""


def make_folder_dataset(sample: Path, root: Path) -> Path:
    """``root/webis-webseg-20/{000000,000001,000007}/``; returns the ``webis-webseg-20`` folder."""
    dataset = root / "webis-webseg-20"
    shutil.copytree(sample / "000000", dataset / "000000")
    shutil.copytree(sample / SCREENSHOT_ONLY_ID, dataset / SCREENSHOT_ONLY_ID)
    second = dataset / SECOND_ID
    shutil.copytree(sample / "000000", second)
    for path in dataset.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    for name in ("ground-truth.json", "annotations.json", "fitted-annotations.json"):
        path = second / name
        data = json.loads(path.read_text(encoding="utf-8"))
        data["id"] = SECOND_ID
        path.write_text(json.dumps(data), encoding="utf-8")
    return dataset
