"""The README's "Use from Python" and "Use in a datatrove pipeline" examples run as written."""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"


def readme_example(heading: str) -> str:
    """The first ```python block under the README heading that starts with ``heading``."""
    text = README.read_text(encoding="utf-8")
    match = re.search(rf"^#+ {re.escape(heading)}.*?^```python\n(.*?)^```", text,
                      re.MULTILINE | re.DOTALL)
    assert match, f"README: no python example under {heading!r}"
    return match.group(1)


def run_example(code: str, cwd: Path) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.mark.browser
@pytest.mark.slow
def test_readme_use_from_python_example_runs():
    printed = run_example(readme_example("Use from Python"), ROOT).splitlines()
    items = [line for line in printed if re.match(r"[0-9a-f]{40}:", line)]
    units = [line for line in printed if line not in items]
    assert items, "the example printed no segment"
    for line in items:
        segment_id, kind, unit, lang, *_ = line.split()
        assert re.fullmatch(r"[0-9a-f]{40}:\d{4}", segment_id) and kind and lang == "en"
        assert unit.startswith("post-")  # the example page is a forum thread
    assert len(units) == len(items)  # each post a unit of its own, of one piece
    assert all(re.match(r"post-\d+ 1 ", line) for line in units)


@pytest.mark.browser
@pytest.mark.slow
def test_readme_datatrove_example_runs(tmp_path):
    pytest.importorskip("datatrove")
    pytest.importorskip("warcio")
    from warc_pages import PAGES, write_warc

    (tmp_path / "crawl").mkdir()
    write_warc(tmp_path / "crawl" / "pages.warc.gz", PAGES)
    run_example(readme_example("Use in a datatrove pipeline"), tmp_path)
    documents = []
    for path in (tmp_path / "segments").glob("*.jsonl.gz"):
        with gzip.open(path, "rt", encoding="utf-8") as lines:
            documents += [json.loads(line) for line in lines]
    assert documents and {doc["metadata"]["lang"] for doc in documents} <= {"en", "de"}
    assert {doc["metadata"]["url"] for doc in documents} == set(PAGES)
