"""Fixtures: a small Webis-WebSeg-20 copy as folders and as zip parts, built per test."""

from __future__ import annotations

from pathlib import Path

import pytest
from webis_fakes import make_folder_dataset

from wps.datasets import WebisDataset, write_zip_parts


@pytest.fixture
def folder_dataset(webis_sample: Path, tmp_path: Path) -> Path:
    return make_folder_dataset(webis_sample, tmp_path / "extracted")


@pytest.fixture
def zip_dataset(folder_dataset: Path, tmp_path: Path) -> Path:
    write_zip_parts(WebisDataset(folder_dataset), tmp_path / "zips")
    return tmp_path / "zips"
