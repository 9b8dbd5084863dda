"""``--workers auto``: workers and pages per browser chosen from cores, memory and batch size."""

from __future__ import annotations

import pytest

from wps.cli import main
from wps.runner.sizing import (
    MAX_PAGES_PER_BROWSER,
    PAGES_PER_WORKER,
    WORKER_MB,
    Machine,
    _meminfo_available_mb,
    choose_workers,
    pages_in_flight,
    this_machine,
)


@pytest.mark.parametrize(("cores", "in_flight"), [(1, 2), (2, 3), (3, 5), (16, 24)])
def test_one_and_a_half_pages_in_flight_per_core_with_memory_to_spare(cores, in_flight):
    assert pages_in_flight(cores) == in_flight
    plenty = Machine(cores, available_mb=10 * in_flight * WORKER_MB)
    workers, pages = choose_workers(plenty)
    assert workers == in_flight and pages == 1
    assert choose_workers(Machine(cores, available_mb=None)) == (workers, pages)


def test_less_memory_means_fewer_workers_each_rendering_more_pages():
    workers, pages = choose_workers(Machine(cores=8, available_mb=3 * WORKER_MB + 10))
    assert (workers, pages) == (3, MAX_PAGES_PER_BROWSER)
    assert choose_workers(Machine(cores=8, available_mb=WORKER_MB // 2)) == (
        1, MAX_PAGES_PER_BROWSER)  # never none


def test_a_short_batch_is_not_worth_many_workers():
    machine = Machine(cores=2, available_mb=24_000)
    assert choose_workers(machine, pages=2 * PAGES_PER_WORKER - 1) == (1, MAX_PAGES_PER_BROWSER)
    assert choose_workers(machine, pages=2 * PAGES_PER_WORKER) == (2, 2)
    assert choose_workers(machine, pages=10_000) == (3, 1)


def test_the_local_engine_hands_out_web_pages_by_site(monkeypatch):
    # Web pages are sized as files are: the local engine's workers each keep their sites' tabs
    # (the executors' affinity: a page's site), files and stored pages go to any worker.
    from types import SimpleNamespace

    from wps.executor import LocalExecutor
    from wps.runner import local_engine
    from wps.runner.worker import PageTask

    made: list[LocalExecutor] = []
    monkeypatch.setattr(LocalExecutor, "run", lambda self, queue, work: made.append(self) or [])
    queue = SimpleNamespace(exhausted=lambda: False)
    options = SimpleNamespace(workers=4, pages_per_browser=1, overdue_grace_s=1.0)
    assert list(local_engine.local_results(queue, SimpleNamespace(timeout_s=1.0),
                                           options)) == []
    site = made[0].affinity
    assert site is not None

    def page(source: str, html: bytes | None = None) -> PageTask:
        return PageTask(source, "out", None, None, html=html)  # type: ignore[arg-type]

    assert site(page("http://127.0.0.2:8080/a?b")) == site(page("http://127.0.0.2:8080/c")) \
        == "http://127.0.0.2:8080" != site(page("http://127.0.0.3:8080/a"))
    assert site(page("/tmp/page.html")) is None
    assert site(page("http://127.0.0.2:8080/a", html=b"<p>stored</p>")) is None


def test_what_is_given_is_kept():
    machine = Machine(cores=2, available_mb=24_000)
    assert choose_workers(machine, workers=1) == (1, MAX_PAGES_PER_BROWSER)
    assert choose_workers(machine, workers=3, pages_per_browser=3) == (3, 3)
    assert choose_workers(machine, pages_per_browser=2)[1] == 2


def test_memory_comes_from_meminfo_without_psutil(tmp_path):
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:       24576000 kB\nMemFree:  1000 kB\n"
                       "MemAvailable:   20480000 kB\n", encoding="ascii")
    assert _meminfo_available_mb(meminfo) == 20_000
    meminfo.write_text("MemTotal: 1 kB\n", encoding="ascii")
    assert _meminfo_available_mb(meminfo) is None
    assert _meminfo_available_mb(tmp_path / "missing") is None
    machine = this_machine()
    assert machine.cores >= 1 and (machine.available_mb is None or machine.available_mb > 0)


def test_workers_takes_auto_or_a_number(tmp_path, capsys):
    listing = tmp_path / "pages.txt"
    listing.write_text("http://127.0.0.1:9/x\n", encoding="utf-8")
    with pytest.raises(SystemExit) as exit_info:
        main(["batch", str(listing), "--out", str(tmp_path / "out"), "--workers", "many"])
    assert exit_info.value.code == 2
    assert "expected a whole number or 'auto', got 'many'" in capsys.readouterr().err
