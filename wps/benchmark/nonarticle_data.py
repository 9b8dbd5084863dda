"""The non-article dev set as data: its pages, labels and page types (:class:`Dataset`), and
what happened to each page in a run (:class:`PageRun`). :mod:`.nonarticle` runs the pages,
:mod:`.nonarticle_scores` scores them, :mod:`.nonarticle_report` writes the results."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import DatasetError, UsageError

__all__ = ["NONARTICLE_TYPES", "TYPE_ORDER", "Dataset", "PageRun", "load_dataset",
           "select_pages"]

NONARTICLE_TYPES = ("index", "login", "table")
"""Page types whose kept text should be near zero (check.py sums their kept characters)."""
TYPE_ORDER = ("forum-thread", "index", "login", "product", "table", "homepage", "article")


@dataclass(slots=True)
class Dataset:
    root: Path
    labels: dict[str, dict[str, Any]]
    pages: dict[str, Path]

    @property
    def check_script(self) -> Path:
        return self.root / "check.py"

    def page_type(self, name: str) -> str:
        return str(self.labels[name].get("type", "?"))


def load_dataset(data: str | Path) -> Dataset:
    """The labels and page files of a nonarticle-dev folder; anything missing is a DatasetError
    before a browser starts."""
    root = Path(data)
    if not root.is_dir():
        raise DatasetError(f"{root}: no such dataset folder")
    for needed in ("labels.json", "check.py", "pages"):
        if not (root / needed).exists():
            raise DatasetError(f"{root}: not a nonarticle-dev folder (no {needed})")
    try:
        labels = json.loads((root / "labels.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise DatasetError(f"{root / 'labels.json'}: unreadable ({err})") from None
    if not isinstance(labels, dict) or not labels:
        raise DatasetError(f"{root / 'labels.json'}: expected a non-empty JSON object")
    pages = {name: root / "pages" / f"{name}.html.gz" for name in sorted(labels)}
    absent = [name for name, path in pages.items() if not path.is_file()]
    if absent:
        raise DatasetError(f"{root}: no pages/{absent[0]}.html.gz ({len(absent)} page(s) missing)")
    return Dataset(root, labels, pages)


def select_pages(dataset: Dataset, wanted: Iterable[str] | None) -> list[str]:
    """The pages to run, in the data set's order; an unknown name is a usage error."""
    if not wanted:
        return list(dataset.pages)
    wanted = [name.strip() for name in wanted if name.strip()]
    unknown = [name for name in wanted if name not in dataset.pages]
    if unknown:
        raise UsageError(f"--pages: unknown page {unknown[0]!r} (see {dataset.root}/README.md)")
    return [name for name in dataset.pages if name in set(wanted)]


@dataclass(slots=True)
class PageRun:
    """What happened to one page in the latest run that touched it."""

    name: str
    mode: str
    """``rendered``, ``from-capture`` (re-segmented), ``reused`` (earlier output) or ``failed``."""
    seconds: float | None = None
    """Wall time of :func:`wps.segment_to_directory` (render included when rendered)."""
    render_s: float | None = None
    """The capture's own ``total_s`` (rendering), when the page was rendered."""
    key: str = ""
    error_class: str = ""
    error: str = ""
    exit_code: int | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PageRun:
        return cls(**{key: data[key] for key in cls.__dataclass_fields__ if key in data})
