"""Page capture: render a page in Chromium, or read a Webis-WebSeg-20 page folder, into a PageCapture."""

from .browser import Browser, CaptureOptions, capture_page, discard_screenshot, find_chromium
from .webis import capture_from_webis

__all__ = ["Browser", "CaptureOptions", "capture_page", "capture_from_webis", "discard_screenshot",
           "find_chromium"]
