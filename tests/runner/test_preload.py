"""The batch's fork server loads the default pipeline once: its workers start with it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

_CHILD = """
import multiprocessing, sys
from wps.executor.local import worker_context
from wps.runner.prestart import WORKER_MODULES

def loaded():
    import gc
    from wps.lang import _identifier
    return _identifier.cache_info().currsize, gc.get_freeze_count() > 10_000

if __name__ == "__main__":
    modules = WORKER_MODULES if sys.argv[1] == "preload" else ()
    with worker_context("forkserver", modules).Pool(1) as pool:
        print(pool.apply(loaded))
"""


def test_workers_forked_from_the_server_start_with_the_language_model_frozen(tmp_path):
    # frozen: their garbage collections leave what the server loaded alone
    script = tmp_path / "child.py"
    script.write_text(_CHILD, encoding="utf-8")
    sizes = [subprocess.run([sys.executable, str(script), preload], capture_output=True,
                            text=True, timeout=300, check=True).stdout.split()
             for preload in ("preload", "none")]
    assert sizes == [["(1,", "True)"], ["(0,", "False)"]]


_EARLY = """
import sys
import wps.executor.local as local

def started(preload):
    engine = [name for name in ("wps.runner.batch", "wps.runner.local_engine", "wps.steps")
              if name in sys.modules]
    print("started", preload == ("wps.runner.worker", "wps.output", "wps.runner.preload"),
          engine)
    raise SystemExit(0)

local.start_fork_server = started
from wps.cli import main
sys.exit(main(["batch", sys.argv[1], "--out", sys.argv[2], "--workers", sys.argv[3]]))
"""


def test_a_batch_starts_its_workers_server_before_it_imports_its_engine(tmp_path):
    # the server's imports then run beside the batch's own, not after them
    script, pages = tmp_path / "early.py", tmp_path / "pages.txt"
    script.write_text(_EARLY, encoding="utf-8")
    page = Path(__file__).resolve().parents[2] / "datasets" / "examples" / "forum.html"
    pages.write_text(f"{page}\n{page}\n", encoding="utf-8")
    run = subprocess.run([sys.executable, str(script), str(pages), str(tmp_path / "out"), "2"],
                         capture_output=True, text=True, timeout=300, check=True)
    assert run.stdout.split() == ["started", "True", "[]"]
    assert not (tmp_path / "out").exists()


def test_the_server_is_started_only_for_a_pool_of_local_workers(monkeypatch):
    from wps.runner import prestart

    calls = []
    monkeypatch.setattr(prestart, "start_fork_server", calls.append)
    assert [prestart.start_worker_server(engine, workers)
            for engine, workers in (("local", 1), ("ray", 3), ("local", 3))] == [False, False, True]
    assert calls == [prestart.WORKER_MODULES]


def test_the_runner_packages_names_are_imported_when_asked_for():
    import wps.runner

    assert all(getattr(wps.runner, name) is not None for name in wps.runner.__all__)
    assert sorted(wps.runner.__all__) == sorted(wps.runner._HOMES)
