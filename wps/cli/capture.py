"""``wps capture SOURCE --out DIR``: render a page and write a page-capture folder."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..errors import UsageError
from . import say

DEFAULTS_NOTE = "defaults match Webis-WebSeg-20 (1366 px wide, 16,384 px cap)"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "capture",
        help="render a page in Chromium and write a page capture folder",
        description=f"Render a URL or a local .html/.html.gz file; {DEFAULTS_NOTE}.",
    )
    parser.add_argument("source", help="http(s) URL or local .html / .html.gz file")
    parser.add_argument("--out", required=True, type=Path, help="capture folder to write")
    add_capture_options(parser)
    parser.set_defaults(run=run)


def add_capture_options(parser: argparse.ArgumentParser) -> None:
    """The rendering options shared by ``wps capture`` and ``wps batch``."""
    group = parser.add_argument_group("rendering")
    group.add_argument("--width", type=int, default=1366, help="viewport width (px)")
    group.add_argument("--height", type=int, default=768, help="viewport height (px)")
    group.add_argument("--max-height", type=int, default=16384,
                       help="page height / screenshot cap (px)")
    group.add_argument("--timeout", type=float, default=30.0, help="seconds per page, all stages")
    group.add_argument("--settle", type=float, default=0.5, help="idle seconds after load")
    group.add_argument("--scroll-steps", type=int, default=30,
                       help="lazy-loading scroll steps (0 disables)")
    group.add_argument("--scroll-seconds", type=float, default=5.0,
                       help="time bound of the scroll pass")
    group.add_argument("--scroll-always", action="store_true",
                       help="scroll every page (default: skip pages where no script watches "
                       "scrolling and nothing loads lazily, in any frame: it cannot change them)")
    group.add_argument("--no-screenshot", action="store_true", help="skip the screenshot")
    group.add_argument("--strict-load", action="store_true",
                       help="a page that never finishes loading is a timeout error (default: "
                       "captured as it rendered, marked incomplete)")
    group.add_argument("--user-agent", default=None, help="User-Agent header")
    group.add_argument("--chromium", default=None, help="Chromium binary (else $WPS_CHROMIUM)")
    safety = parser.add_argument_group("what an untrusted page may reach (README: Security)")
    safety.add_argument("--allow-private", action="store_true",
                        help="let the page and its requests reach loopback, private, link-local "
                        "and reserved addresses (default: refused)")
    safety.add_argument("--same-origin", action="store_true",
                        help="web pages: nothing from other origins, each redirect hop checked: "
                        "subresources, frames, navigations (default: third-party stylesheets, "
                        "fonts and images load)")
    safety.add_argument("--frames", choices=("same-origin", "all", "none"), default="same-origin",
                        help="iframes loaded and captured (default: %(default)s)")
    safety.add_argument("--max-renderer-mb", type=int, default=2048,
                        help="stop a page whose renderers hold more memory (MiB; default "
                        "%(default)s)")


def options_from_args(args: argparse.Namespace):  # -> CaptureOptions (import kept lazy)
    """The :class:`~wps.capture.CaptureOptions` the rendering arguments describe."""
    from ..capture import CaptureOptions
    from ..capture.options import check_seconds

    # Checked here too so that the message names the option, not the CaptureOptions field.
    check_seconds("--timeout", args.timeout, allow_zero=False)
    check_seconds("--settle", args.settle, allow_zero=True)
    check_seconds("--scroll-seconds", args.scroll_seconds, allow_zero=True)
    if args.scroll_steps < 0:
        raise UsageError(f"--scroll-steps must be >= 0, got {args.scroll_steps}")
    return CaptureOptions(
        viewport_width=args.width,
        viewport_height=args.height,
        max_height=args.max_height,
        timeout_s=args.timeout,
        settle_s=args.settle,
        scroll_max_steps=args.scroll_steps,
        scroll_max_seconds=args.scroll_seconds,
        scroll_always=args.scroll_always,
        screenshot=not args.no_screenshot,
        user_agent=args.user_agent,
        chromium_path=args.chromium,
        allow_private=args.allow_private,
        same_origin=args.same_origin,
        frames=args.frames,
        max_renderer_mb=args.max_renderer_mb,
        allow_incomplete=not args.strict_load,
    )


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
