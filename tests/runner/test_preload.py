"""The batch's fork server loads the default pipeline once: its workers start with it."""

from __future__ import annotations

import subprocess
import sys

_CHILD = """
import multiprocessing, sys
from wps.executor.local import worker_context
from wps.runner.local_engine import WORKER_MODULES

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
