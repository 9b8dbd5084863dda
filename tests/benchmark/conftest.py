"""Fixtures: the small Webis-WebSeg-20 copies of tests/datasets (folders and zip parts)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from wps.datasets import WebisDataset, write_zip_parts

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "datasets"))
from webis_fakes import make_folder_dataset  # noqa: E402


@pytest.fixture
def folder_dataset(webis_sample: Path, tmp_path: Path) -> Path:
    return make_folder_dataset(webis_sample, tmp_path / "extracted")


@pytest.fixture
def zip_dataset(folder_dataset: Path, tmp_path: Path) -> Path:
    write_zip_parts(WebisDataset(folder_dataset), tmp_path / "zips")
    return tmp_path / "zips"
