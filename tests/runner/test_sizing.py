"""``--workers auto``: workers and pages per browser chosen from cores, memory and batch size."""

from __future__ import annotations

import pytest

from wps.cli import main
from wps.runner.sizing import (
    MAX_PAGES_PER_BROWSER,
    PAGES_PER_CORE,
    PAGES_PER_WORKER,
    WORKER_MB,
    Machine,
    _meminfo_available_mb,
    choose_workers,
    this_machine,
)


@pytest.mark.parametrize("cores", [1, 2, 16])
def test_two_pages_in_flight_per_core_with_memory_to_spare(cores):
    plenty = Machine(cores, available_mb=10 * PAGES_PER_CORE * cores * WORKER_MB)
    workers, pages = choose_workers(plenty)
    assert workers == PAGES_PER_CORE * cores and pages == 1
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
    assert choose_workers(machine, pages=10_000) == (PAGES_PER_CORE * 2, 1)


def test_web_pages_get_half_the_workers_each_rendering_two_pages():
    # A worker keeps a tab (a renderer) per site: fewer browsers, fewer renderers.
    machine = Machine(cores=2, available_mb=24_000)
    assert choose_workers(machine, web=True) == (PAGES_PER_CORE, MAX_PAGES_PER_BROWSER)
    assert choose_workers(Machine(cores=8, available_mb=None), web=True) == (
        PAGES_PER_CORE * 8 // MAX_PAGES_PER_BROWSER, MAX_PAGES_PER_BROWSER)
    assert choose_workers(machine, workers=4, web=True) == (4, 1)  # what is given is kept


def test_a_batch_of_urls_is_sized_for_web_pages_and_one_of_stored_pages_is_not(
        tmp_path, monkeypatch):
    from wps.runner import sizing

    seen: list[bool] = []

    def noting(*args, web=False, **kwargs):
        seen.append(web)
        raise SystemExit(0)  # the choice is all this test needs

    monkeypatch.setattr(sizing, "choose_workers", noting)
    urls = tmp_path / "urls.txt"
    urls.write_text("http://127.0.0.1:9/x\n", encoding="utf-8")
    stored = tmp_path / "stored.jsonl"
    stored.write_text('{"url": "http://127.0.0.1:9/x", "html": "<p>x</p>"}\n', encoding="utf-8")
    page = tmp_path / "page.html"
    page.write_text("<p>x</p>", encoding="utf-8")
    files = tmp_path / "files.txt"
    files.write_text(f"{page}\n", encoding="utf-8")
    for listing in (urls, stored, files):
        with pytest.raises(SystemExit):
            main(["batch", str(listing), "--out", str(tmp_path / "out")])
    assert seen == [True, False, False]


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
