"""One Chromium for the whole capture test session, with fast settle and scroll bounds."""

from __future__ import annotations

import pytest

from wps.capture import Browser, CaptureOptions


def quick_options(**overrides: object) -> CaptureOptions:
    """Options that keep tests fast: no idle settle, a short scroll pass, a short timeout."""
    values: dict[str, object] = {
        "settle_s": 0.0, "scroll_max_steps": 3, "scroll_pause_s": 0.05, "timeout_s": 10.0,
        "allow_private": True,  # the test pages are served on 127.0.0.1
    }
    values.update(overrides)
    return CaptureOptions(**values)  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def quick():
    """The :func:`quick_options` factory (test modules cannot import conftest)."""
    return quick_options


@pytest.fixture(scope="session")
def browser():
    with Browser(quick_options()) as session_browser:
        yield session_browser
