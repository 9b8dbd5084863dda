"""The node files of a Webis-WebSeg-20 page folder: ``nodes.csv`` and ``nodes-texts.csv``.

Two kinds of reader, on purpose. The strict ones (:func:`read_node_rows`, :func:`read_node_texts`)
build a page capture and refuse any malformed row with a :class:`~wps.errors.DatasetError`. The
R-lenient ones (:func:`read_node_boxes`, :func:`read_character_counts`) read what the reference R
evaluation reads, the way it reads it: the evaluation must score the same pages R scores, and
for ``nodes-texts.csv`` any problem means "no text on the page", as in R.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from ..errors import DatasetError
from ..model import Box

__all__ = ["read_character_counts", "read_node_boxes", "read_node_rows", "read_node_texts"]

csv.field_size_limit(1 << 30)


def read_node_rows(path: Path) -> list[tuple[Box, str]]:
    """Strict ``nodes.csv`` reader for building a capture: any malformed row is a DatasetError."""
    rows = []
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            expected = {"left", "bottom", "right", "top", "xpath"}
            if reader.fieldnames is None or not expected <= set(reader.fieldnames):
                raise DatasetError(
                    f"{path}: header must be left,bottom,right,top,xpath, got {reader.fieldnames}"
                )
            for line, row in enumerate(reader, start=2):
                try:
                    left, bottom = float(row["left"]), float(row["bottom"])
                    right, top = float(row["right"]), float(row["top"])
                except (TypeError, ValueError):
                    raise DatasetError(f"{path}: row {line}: non-numeric box") from None
                xpath = row["xpath"] or ""
                if not xpath.startswith("/"):
                    raise DatasetError(f"{path}: row {line}: malformed XPath {xpath!r}")
                rows.append(((left, top, right, bottom), xpath))
    except UnicodeDecodeError as err:
        raise DatasetError(f"{path}: not UTF-8 text ({err.reason})") from None
    return rows


def read_node_texts(path: Path) -> dict[str, str]:
    """``nodes-texts.csv`` texts by XPath; empty when the file is missing, an error on a bad header."""
    if not path.exists():
        return {}
    texts: dict[str, str] = {}
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            if reader.fieldnames is None or not {"xpath", "text"} <= set(reader.fieldnames):
                raise DatasetError(f"{path}: header must be \"xpath\",\"ncharacter\",\"text\"")
            for row in reader:
                texts[row["xpath"]] = row["text"] or ""
    except UnicodeDecodeError as err:
        raise DatasetError(f"{path}: not UTF-8 text ({err.reason})") from None
    return texts


def read_node_boxes(path: str | Path) -> tuple[np.ndarray, list[str]]:
    """``nodes.csv`` (``left,bottom,right,top,xpath``) as (l, t, r, b) rows and XPaths, read as R
    does for the evaluation: blank lines skipped, a missing XPath read as ``""``."""
    path = Path(path)
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            rows = list(csv.reader(handle))
    except UnicodeDecodeError:
        raise DatasetError(f"{path}: unreadable nodes file (not UTF-8 text)") from None
    except (OSError, csv.Error) as err:
        raise DatasetError(f"{path}: unreadable nodes file ({err})") from None
    if not rows or [c.strip() for c in rows[0][:4]] != ["left", "bottom", "right", "top"]:
        raise DatasetError(f"{path}: header must start with left,bottom,right,top")
    boxes, xpaths = [], []
    for number, row in enumerate(rows[1:], start=2):
        if not row:
            continue
        try:
            left, bottom, right, top = (float(v) for v in row[:4])
        except ValueError:
            raise DatasetError(
                f"{path}: line {number}: non-numeric coordinates {row[:4]}"
            ) from None
        boxes.append((left, top, right, bottom))
        xpaths.append(row[4] if len(row) > 4 else "")
    return np.asarray(boxes, dtype=float).reshape(-1, 4), xpaths


def read_character_counts(path: str | Path) -> dict[str, float]:
    """``nodes-texts.csv`` lengths by XPath; like R, any problem means "no text on the page"."""
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            rows = list(csv.reader(handle))
    except (OSError, UnicodeDecodeError, csv.Error):
        return {}
    counts: dict[str, float] = {}
    try:
        header = rows[0]
        column = header.index("ncharacter")
        for row in rows[1:]:
            if not row:
                continue
            if row[0] in counts:  # read.csv(row.names=1) fails on duplicate XPaths
                return {}
            counts[row[0]] = float(row[column])
    except (IndexError, ValueError):
        return {}
    return counts
