"""Errors of wps: each one prints as one line and maps to a distinct exit code.

The CLI prints ``wps: error: <message>`` and exits with ``exit_code``; messages name the input
(URL, file, folder) and the cause, so a user never needs a traceback to know what went wrong.
"""

from __future__ import annotations


class WpsError(Exception):
    """Base class of every error wps raises on bad input or a failed stage."""

    exit_code: int = 2


class UsageError(WpsError):
    """An option or argument is invalid (bad value, conflicting options)."""

    exit_code = 2


class InputFileError(WpsError):
    """An input file or folder is missing, unreadable or malformed."""

    exit_code = 3


class SchemaError(InputFileError):
    """A Webis-WebSeg-20 segmentation JSON violates the format (the rules the R code enforces)."""

    exit_code = 4


class DatasetError(InputFileError):
    """A Webis-WebSeg-20 page folder or archive is incomplete or malformed."""

    exit_code = 5


class UnknownSegmenterError(UsageError):
    """No segmenter is registered under the requested name."""

    exit_code = 6


class SegmentationError(WpsError):
    """A segmenter could not segment a page."""

    exit_code = 7


class CaptureError(WpsError):
    """Rendering or capturing a page failed; subclasses name the cause."""

    exit_code = 10


class BrowserNotFoundError(CaptureError):
    """No Chromium binary was found (set WPS_CHROMIUM or install Debian's chromium)."""

    exit_code = 11


class NetworkError(CaptureError):
    """The host could not be reached: DNS failure, refused or reset connection, unreachable host."""

    exit_code = 12


class HttpStatusError(CaptureError):
    """The server answered with an HTTP error status (4xx or 5xx)."""

    exit_code = 13


class NotHtmlError(CaptureError):
    """The response is not an HTML page (PDF, image, JSON, ...)."""

    exit_code = 14


class RedirectLoopError(CaptureError):
    """The page redirects in a loop or too many times."""

    exit_code = 15


class PageTimeoutError(CaptureError):
    """The page did not finish loading or capturing within the time limit."""

    exit_code = 16


class BrowserCrashError(CaptureError):
    """The browser or the page's renderer crashed twice in a row."""

    exit_code = 17


class BlockedTargetError(CaptureError):
    """The page URL or a redirect reaches a place wps does not visit: a loopback, private,
    link-local or reserved address (without ``--allow-private``), or a local file outside the
    page's own folder."""

    exit_code = 18


class NavigationError(CaptureError):
    """The page left itself: its main frame ended on another URL than allowed, on the browser's
    own error page, or it kept navigating so that it could not be captured."""

    exit_code = 19


class EmptyPageError(CaptureError):
    """The page body is empty or binary (PDF, image bytes labelled as HTML): nothing to segment."""

    exit_code = 22


class PageMemoryError(CaptureError):
    """The page's renderer passed the memory limit and was stopped."""

    exit_code = 23


class ModelError(WpsError):
    """A model checkpoint or tokenizer path is missing, unreadable or incompatible."""

    exit_code = 20


class MissingDependencyError(WpsError):
    """An optional dependency is not installed; the message gives the pip command."""

    exit_code = 21


class OutputError(WpsError):
    """An output file or folder cannot be written (unwritable place, a folder where a file goes)."""

    exit_code = 8


class OutputLockedError(OutputError):
    """Another ``wps batch`` holds the output folder's lock (two runs would redo each other's
    pages)."""

    exit_code = 24


class WorkerDiedError(WpsError):
    """A worker process died (killed, out of memory) while it held a task (:mod:`wps.executor`);
    the exit code of a process that crashed, as a batch records such a page."""

    exit_code = 1


def os_reason(err: OSError) -> str:
    """The OS's reason for ``err`` without Python's '[Errno N]' and repeated path, for a one-line
    message."""
    return err.strerror or str(err)
