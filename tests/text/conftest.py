"""The text tests' captures: built by hand (:mod:`hand_capture`) or rendered in one Chromium."""

from __future__ import annotations

import pytest
from hand_capture import build_capture


@pytest.fixture(scope="session")
def make_capture():
    """``make_capture(tree)``: a hand-built capture (see :func:`build_capture`)."""
    return build_capture


@pytest.fixture(scope="session")
def text_browser():
    """One Chromium for the text tests that render pages (fast settle, short scroll pass)."""
    from wps.capture import Browser, CaptureOptions

    options = CaptureOptions(settle_s=0.0, scroll_max_steps=2, scroll_pause_s=0.05,
                             timeout_s=20.0, screenshot=False, allow_private=True)
    with Browser(options) as browser:
        yield browser
