"""Page capture: render a page in Chromium, or read a Webis-WebSeg-20 page folder, into a PageCapture."""

from .webis import capture_from_webis

__all__ = ["capture_from_webis"]
