"""The page deadline's timer on the main thread: it stops code that never checks the deadline,
also when it fires inside a finalizer, which cannot raise."""

from __future__ import annotations

import gc
import sys
import time

import pytest

from wps.deadline import Deadline
from wps.errors import PageTimeoutError


class _SlowFinalizer:
    def __del__(self) -> None:
        time.sleep(1.0)  # the timer fires in here


def test_the_timer_stops_a_stage_after_a_finalizer_swallowed_its_error(capfd):
    """Garbage collection runs finalizers anywhere; the timer firing in one used to print
    "Exception ignored in ... __del__" and leave the page running unchecked (a fresh-clone run
    of test_timeout_bounds_the_whole_page printed it). It now fires again once the finalizer is
    done, and prints nothing."""
    hook = sys.unraisablehook
    gc.collect()
    started = time.monotonic()
    with pytest.raises(PageTimeoutError, match="page.html: page did not finish"):
        with Deadline(0.2, what="page.html").enforced():
            _SlowFinalizer()  # no name holds it: its __del__ runs at once
            while time.monotonic() - started < 10:  # a stage that never checks the deadline
                pass
    assert time.monotonic() - started < 5
    assert sys.unraisablehook is hook
    assert "Exception ignored" not in capfd.readouterr().err


def test_other_finalizer_errors_still_reach_the_hook_in_place(monkeypatch):
    seen = []
    monkeypatch.setattr(sys, "unraisablehook", seen.append)

    class Broken:
        def __del__(self) -> None:
            raise ValueError("not ours")

    with Deadline(30, what="page.html").enforced():
        Broken()
    assert [type(args.exc_value) for args in seen] == [ValueError]


def test_the_timer_fires_again_when_the_code_catches_its_error():
    """Libraries catch every ``Exception`` at places (trafilatura logs a failed parse or retry
    and goes on); the page must stop all the same, not run to its end unchecked."""
    started = time.monotonic()
    caught = 0
    with pytest.raises(PageTimeoutError, match="page.html: page did not finish"):
        with Deadline(0.2, what="page.html").enforced():
            try:
                while time.monotonic() - started < 10:
                    pass
            except Exception:  # what such a library does with it
                caught += 1
            while time.monotonic() - started < 10:  # and on it goes, never checking
                pass
    assert caught == 1
    assert time.monotonic() - started < 5
