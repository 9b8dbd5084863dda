"""Page capture: render a page in Chromium into a PageCapture (Webis folders: :mod:`wps.webis`)."""

from .browser import Browser, CaptureOptions, capture_page, find_chromium
from .screenshots import discard_screenshot

__all__ = ["Browser", "CaptureOptions", "capture_page", "discard_screenshot", "find_chromium"]
