"""Dataset loaders: Webis-WebSeg-20 pages (folders or zip parts) and the published result tables."""

from __future__ import annotations

from .published import PUBLISHED_TABLES, PublishedRow, PublishedScore, PublishedTable
from .webis import EVALUATION_FILES, PUBLISHED_PARTS, WebisDataset, WebisPage, write_zip_parts

__all__ = [
    "WebisDataset", "WebisPage", "EVALUATION_FILES", "PUBLISHED_PARTS", "write_zip_parts",
    "PUBLISHED_TABLES", "PublishedTable", "PublishedRow", "PublishedScore",
]
