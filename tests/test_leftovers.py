"""No temporary folder outlives its process: not after an error, Ctrl-C or SIGTERM (the process
removes it), nor after ``kill -9`` (the next run removes it, and never a live process's)."""

from __future__ import annotations

import gzip
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

import wps
from wps.capture.processes import descendants
from wps.capture.screenshots import (
    PAGE_PREFIX,
    discard_screenshot,
    new_screenshot_folder,
    remove_stale_temp_folders,
)
from wps.files import (
    HOST_TAG,
    TERMINATED_EXIT,
    Terminated,
    owned_temp_folder,
    remove_stale_staging,
    sigterm_unwinds,
    staging_directory,
)
from wps.interrupts import signals_held
from wps.runner import page_folder_name, source_key
from wps.runner.orphan import ORPHAN_GRACE_S

EXAMPLE = Path(__file__).resolve().parents[1] / "datasets" / "examples" / "forum.html"
SLOW_RENDER = ["--settle", "30", "--scroll-steps", "1", "--timeout", "90"]
"""A long idle wait after load: the window in which the tests stop the process."""
QUICK_RENDER = ["--settle", "0", "--scroll-steps", "1", "--timeout", "90"]
OTHER_HOST = "000000" if HOST_TAG != "000000" else "ffffff"
POLL_S = 0.05
WAIT_S = 180.0
"""Generous: Chromium launches slowly on a loaded two-core machine."""


# ------------------------------------------------------------------------------ helpers
def _dead_pid() -> int:
    """The pid of a process that has ended (spawned and reaped here)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _make(path: Path) -> Path:
    path.mkdir(parents=True)
    (path / "left.txt").write_text("left behind")
    return path


def _ours(temp: Path) -> list[str]:
    """wps's temporary folders in ``temp`` (Chromium's own are not wps's to remove)."""
    return sorted(p.name for p in temp.iterdir()
                  if p.name.startswith(("wps-capture-", "wps-source-")))


def _staging(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()
                  if p.name.startswith(".") and any(f".{tag}-" in p.name
                                                    for tag in ("staging", "old", "tmp")))


def _env(temp: Path) -> dict[str, str]:
    """The test's wps (also from a source tree) with ``temp`` as the temp dir."""
    root = str(Path(wps.__file__).resolve().parents[1])
    path = os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))
    return {**os.environ, "TMPDIR": str(temp), "PYTHONPATH": path, "PYTHONWARNINGS": "ignore"}


def _start(args: list[str], temp: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "wps", *args], env=_env(temp), text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _finish(args: list[str], temp: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "wps", *args], env=_env(temp), text=True,
                          capture_output=True, timeout=600, check=False)


def _wait_rendering(process: subprocess.Popen[str], temp: Path, count: int = 1) -> None:
    """Wait until ``count`` browsers have their screenshot folder (a page is rendering; a batch
    takes screenshots only with ``--images``)."""
    deadline = time.monotonic() + WAIT_S
    while len([n for n in _ours(temp) if n.startswith("wps-capture-")]) < count:
        if process.poll() is not None:
            pytest.fail(f"wps ended before rendering (exit {process.returncode}): "
                        f"{process.communicate()[1]}")
        if time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"no screenshot folder in {temp} within {WAIT_S:g} s")
        time.sleep(POLL_S)


def _still_running(pids: list[int], timeout: float) -> list[int]:
    """Wait until every process of ``pids`` has ended (an event: each pidfd becomes readable
    when its process ends) or ``timeout`` has passed; those still running."""
    fds = {}
    for pid in pids:
        try:
            fds[os.pidfd_open(pid)] = pid
        except ProcessLookupError:
            continue  # ended already
    deadline = time.monotonic() + timeout
    try:
        while fds and (left := deadline - time.monotonic()) > 0:
            ended, _, _ = select.select(list(fds), [], [], left)
            for fd in ended:
                os.close(fd)
                del fds[fd]
        return sorted(fds.values())
    finally:
        for fd in fds:
            os.close(fd)


def _kill_all(pids: list[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _wait_until(condition, what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"{what} within {WAIT_S:g} s")
        time.sleep(POLL_S)


@pytest.fixture()
def place(tmp_path):
    """A temp dir for the wps processes and a gzipped page (which needs a wps-source copy).

    The temp dir has a short path: Chromium puts a Unix socket (at most 107 bytes) there.
    """
    temp = Path(tempfile.mkdtemp(prefix="wps-test-"))
    page = tmp_path / "forum.html.gz"
    page.write_bytes(gzip.compress(EXAMPLE.read_bytes()))
    yield temp, page
    shutil.rmtree(temp, ignore_errors=True)


# ------------------------------------------------------------------ stale-owner rules
def _name(prefix: str, pid: int, host: str = HOST_TAG, random: str = "abcdefgh") -> str:
    """A temporary's name as wps makes it: ``<prefix><pid>-<host>-<random>``."""
    return f"{prefix}{pid}-{host}-{random}"


def test_stale_staging_of_dead_processes_goes_a_live_ones_stays(tmp_path):
    dead, live = _dead_pid(), os.getppid()
    gone = [_make(tmp_path / _name(".page.staging-", dead)),
            _make(tmp_path / _name(".page.old-", dead, random="abcd_fgh")),
            _make(tmp_path / _name(".page.staging-", os.getpid()))]  # not made here: pid reuse
    summary = tmp_path / _name(".summary.json.tmp-", dead)
    summary.write_text("{")
    other = _make(tmp_path / _name(".other.staging-", dead))  # another output's
    kept = [_make(tmp_path / _name(".page.staging-", live)),
            _make(tmp_path / _name(".page.staging-", dead, random="toolongname")),  # not wps's
            _make(tmp_path / f".page.staging-{dead}-abcdefgh"),  # no host tag: not wps's
            _make(tmp_path / _name(".page.staging-", dead, OTHER_HOST)),  # another host's
            owned_temp_folder(".page.staging-", tmp_path)]  # this process's own
    assert sorted(remove_stale_staging(tmp_path, "page")) == sorted(gone)
    assert other.exists() and summary.exists() and all(path.exists() for path in kept)
    assert sorted(remove_stale_staging(tmp_path)) == sorted([other, summary])
    assert all(path.exists() for path in kept)


def test_staging_directory_removes_stale_siblings_and_names_itself_for_its_pid(tmp_path):
    stale = _make(tmp_path / _name(".page.staging-", _dead_pid()))
    live = _make(tmp_path / _name(".page.staging-", os.getppid()))
    with staging_directory(tmp_path / "page") as staging:
        assert staging.name.startswith(_name(".page.staging-", os.getpid(), random=""))
        (staging / "a.txt").write_text("a")
    assert not stale.exists() and live.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["page", live.name])


def test_stale_temp_folders_of_dead_processes_go(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    dead, live = _dead_pid(), os.getppid()
    gone = [_make(tmp_path / _name("wps-capture-", dead)),
            _make(tmp_path / _name("wps-source-", dead))]
    kept = [_make(tmp_path / _name("wps-capture-", live)),
            _make(tmp_path / _name("wps-source-", live)),
            _make(tmp_path / _name("wps-capture-", dead, OTHER_HOST)),  # another host's
            _make(tmp_path / f"wps-capture-{dead}")]  # not a name wps makes
    assert sorted(remove_stale_temp_folders()) == sorted(gone)
    assert all(path.exists() for path in kept)
    folder = new_screenshot_folder()  # removes stale ones too, and is named for this pid
    assert folder.parent == tmp_path
    assert folder.name.startswith(_name("wps-capture-", os.getpid(), random=""))
    assert remove_stale_temp_folders() == [] and folder.is_dir()
    page = Path(tempfile.mkdtemp(prefix=PAGE_PREFIX, dir=folder))
    (page / "screenshot.png").write_bytes(b"png")
    discard_screenshot(page / "screenshot.png")
    assert not page.exists() and folder.is_dir()


def test_sigterm_unwinds_and_the_old_handler_comes_back():
    before = signal.getsignal(signal.SIGTERM)
    cleaned = []
    with pytest.raises(Terminated):
        with sigterm_unwinds():
            try:
                signal.raise_signal(signal.SIGTERM)
            finally:
                cleaned.append(True)
    assert cleaned == [True] and signal.getsignal(signal.SIGTERM) == before


def test_a_signal_during_a_folder_swap_waits_for_its_end():
    seen: list[str] = []
    previous = signal.signal(signal.SIGALRM, lambda *_: seen.append("alarm"))
    try:
        with signals_held():
            signal.raise_signal(signal.SIGALRM)
            signal.raise_signal(signal.SIGALRM)
            seen.append("swapped")
        assert seen == ["swapped", "alarm"]
        assert signal.getsignal(signal.SIGALRM) is not None
    finally:
        signal.signal(signal.SIGALRM, previous)


# ------------------------------------------------------------------ real processes
def _segment_rendering(place, tmp_path):
    """``wps segment`` started on a slow render, once it is rendering."""
    temp, page = place
    out = tmp_path / "out" / "forum"
    process = _start(["segment", str(page), "--out", str(out), *SLOW_RENDER], temp)
    _wait_rendering(process, temp)
    return process, temp, out


@pytest.mark.browser
@pytest.mark.slow
def test_segment_killed_hard_leaves_folders_the_rerun_removes(place, tmp_path):
    process, temp, out = _segment_rendering(place, tmp_path)
    page = place[1]
    process.kill()
    process.communicate(timeout=60)
    assert any(name.startswith(f"wps-capture-{process.pid}-") for name in _ours(temp))
    stale = _make(out.parent / _name(".forum.staging-", process.pid))
    live = _make(out.parent / _name(".forum.staging-", os.getpid()))

    rerun = _finish(["segment", str(page), "--out", str(out), *QUICK_RENDER], temp)
    assert rerun.returncode == 0, rerun.stderr
    assert _ours(temp) == []
    assert not stale.exists() and _staging(out.parent) == [live.name]
    assert (out / "segmentation.json").is_file()


@pytest.mark.browser
@pytest.mark.slow
def test_segment_terminated_cleans_up_itself(place, tmp_path):
    process, temp, out = _segment_rendering(place, tmp_path)
    assert any(name.startswith(f"wps-source-{process.pid}-") for name in _ours(temp))
    process.terminate()
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == TERMINATED_EXIT, stderr
    assert stderr.strip().endswith("wps: terminated")
    assert _ours(temp) == []
    assert not out.exists()
    assert not out.parent.exists() or _staging(out.parent) == []


def _batch_list(tmp_path: Path, page: Path) -> tuple[Path, list[str]]:
    second = tmp_path / "forum-2.html"
    shutil.copyfile(EXAMPLE, second)
    listing = tmp_path / "urls.txt"
    listing.write_text(f"{page}\n{second}\n", encoding="utf-8")
    return listing, [str(page), str(second)]


@pytest.mark.browser
@pytest.mark.slow
def test_batch_killed_hard_leaves_folders_the_rerun_removes(place, tmp_path):
    temp, page = place
    listing, sources = _batch_list(tmp_path, page)
    out = tmp_path / "out"
    args = ["batch", str(listing), "--out", str(out), "--no-progress", "--images"]
    process = _start([*args, *SLOW_RENDER], temp)
    _wait_rendering(process, temp)
    process.kill()
    process.communicate(timeout=60)
    assert _ours(temp) != []
    dead = process.pid
    stale = [_make(out / _name(f".{source_key(sources[0])}.staging-", dead)),
             _make(out / _name(".0123456789ab.staging-", dead)),  # no page of this run
             _make(out / _name(".0123456789ab.old-", dead))]
    (out / ".done" / _name(f".{source_key(sources[1])}.tmp-", dead)).write_text("{")
    live = _make(out / _name(".0123456789ab.staging-", os.getpid()))

    rerun = _finish([*args, *QUICK_RENDER], temp)
    assert rerun.returncode == 0, rerun.stderr
    assert _ours(temp) == []
    assert not any(path.exists() for path in stale)
    assert _staging(out) == [live.name] and _staging(out / ".done") == []
    assert all((out / page_folder_name(source) / "segmentation.json").is_file() for source in sources)


def _two_workers_rendering(place, tmp_path):
    """A two-worker batch started on slow pages, once both workers are rendering."""
    temp, page = place
    listing, _ = _batch_list(tmp_path, page)
    out = tmp_path / "out"
    process = _start(["batch", str(listing), "--out", str(out), "--no-progress", "--images",
                      "--workers", "2", "--pages-per-browser", "1", *SLOW_RENDER], temp)
    _wait_rendering(process, temp, count=2)
    return process, temp, out


@pytest.mark.browser
@pytest.mark.slow
def test_batch_terminated_stops_its_workers_and_cleans_up(place, tmp_path):
    process, temp, out = _two_workers_rendering(place, tmp_path)
    process.terminate()
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == TERMINATED_EXIT, stderr
    assert _ours(temp) == [], stderr
    assert _staging(out) == []


@pytest.mark.browser
@pytest.mark.slow
def test_batch_workers_clean_up_when_their_parent_is_killed(place, tmp_path):
    process, temp, out = _two_workers_rendering(place, tmp_path)
    started = descendants(process.pid)  # workers, Playwright's drivers, their Chromium
    assert len(started) > 4
    process.kill()
    process.wait()
    # The workers notice their parent is gone and end with all they started, their folders gone.
    left = _still_running(started, WAIT_S)
    _kill_all(left)
    process.communicate(timeout=60)  # its output pipes, which those processes held
    assert left == [], "the orphaned workers or their Chromium did not end"
    assert _ours(temp) == [] and _staging(out) == []


ORPHAN = """
import os, sys, time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from wps.runner.worker import init_worker

pool = ProcessPoolExecutor(1, mp_context=get_context("spawn"), initializer=init_worker)
pool.submit(os.system, "echo started > '%s' && exec sleep 600" % sys.argv[1])
print(*pool._processes, flush=True)
time.sleep(600)
"""
"""A batch parent: one pool worker (wps's initializer) running a task that waits in C for a
child of its own, where no signal handler runs until it returns (as a worker blocked inside a
library call)."""


@pytest.mark.slow
def test_an_orphaned_worker_that_cannot_unwind_ends_with_its_children(tmp_path):
    started = tmp_path / "started"
    parent = subprocess.Popen([sys.executable, "-c", ORPHAN, str(started)], env=_env(tmp_path),
                              text=True, stdout=subprocess.PIPE, cwd=tmp_path)
    worker = int(parent.stdout.readline())
    _wait_until(started.exists, "the worker's task did not start")
    processes = [worker, *descendants(worker)]
    assert len(processes) == 2
    parent.kill()
    parent.communicate(timeout=60)
    left = _still_running(processes, ORPHAN_GRACE_S + 30)
    _kill_all(left)
    assert left == [], "the orphaned worker or its child did not end"
