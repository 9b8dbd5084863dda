"""Page capture: render a page in Chromium, or read a Webis-WebSeg-20 page folder, into a PageCapture."""

from .browser import Browser, CaptureOptions, capture_page, find_chromium
from .screenshots import discard_screenshot
from .webis import capture_from_webis

__all__ = ["Browser", "CaptureOptions", "capture_from_webis", "capture_page", "discard_screenshot",
           "find_chromium"]
