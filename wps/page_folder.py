"""The names of a page output folder's files (``wps segment --out``, one page of ``wps batch``):
written by :mod:`wps.output`, read back by :mod:`wps.report.folders`; ``segments.jsonl`` is
:data:`wps.records.SEGMENTS_FILE`, ``report.html`` :data:`wps.report.page.REPORT_FILE`."""

__all__ = ["CAPTURE_DIR", "MAIN_TEXT_FILE", "OVERLAY_FILE", "SEGMENTATION_FILE"]

CAPTURE_DIR = "capture"
SEGMENTATION_FILE = "segmentation.json"
OVERLAY_FILE = "overlay.png"
MAIN_TEXT_FILE = "main-text.json"
"""The text step's page report, written beside the outputs by ``wps segment`` and ``wps batch``."""
