"""Webis-WebSeg-20 as a stream of pages, from extracted folders or from the published zip parts.

The dataset is published as zip parts (``-000000``, ``-dom-and-nodes``, ``-screenshots``,
``-screenshots-edges``, ``-annotations``, ``-ground-truth``) that all extract to
``webis-webseg-20/<id>/<file>``. The capture builder and the evaluator want a page *folder*, so for
zip input each page's members are extracted to a temporary folder named ``<id>`` while the page is
open and deleted when it is closed: a full run never needs the ~8,490 extracted pages on disk.
"""

from __future__ import annotations

import re
import shutil
import tempfile
import zipfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Self

from ..errors import DatasetError

DATASET_FOLDER = "webis-webseg-20"
PAGE_ID = re.compile(r"^\d{6}$")
GROUND_TRUTH = "ground-truth.json"
EVALUATION_FILES = ("ground-truth.json", "nodes.csv")
"""What a page needs to be segmented from the dataset and evaluated."""

PUBLISHED_PARTS: dict[str, tuple[str, ...]] = {
    "dom-and-nodes": ("dom.html", "nodes.csv", "nodes-texts.csv"),
    "screenshots": ("screenshot.png",),
    "screenshots-edges": ("screenshot-edges-fine.png", "screenshot-edges-coarse.png"),
    "annotations": ("annotations.json", "fitted-annotations.json"),
    "ground-truth": ("ground-truth.json",),
}
"""Zip part suffix -> the page files it holds, as on Zenodo; other files go to part ``other``."""

__all__ = ["WebisDataset", "WebisPage", "DATASET_FOLDER", "EVALUATION_FILES", "PUBLISHED_PARTS",
           "find_layout", "write_zip_parts"]


@dataclass(slots=True)
class WebisPage:
    """One dataset page: either an extracted folder or members spread over several zip parts."""

    id: str
    folder: Path | None = None
    """The page folder for the folder layouts; ``None`` for zip input."""
    members: dict[str, tuple[Path, str]] = field(default_factory=dict)
    """For zip input: file name -> (zip part, member name inside it)."""
    archives: dict[Path, zipfile.ZipFile] | None = field(default=None, repr=False, compare=False)
    """Open zip parts shared by the dataset's pages: reading a part's central directory costs
    ~0.25 s for the full dataset, far too much to repeat per page."""

    @property
    def files(self) -> list[str]:
        """Names of the page's files (``nodes.csv``, ``ground-truth.json``, ...), sorted."""
        if self.folder is not None:
            return sorted(path.name for path in self.folder.iterdir() if path.is_file())
        return sorted(self.members)

    def has(self, *names: str) -> bool:
        """Whether the page holds every one of the named files."""
        present = set(self.files)
        return all(name in present for name in names)

    @contextmanager
    def open(self, scratch: str | Path | None = None) -> Iterator[Path]:
        """A folder named ``<id>`` holding the page's files, valid inside the ``with`` block.

        Folder layouts yield the dataset folder itself (nothing is copied). Zip input extracts
        the page's members into a fresh temporary folder under ``scratch`` (default: the system
        temporary directory) and removes it on exit, even when the block raises.
        """
        if self.folder is not None:
            yield self.folder
            return
        holder = Path(tempfile.mkdtemp(prefix=f"wps-webis-{self.id}-", dir=scratch))
        try:
            page_dir = holder / self.id
            page_dir.mkdir()
            _extract_members(self.id, self.members, page_dir, self.archives)
            yield page_dir
        finally:
            shutil.rmtree(holder, ignore_errors=True)


class WebisDataset:
    """Pages of Webis-WebSeg-20 in id order, read lazily one at a time.

    ``root`` may be (a) a ``webis-webseg-20/`` folder with ``<id>/`` subfolders, (b) a folder
    containing ``webis-webseg-20/``, (c) a folder holding the published zip parts (any ``*.zip``
    whose members are ``webis-webseg-20/<id>/<file>``), or a single such zip file. ``ids`` keeps
    only the named pages (an id missing from the dataset is an error); ``require`` keeps only the
    pages holding those files (e.g. :data:`EVALUATION_FILES`); ``limit`` stops after that many.
    """

    def __init__(
        self,
        root: str | Path,
        *,
        ids: Iterable[str] | None = None,
        require: Iterable[str] = (),
        limit: int | None = None,
    ) -> None:
        self.root = Path(root)
        if limit is not None and limit < 0:
            raise DatasetError(f"{self.root}: page limit must be >= 0, got {limit}")
        self.layout, self._base = find_layout(self.root)
        self.require = tuple(require)
        self.limit = limit
        self._zip_index: dict[str, dict[str, tuple[Path, str]]] | None = None
        self._archives: dict[Path, zipfile.ZipFile] = {}
        self._wanted = None if ids is None else sorted({str(page_id) for page_id in ids})
        if self._wanted is not None:
            known = set(self._all_ids())
            missing = [page_id for page_id in self._wanted if page_id not in known]
            if missing:
                shown = ", ".join(missing[:5]) + (" ..." if len(missing) > 5 else "")
                raise DatasetError(f"{self.root}: {len(missing)} requested page id(s) not in the "
                                   f"dataset: {shown}")

    # ------------------------------------------------------------------------------------ pages
    def ids(self) -> list[str]:
        """Ids of the pages this dataset yields (after ``ids``, ``require`` and ``limit``)."""
        return [page.id for page in self]

    def __iter__(self) -> Iterator[WebisPage]:
        count = 0
        for page_id in self._wanted if self._wanted is not None else self._all_ids():
            if self.limit is not None and count >= self.limit:
                return
            page = self._page(page_id)
            if self.require and not page.has(*self.require):
                continue
            count += 1
            yield page

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def page(self, page_id: str) -> WebisPage:
        """The page with this id, whatever the filters; :class:`DatasetError` if it is absent."""
        if page_id not in set(self._all_ids()):
            raise DatasetError(f"{self.root}: no page {page_id!r} in the dataset")
        return self._page(page_id)

    def close(self) -> None:
        """Close the zip parts the pages opened (they reopen on demand)."""
        archives, self._archives = list(self._archives.values()), {}
        for archive in archives:
            archive.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --------------------------------------------------------------------------------- internal
    def _all_ids(self) -> list[str]:
        if self.layout == "zip":
            return sorted(self._index())
        return sorted(
            entry.name for entry in self._base.iterdir()
            if entry.is_dir() and PAGE_ID.match(entry.name)
        )

    def _page(self, page_id: str) -> WebisPage:
        if self.layout == "zip":
            return WebisPage(page_id, members=dict(self._index()[page_id]),
                             archives=self._archives)
        return WebisPage(page_id, folder=self._base / page_id)

    def _index(self) -> dict[str, dict[str, tuple[Path, str]]]:
        """page id -> file -> (zip part, member), from the parts' central directories only."""
        if self._zip_index is None:
            index: dict[str, dict[str, tuple[Path, str]]] = {}
            for part in _zip_parts(self.root):
                for member in _zip_names(part):
                    found = _member_page(member)
                    if found is not None:
                        page_id, name = found
                        index.setdefault(page_id, {}).setdefault(name, (part, member))
            self._zip_index = index
        return self._zip_index


def find_layout(root: Path) -> tuple[str, Path]:
    """``("folder", dir holding <id>/ folders)`` or ``("zip", root)``; DatasetError otherwise."""
    if root.is_file():
        if zipfile.is_zipfile(root):
            return "zip", root
        raise DatasetError(f"{root}: not a Webis-WebSeg-20 folder or zip part (not a zip file)")
    if not root.is_dir():
        raise DatasetError(f"{root}: no such dataset folder")
    for candidate in (root, root / DATASET_FOLDER):
        if candidate.is_dir() and any(
            entry.is_dir() and PAGE_ID.match(entry.name) for entry in candidate.iterdir()
        ):
            return "folder", candidate
    if any(root.glob("*.zip")):
        return "zip", root
    raise DatasetError(f"{root}: not a Webis-WebSeg-20 dataset (no <id>/ page folders, no "
                       f"{DATASET_FOLDER}/ folder, no *.zip parts)")


def _zip_parts(root: Path) -> list[Path]:
    return [root] if root.is_file() else sorted(root.glob("*.zip"))


def _zip_names(part: Path) -> list[str]:
    try:
        with zipfile.ZipFile(part) as archive:
            return archive.namelist()
    except (zipfile.BadZipFile, OSError) as err:
        raise DatasetError(f"{part}: unreadable zip part ({err})") from None


def _member_page(member: str) -> tuple[str, str] | None:
    """``(id, file)`` for a member ``[...]/<id>/<file>``; ``None`` for folders and other files."""
    parts = member.split("/")
    if len(parts) < 2 or not parts[-1] or not PAGE_ID.match(parts[-2]):
        return None
    return parts[-2], parts[-1]


def _extract_members(page_id: str, members: dict[str, tuple[Path, str]], target: Path,
                     archives: dict[Path, zipfile.ZipFile] | None) -> None:
    own: dict[Path, zipfile.ZipFile] = {}
    pool = own if archives is None else archives
    try:
        for name, (part, member) in members.items():
            try:
                if part not in pool:
                    pool[part] = zipfile.ZipFile(part)
                with pool[part].open(member) as source, open(target / name, "wb") as sink:
                    shutil.copyfileobj(source, sink, 1 << 20)
            except (zipfile.BadZipFile, OSError, EOFError, KeyError) as err:
                raise DatasetError(f"{part}: cannot extract page {page_id} ({err})") from None
    finally:
        for archive in own.values():
            archive.close()


def write_zip_parts(pages: Iterable[WebisPage], target: str | Path,
                    prefix: str = DATASET_FOLDER) -> list[Path]:
    """Pack pages as zip parts laid out like the published ones; returns the parts written.

    Members are ``webis-webseg-20/<id>/<file>``, split over ``<prefix>-<part>.zip`` by
    :data:`PUBLISHED_PARTS`. Useful to ship a subset in the published layout (and to test the zip
    reader). Each part is written to a temporary name and renamed when complete.
    """
    target = Path(target)
    target.mkdir(parents=True, exist_ok=True)
    part_of = {name: part for part, names in PUBLISHED_PARTS.items() for name in names}
    archives: dict[str, tuple[zipfile.ZipFile, Path]] = {}
    try:
        for page in pages:
            with page.open() as folder:
                for path in sorted(folder.iterdir()):
                    if not path.is_file():
                        continue
                    part = part_of.get(path.name, "other")
                    if part not in archives:
                        temporary = target / f".{prefix}-{part}.zip.partial"
                        archives[part] = (zipfile.ZipFile(temporary, "w", zipfile.ZIP_DEFLATED),
                                          temporary)
                    archives[part][0].write(path, f"{DATASET_FOLDER}/{page.id}/{path.name}")
        written = []
        for part, (archive, temporary) in sorted(archives.items()):
            archive.close()
            final = target / f"{prefix}-{part}.zip"
            temporary.replace(final)
            written.append(final)
        return written
    except BaseException:
        for archive, temporary in archives.values():
            archive.close()
            temporary.unlink(missing_ok=True)
        raise
