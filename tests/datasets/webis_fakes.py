"""Build small Webis-WebSeg-20 copies at test time (never committed): folders and zip parts."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

SECOND_ID = "000007"
"""A second evaluable page: page 000000's files with the ids rewritten."""
SCREENSHOT_ONLY_ID = "000001"
"""The sample's page with only page.png: listed, but not evaluable."""

PARTS = {
    "dom-and-nodes": ("dom.html", "nodes.csv", "nodes-texts.csv"),
    "screenshots": ("screenshot.png", "page.png"),
    "screenshots-edges": ("screenshot-edges-fine.png", "screenshot-edges-coarse.png"),
    "annotations": ("annotations.json", "fitted-annotations.json"),
    "ground-truth": ("ground-truth.json",),
}


def make_folder_dataset(sample: Path, root: Path) -> Path:
    """``root/webis-webseg-20/{000000,000001,000007}/``; returns the ``webis-webseg-20`` folder."""
    dataset = root / "webis-webseg-20"
    shutil.copytree(sample / "000000", dataset / "000000")
    shutil.copytree(sample / SCREENSHOT_ONLY_ID, dataset / SCREENSHOT_ONLY_ID)
    second = dataset / SECOND_ID
    shutil.copytree(sample / "000000", second)
    for name in ("ground-truth.json", "annotations.json", "fitted-annotations.json"):
        path = second / name
        path.chmod(0o644)
        data = json.loads(path.read_text(encoding="utf-8"))
        data["id"] = SECOND_ID
        path.write_text(json.dumps(data), encoding="utf-8")
    for path in dataset.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return dataset


def make_zip_parts(dataset: Path, target: Path) -> Path:
    """Pack a folder dataset as the published zip parts (members ``webis-webseg-20/<id>/<file>``)."""
    target.mkdir(parents=True, exist_ok=True)
    for part, names in PARTS.items():
        with zipfile.ZipFile(target / f"webis-webseg-20-{part}.zip", "w",
                             zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("webis-webseg-20/", "")
            for page in sorted(dataset.iterdir()):
                archive.writestr(f"webis-webseg-20/{page.name}/", "")
                for name in names:
                    if (page / name).exists():
                        archive.write(page / name, f"webis-webseg-20/{page.name}/{name}")
    return target
