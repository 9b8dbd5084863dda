"""Page capture: render a page in Chromium into a PageCapture (Webis folders: :mod:`wps.webis`)."""

from .browser import Browser, CaptureOptions, capture_page, find_chromium
from .screenshots import discard_screenshot
from .stored import capture_stored

__all__ = ["Browser", "CaptureOptions", "capture_page", "capture_stored",
           "discard_screenshot", "find_chromium"]
