"""``wps capture SOURCE --out DIR``: render a page and write a page-capture folder."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..config import load_config, merge_config
from ..errors import UsageError
from ..settings import packaged_config
from . import say


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "capture",
        help="render a page in Chromium and write a page capture folder",
        description="Render a URL or a local .html/.html.gz file; the defaults (the [capture] "
        "section of wps/defaults.toml, `wps config show`) match Webis-WebSeg-20.",
    )
    parser.add_argument("source", help="http(s) URL or local .html / .html.gz file")
    parser.add_argument("--out", required=True, type=Path, help="capture folder to write")
    add_capture_options(parser)
    parser.set_defaults(run=run)


FLAG_SETTINGS = {
    "width": "capture.viewport_width", "height": "capture.viewport_height",
    "max_height": "capture.max_height", "timeout": "run.timeout_s", "settle": "capture.settle_s",
    "settle_fixed": "capture.settle_fixed",
    "scroll_steps": "capture.scroll_max_steps", "scroll_seconds": "capture.scroll_max_seconds",
    "scroll_always": "capture.scroll_always", "screenshot": "capture.screenshot",
    "allow_incomplete": "capture.allow_incomplete", "user_agent": "capture.user_agent",
    "chromium": "capture.chromium_path", "allow_private": "capture.allow_private",
    "same_origin": "capture.same_origin", "frames": "capture.frames",
    "max_renderer_mb": "capture.max_renderer_mb",
}
"""Rendering flag (its ``args`` name) -> the setting it overlays; an unset flag (``None``)
leaves the configured value."""


def add_capture_options(parser: argparse.ArgumentParser) -> None:
    """The rendering options shared by ``wps capture`` and ``wps batch``; each one overlays a
    setting of the run configuration (:data:`FLAG_SETTINGS`), whose default its help names."""
    default = _packaged_defaults()
    group = parser.add_argument_group("rendering")
    group.add_argument("--width", type=int, help=f"viewport width (px; default {default['width']})")
    group.add_argument("--height", type=int,
                       help=f"viewport height (px; default {default['height']})")
    group.add_argument("--max-height", type=int, help="page height / screenshot cap (px; "
                       f"default {default['max_height']})")
    group.add_argument("--timeout", type=float,
                       help=f"seconds per page, all stages (default {default['timeout']})")
    group.add_argument("--settle", type=float,
                       help=f"most idle seconds after load (default {default['settle']})")
    group.add_argument("--settle-fixed", action="store_true", default=None,
                       help="wait all of them, and every scroll pause (default: until no timer, "
                       "request, animation or DOM change of the page is under way)")
    group.add_argument("--scroll-steps", type=int, help="lazy-loading scroll steps (0 disables; "
                       f"default {default['scroll_steps']})")
    group.add_argument("--scroll-seconds", type=float, help="time bound of the scroll pass "
                       f"(default {default['scroll_seconds']})")
    group.add_argument("--scroll-always", action="store_true", default=None,
                       help="scroll every page (default: skip pages where no script watches "
                       "scrolling and nothing loads lazily, in any frame: it cannot change them)")
    group.add_argument("--no-screenshot", dest="screenshot", action="store_const", const=False,
                       help="skip the screenshot")
    group.add_argument("--strict-load", dest="allow_incomplete", action="store_const",
                       const=False, help="a page that never finishes loading is a timeout error "
                       "(default: captured as it rendered, marked incomplete)")
    group.add_argument("--user-agent", help="User-Agent header")
    group.add_argument("--chromium", help="Chromium binary (else $WPS_CHROMIUM)")
    safety = parser.add_argument_group("what an untrusted page may reach (README: Security)")
    safety.add_argument("--allow-private", action="store_true", default=None,
                        help="let the page and its requests reach loopback, private, link-local "
                        "and reserved addresses (default: refused)")
    safety.add_argument("--same-origin", action="store_true", default=None,
                        help="web pages: nothing from other origins, each redirect hop checked: "
                        "subresources, frames, navigations (default: third-party stylesheets, "
                        "fonts and images load)")
    safety.add_argument("--frames", help="iframes loaded and captured: same-origin, all or none "
                        f"(default: {default['frames']})")
    safety.add_argument("--max-renderer-mb", type=int,
                        help="stop a page whose renderers hold more memory (MiB; default "
                        f"{default['max_renderer_mb']})")


def _packaged_defaults() -> dict[str, Any]:
    """Each rendering flag's packaged default, for its help."""
    config = packaged_config()
    return {flag: config[table][key] for flag, (table, _, key)
            in ((flag, setting.partition(".")) for flag, setting in FLAG_SETTINGS.items())}


def overlay_flags(config: dict[str, Any], args: argparse.Namespace,
                  flags: dict[str, str]) -> dict[str, Any]:
    """``config`` with the setting of each given flag (``flags``: its ``args`` name -> the
    ``"section.key"`` it sets) replaced by the flag's value; unset flags (``None``) change
    nothing."""
    overlay: dict[str, dict[str, Any]] = {}
    for flag, setting in flags.items():
        value = getattr(args, flag, None)
        if value is not None:
            section, _, key = setting.partition(".")
            overlay.setdefault(section, {})[key] = str(value) if isinstance(value, Path) \
                else value
    return merge_config(config, overlay, source="command line") if overlay else config


def options_from_args(args: argparse.Namespace,
                      config: dict[str, Any] | None = None):  # -> CaptureOptions (lazy import)
    """The :class:`~wps.capture.CaptureOptions` of ``config`` (default: the packaged one)
    overlaid by the rendering arguments."""
    from ..capture import CaptureOptions
    from ..capture.options import check_seconds

    # Checked here too so that the message names the option, not the CaptureOptions field.
    for flag, allow_zero in (("timeout", False), ("settle", True), ("scroll_seconds", True)):
        if getattr(args, flag) is not None:
            check_seconds("--" + flag.replace("_", "-"), getattr(args, flag),
                          allow_zero=allow_zero)
    if args.scroll_steps is not None and args.scroll_steps < 0:
        raise UsageError(f"--scroll-steps must be >= 0, got {args.scroll_steps}")
    resolved = overlay_flags(config or load_config(), args, FLAG_SETTINGS)
    return CaptureOptions.from_config(resolved)


def run(args: argparse.Namespace) -> int:
    from ..capture import capture_page

    options = options_from_args(args)
    _check_replaceable(args.out)
    capture = capture_page(args.source, options)
    temp_screenshot = capture.screenshot
    try:
        capture.save(args.out)
    finally:
        _remove_temp_screenshot(temp_screenshot)
    say(
        f"{capture.url}: {len(capture.nodes)} nodes, {capture.width}x{capture.height} px"
        f"{' (truncated)' if capture.screenshot_truncated else ''}, "
        f"{capture.timings.get('total_s', 0):.2f} s -> {args.out}")
    return 0


def _check_replaceable(out: Path) -> None:
    """Saving replaces ``out`` as a whole: only an empty folder or an older capture may go."""
    if not out.exists():
        return
    if not out.is_dir():
        raise UsageError(f"{out}: --out exists and is not a folder")
    if any(out.iterdir()) and not (out / "capture.json").is_file():
        raise UsageError(f"{out}: --out is a non-empty folder that is not a page capture; "
                         "refusing to replace it")


def _remove_temp_screenshot(screenshot: Path | None) -> None:
    """``capture_page`` leaves the PNG in a temp folder; once saved, that folder goes."""
    from ..capture import discard_screenshot

    discard_screenshot(screenshot)
