"""WebisDataset over the three layouts: extracted folder, its parent folder, the zip parts."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from webis_fakes import SCREENSHOT_ONLY_ID, SECOND_ID

from wps.errors import DatasetError
from wps.webis import EVALUATION_FILES, WebisDataset, capture_from_webis

ALL_IDS = ["000000", SCREENSHOT_ONLY_ID, SECOND_ID]

def _contents(dataset: WebisDataset) -> dict[str, dict[str, bytes]]:
    """page id -> file -> bytes, read through ``page.open()``."""
    contents = {}
    for page in dataset:
        with page.open() as folder:
            assert folder.name == page.id
            contents[page.id] = {path.name: path.read_bytes() for path in folder.iterdir()}
    return contents

def test_the_three_layouts_stream_the_same_pages_and_bytes(folder_dataset: Path,
                                                           zip_dataset: Path) -> None:
    extracted = WebisDataset(folder_dataset)
    parent = WebisDataset(folder_dataset.parent)
    zipped = WebisDataset(zip_dataset)
    assert (extracted.layout, parent.layout, zipped.layout) == ("folder", "folder", "zip")
    assert extracted.ids() == parent.ids() == zipped.ids() == ALL_IDS
    from_folder = _contents(extracted)
    assert from_folder == _contents(parent) == _contents(zipped)
    assert set(from_folder["000000"]) == {p.name for p in (folder_dataset / "000000").iterdir()}
    assert set(from_folder[SCREENSHOT_ONLY_ID]) == {"page.png"}

def test_zip_parts_are_named_and_split_like_the_published_ones(zip_dataset: Path) -> None:
    assert sorted(path.name for path in zip_dataset.iterdir()) == [
        "webis-webseg-20-annotations.zip", "webis-webseg-20-dom-and-nodes.zip",
        "webis-webseg-20-ground-truth.zip", "webis-webseg-20-other.zip",
        "webis-webseg-20-screenshots-edges.zip",
    ]
    with zipfile.ZipFile(zip_dataset / "webis-webseg-20-dom-and-nodes.zip") as archive:
        assert sorted(archive.namelist()) == [
            f"webis-webseg-20/{page}/{name}" for page in ("000000", SECOND_ID)
            for name in ("dom.html", "nodes-texts.csv", "nodes.csv")]

def test_a_single_zip_file_is_a_dataset(zip_dataset: Path) -> None:
    dataset = WebisDataset(zip_dataset / "webis-webseg-20-ground-truth.zip")
    assert dataset.ids() == ["000000", SECOND_ID]
    assert [page.files for page in dataset] == [["ground-truth.json"]] * 2

def test_zip_pages_are_extracted_on_demand_and_removed(zip_dataset: Path,
                                                       tmp_path: Path) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    page = WebisDataset(zip_dataset).page("000000")
    assert page.folder is None and "nodes.csv" in page.files
    with page.open(scratch) as folder:
        assert (folder / "nodes.csv").is_file()
        capture = capture_from_webis(folder)
    assert not folder.exists() and list(scratch.iterdir()) == []
    assert capture.page_id == "000000" and len(capture.nodes) == 442
    assert (capture.width, capture.height) == (1366, 5590)
    with pytest.raises(RuntimeError), page.open(scratch) as folder:
        raise RuntimeError("segmenter failed")
    assert list(scratch.iterdir()) == []

def test_ids_require_and_limit_filter_in_id_order(folder_dataset: Path,
                                                  zip_dataset: Path) -> None:
    for root in (folder_dataset, zip_dataset):
        assert WebisDataset(root, require=EVALUATION_FILES).ids() == ["000000", SECOND_ID]
        assert WebisDataset(root, ids=[SECOND_ID, "000000"]).ids() == ["000000", SECOND_ID]
        assert WebisDataset(root, limit=1).ids() == ["000000"]
        assert WebisDataset(root, require=EVALUATION_FILES, limit=0).ids() == []
        assert len(WebisDataset(root, ids=[SCREENSHOT_ONLY_ID], require=EVALUATION_FILES)) == 0

def test_the_shared_sample_folder_is_a_dataset(webis_sample: Path) -> None:
    dataset = WebisDataset(webis_sample, require=EVALUATION_FILES)
    assert dataset.ids() == ["000000"]

def test_unknown_ids_name_the_missing_pages(folder_dataset: Path) -> None:
    with pytest.raises(DatasetError, match=r"1 requested page id\(s\) not in the dataset: 123456"):
        WebisDataset(folder_dataset, ids=["000000", "123456"])
    with pytest.raises(DatasetError, match="no page '999999'"):
        WebisDataset(folder_dataset).page("999999")

def test_bad_roots_raise_dataset_errors(tmp_path: Path, folder_dataset: Path) -> None:
    with pytest.raises(DatasetError, match="no such dataset folder"):
        WebisDataset(tmp_path / "absent")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(DatasetError, match="not a Webis-WebSeg-20 dataset"):
        WebisDataset(empty)
    not_zip = tmp_path / "notes.txt"
    not_zip.write_text("hello")
    with pytest.raises(DatasetError, match="not a zip file"):
        WebisDataset(not_zip)
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "webis-webseg-20-ground-truth.zip").write_bytes(b"PK\x03\x04 truncated")
    with pytest.raises(DatasetError, match="unreadable zip part"):
        WebisDataset(broken).ids()
    with pytest.raises(DatasetError, match="limit must be >= 0"):
        WebisDataset(folder_dataset, limit=-1)

def test_members_outside_page_folders_are_ignored(tmp_path: Path, webis_page: Path) -> None:
    root = tmp_path / "zips"
    root.mkdir()
    with zipfile.ZipFile(root / "parts.zip", "w") as archive:
        archive.writestr("webis-webseg-20/README.txt", "not a page")
        archive.writestr("webis-webseg-20/000000/", "")
        archive.write(webis_page / "nodes.csv", "webis-webseg-20/000000/nodes.csv")
        archive.writestr("other/abc/nodes.csv", "not a page id")
    dataset = WebisDataset(root)
    assert dataset.ids() == ["000000"]
    assert dataset.page("000000").files == ["nodes.csv"]

def test_folder_pages_are_not_copied(folder_dataset: Path) -> None:
    page = WebisDataset(folder_dataset).page("000000")
    with page.open() as folder:
        assert folder == folder_dataset / "000000"
    assert (folder / "nodes.csv").is_file()  # the dataset is the caller's: never deleted
