"""Rendering options and where the Chromium binary is."""

from __future__ import annotations

import math
import os
import shutil
from dataclasses import dataclass
from typing import Any

from ..errors import BrowserNotFoundError, UsageError
from ..settings import none_for_empty, packaged_defaults

FRAME_MODES = ("same-origin", "all", "none")

CHROMIUM_CANDIDATES = (
    "/usr/lib/chromium/chromium",  # Debian's real binary: deterministic flags
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/bin/google-chrome",
)


@dataclass(frozen=True, slots=True)
@packaged_defaults("capture", timeout_s="run.timeout_s")
class CaptureOptions:
    """How to render and capture a page: the ``[capture]`` section of the run configuration (its
    defaults, those of Webis-WebSeg-20, are in ``wps/defaults.toml``) and ``[run] timeout_s``."""

    viewport_width: int
    viewport_height: int
    max_height: int
    """Screenshot and page-height cap (px); taller pages are flagged ``screenshot_truncated``."""
    timeout_s: float
    """Wall-clock limit for the whole page: navigation, settle, scroll, walk and screenshot."""
    settle_s: float
    """Idle time after ``load`` and web fonts, for late layout: the most, as the wait (and each
    lazy-scroll pause) ends once nothing the page started can still change it
    (:mod:`wps.capture.quiet`)."""
    settle_fixed: bool
    """Wait all of ``settle_s`` and every scroll pause, quiet or not."""
    scroll_max_steps: int
    scroll_max_seconds: float
    scroll_pause_s: float
    scroll_always: bool
    """Scroll every page, also those that show no way to react to it (``wps.capture.scroll``)."""
    screenshot: bool
    user_agent: str | None
    """``None``: a normal desktop Chrome string (headless Chromium's own one trips bot walls)."""
    allow_private: bool
    """Let the page and its requests reach loopback, private, link-local and reserved addresses
    (off: an untrusted page must not reach this machine or its network; tests serve on
    127.0.0.1)."""
    same_origin: bool
    """Web pages: nothing from another origin than the URL's, each redirect hop checked in the
    egress proxy: subresources, frames, navigations (off: real pages need their CDN's stylesheets
    and fonts). Local pages never reach the network."""
    frames: str
    """Which iframes are loaded and captured: ``same-origin``, ``all`` or ``none``."""
    allow_incomplete: bool
    """A page whose ``load`` event never comes is captured as it rendered, marked
    ``incomplete`` (off: such a page is a timeout error)."""
    load_share: float
    """Share of the page's time that waiting for ``load`` may take; the rest is for the walk,
    the screenshot and the later steps."""
    max_renderer_mb: int
    """A page whose renderers hold more anonymous memory than this (MiB) is stopped."""
    chromium_path: str | None
    """Chromium binary; ``None``: ``$WPS_CHROMIUM``, else the distribution's Chromium."""

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> CaptureOptions:
        """The options a resolved run configuration names: its ``[capture]`` section (``""`` for
        the binary or the agent: unset) and ``[run] timeout_s``."""
        values = {**config["capture"], "timeout_s": config["run"]["timeout_s"]}
        return cls(**none_for_empty(cls, values))

    def __post_init__(self) -> None:
        if self.viewport_width < 1 or self.viewport_height < 1 or self.max_height < 1:
            raise UsageError("viewport width, height and --max-height must be positive")
        check_seconds("timeout_s", self.timeout_s, allow_zero=False)
        for name in ("settle_s", "scroll_max_seconds", "scroll_pause_s"):
            check_seconds(name, getattr(self, name), allow_zero=True)
        if self.frames not in FRAME_MODES:
            raise UsageError(f"frames must be one of {', '.join(FRAME_MODES)}, "
                             f"got {self.frames!r}")
        if not 0 < self.load_share <= 1:
            raise UsageError(f"load_share must be in (0, 1], got {self.load_share}")
        if self.max_renderer_mb < 64:
            raise UsageError(f"max_renderer_mb must be at least 64, got {self.max_renderer_mb}")
        if self.scroll_max_steps < 0:
            raise UsageError(f"scroll_max_steps must be >= 0, got {self.scroll_max_steps}")


def check_seconds(name: str, value: float, *, allow_zero: bool) -> None:
    """Refuse NaN, infinities and out-of-range durations (NaN slips through ``<`` comparisons).

    ``name`` is what the message calls the value: a field here, an option in the CLI.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise UsageError(f"{name} must be a number, got {value!r}")
    if not math.isfinite(value) or value < 0 or (value == 0 and not allow_zero):
        rule = ">= 0" if allow_zero else "> 0"
        raise UsageError(f"{name} must be a finite number {rule}, got {value:g}")


def find_chromium(explicit: str | None = None) -> str:
    """The Chromium binary to launch: ``explicit``, else ``$WPS_CHROMIUM``, else a known path."""
    wanted = explicit or os.environ.get("WPS_CHROMIUM")
    if wanted:
        found = wanted if os.path.isfile(wanted) else shutil.which(wanted)
        if not found or not os.access(found, os.X_OK):
            origin = "chromium path" if explicit else "WPS_CHROMIUM"
            raise BrowserNotFoundError(f"{wanted}: no Chromium executable there (from {origin})")
        return found
    for candidate in CHROMIUM_CANDIDATES:
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    raise BrowserNotFoundError(
        "chromium: not found (apt-get install chromium, or set WPS_CHROMIUM to the binary)"
    )
