"""The published Webis-WebSeg-20 result tables that benchmark reports print beside ours.

The dataset's own files (pages, nodes, segmentation JSON) are read by :mod:`wps.webis`.
"""

from __future__ import annotations

from .published import PUBLISHED_TABLES, PublishedRow, PublishedScore, PublishedTable

__all__ = ["PUBLISHED_TABLES", "PublishedTable", "PublishedRow", "PublishedScore"]
