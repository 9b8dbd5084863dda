"""The ``wps`` command: parse, build the API's options, call the API.

Each subcommand is one module of this package with a ``register(subparsers)`` function that adds
its parser and sets ``run=<function(args) -> int>``; modules are found automatically, so a new
command touches nothing else. Every ``WpsError`` becomes one line on stderr and its exit code;
``--debug`` shows the traceback instead. SIGTERM unwinds like Ctrl-C (exit 143), so temporary
folders are removed and Chromium is closed on every exit a process can see.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import importlib
import logging
import pkgutil
import re
import signal
import sys
import threading
from collections.abc import Iterator
from typing import Any, NoReturn

from .. import __version__
from ..errors import UsageError, WpsError
from ..files import TERMINATED_EXIT, Terminated, sigterm_unwinds

INTERNAL_ERROR_EXIT = 1
INTERRUPTED_EXIT = 130


LISTED = "listed"
"""An option's attribute holding a function that returns its valid values, named in its help."""


class _DefaultsHelpFormatter(argparse.HelpFormatter):
    """Every described option states its default, unless its help already says it or it has none."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        listed = getattr(action, LISTED, None)
        if listed is not None:  # computed only when help is shown (it may import modules)
            text += f" (one of: {', '.join(listed())})"
        if (action.option_strings and action.nargs != 0 and "default" not in text.lower()
                and action.default not in (None, "", [], argparse.SUPPRESS)):
            text += " (default: %(default)s)"
        return text


class _OneLineErrorParser(argparse.ArgumentParser):
    """Usage errors (bad option value, missing argument) as one ``wps: error:`` line like every
    other error; ``--help`` shows the usage. Subcommand parsers inherit this class and its help
    formatter."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        kwargs.setdefault("formatter_class", _DefaultsHelpFormatter)
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    def error(self, message: str) -> NoReturn:
        where = self.prog.removeprefix("wps").strip()
        self.exit(UsageError.exit_code, f"wps: error: {where + ': ' if where else ''}{message}"
                  f"{_suggestion(self, message)} (see {self.prog} --help)\n")


def _suggestion(parser: argparse.ArgumentParser, message: str) -> str:
    """``; did you mean --segmenter?`` for a mistyped option or command (difflib's closest
    match among the parser's own options and commands), else nothing."""
    words = re.findall(r"(?:unrecognized arguments|invalid choice): '?([^\s']+)", message)
    if not words:
        return ""
    known = [option for action in parser._actions for option in action.option_strings]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            known += list(action.choices)
    close = difflib.get_close_matches(words[0].split("=", 1)[0], known, n=1, cutoff=0.6)
    return f"; did you mean {close[0]}?" if close else ""


def build_parser() -> argparse.ArgumentParser:
    parser = _OneLineErrorParser(
        prog="wps", description="Browser-rendered web page segmentation toolkit."
    )
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    parser.add_argument("--version", action="version", version=f"wps {__version__}")
    _add_verbosity(parser, 0)
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if module.name.startswith("_"):
            continue
        importlib.import_module(f"{__name__}.{module.name}").register(subparsers)
    for command in subparsers.choices.values():  # `wps segment ... --debug` works as well
        command.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                             help="show tracebacks on errors")
        _add_verbosity(command, argparse.SUPPRESS)
    return parser


def _add_verbosity(parser: argparse.ArgumentParser, default: object) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument("-q", "--quiet", action="store_const", const=-1, dest="verbosity",
                       default=default, help="errors only: no progress, no closing lines")
    group.add_argument("-v", "--verbose", action="count", dest="verbosity", default=default,
                       help="more: -v logs each page of a batch, -vv everything wps logs")


_VERBOSITY = 0
"""-1 with ``-q``, the count of ``-v`` otherwise (set by :func:`main`)."""


def say(message: str) -> None:
    """An informational line on stderr (what was written where), unless ``-q`` was given; a
    name that is not UTF-8 (a file's) shows escaped, whatever stream stderr is."""
    if _VERBOSITY >= 0:
        print(message.encode("utf-8", "backslashreplace").decode("utf-8"), file=sys.stderr)


def quiet() -> bool:
    """Whether ``-q`` was given (a batch then shows no progress either)."""
    return _VERBOSITY < 0


class _StderrHandler(logging.StreamHandler):
    """Writes to whatever ``sys.stderr`` is when a record comes (tests and callers swap it)."""

    def emit(self, record: logging.LogRecord) -> None:
        self.stream = sys.stderr
        super().emit(record)


_LOG_HANDLER = _StderrHandler()
_LOG_HANDLER.setFormatter(logging.Formatter("wps: %(message)s"))


def _set_verbosity(verbosity: int) -> None:
    """``-q``/``-v``: informational lines on or off, and the level of wps's own loggers (to
    this run's stderr, whatever the root logger does)."""
    global _VERBOSITY
    _VERBOSITY = verbosity
    logger = logging.getLogger("wps")
    logger.setLevel({-1: logging.ERROR, 0: logging.WARNING, 1: logging.INFO}.get(
        verbosity, logging.DEBUG))
    if _LOG_HANDLER not in logger.handlers:
        logger.addHandler(_LOG_HANDLER)
        logger.propagate = False


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # reported by the subcommand's parser, which knows its own options
        command = _subcommand_parser(parser, args.command)
        command.error(f"unrecognized arguments: {' '.join(unknown)}")
    _set_verbosity(args.verbosity)
    with sigterm_unwinds(), _sigint_noted():
        return _run(args)


def _subcommand_parser(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices[name]
    return parser


_SIGINT_SEEN = threading.Event()
"""Set by Ctrl-C. A terminal's Ctrl-C also reaches Chromium and the Playwright driver, whose
death can surface as a capture error before Python raises KeyboardInterrupt: an interrupted
run still ends as interrupted (exit 130)."""


@contextlib.contextmanager
def _sigint_noted() -> Iterator[None]:
    _SIGINT_SEEN.clear()
    previous = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or not callable(previous):
        yield  # not the main thread, or Ctrl-C ignored (a background job) or left to the OS
        return

    def noted(signum: int, frame: Any) -> None:
        _SIGINT_SEEN.set()
        previous(signum, frame)

    signal.signal(signal.SIGINT, noted)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _run(args: argparse.Namespace) -> int:
    try:
        code = int(args.run(args) or 0)
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's exit
        return code
    except BrokenPipeError:  # the reader stopped early (`| head`): not an error
        _discard_stdout()
        return 0
    except WpsError as err:
        if _SIGINT_SEEN.is_set():
            print("wps: interrupted", file=sys.stderr)
            return INTERRUPTED_EXIT
        if args.debug:
            raise
        print(f"wps: error: {err}", file=sys.stderr)
        return err.exit_code
    except Terminated:
        print("wps: terminated", file=sys.stderr)
        return TERMINATED_EXIT
    except KeyboardInterrupt:
        print("wps: interrupted", file=sys.stderr)
        return INTERRUPTED_EXIT
    except Exception as err:  # a bug, not bad input: still one line unless --debug
        if args.debug:
            raise
        print(f"wps: internal error: {type(err).__name__}: {err} (rerun with --debug)",
              file=sys.stderr)
        return INTERNAL_ERROR_EXIT


def _discard_stdout() -> None:
    """Point stdout at /dev/null so Python's final flush cannot fail on the closed pipe again."""
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
