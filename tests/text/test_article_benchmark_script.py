"""scripts/benchmark_articles.py end to end on two real benchmark pages (renders them)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from wps.benchmark.articles import score_predictions, without_scripts

pytestmark = [pytest.mark.browser, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
PAGES = ["06e5123e", "0dd13570"]


def test_without_scripts_keeps_text_and_declares_utf8() -> None:
    html = ("<html><head><meta charset='iso-8859-1'><script>location='/g00/'</script></head>"
            "<body><p>Before<script>document.write('x')</script> after</p></body></html>")
    cleaned = without_scripts(html)
    assert "<script" not in cleaned and "location" not in cleaned
    assert "Before after" in cleaned
    assert cleaned.count("charset") == 1 and 'charset="utf-8"' in cleaned


def test_without_scripts_takes_a_page_that_opens_with_an_xml_declaration() -> None:
    html = ('<?xml version="1.0" encoding="iso-8859-1"?>\n'
            '<html xmlns="http://www.w3.org/1999/xhtml"><head><title>Ü</title></head>'
            "<body><p>Prose, ünïcode<script>x()</script>.</p></body></html>")
    cleaned = without_scripts(html)
    assert "Prose, ünïcode." in cleaned and "<script" not in cleaned
    assert 'charset="utf-8"' in cleaned


def test_script_writes_summary_predictions_and_table(article_benchmark: Path,
                                                      tmp_path: Path) -> None:
    truth = json.loads((article_benchmark / "ground-truth.json").read_text(encoding="utf-8"))
    keys = [next(k for k in truth if k.startswith(prefix)) for prefix in PAGES]
    data = tmp_path / "data"
    (data / "html").mkdir(parents=True)
    for key in keys:
        shutil.copy(article_benchmark / "html" / f"{key}.html.gz", data / "html")
    (data / "ground-truth.json").write_text(json.dumps({k: truth[k] for k in keys}))
    out = tmp_path / "out"
    config = tmp_path / "articles.toml"  # dom-cohesion leaves the first article unsegmented
    config.write_text("[text]\nadd_unsegmented = true\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "benchmark_articles.py"), "--data", str(data),
         "--out", str(out), "--cache", str(tmp_path / "cache"), "--config", str(config),
         "--quiet"],
        capture_output=True, text=True, timeout=300, cwd=REPO)
    assert done.returncode == 0, done.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["wps"]["pages"] == summary["trafilatura"]["pages"] == 2
    for name in ("wps", "trafilatura"):
        predictions = json.loads((out / f"predictions-{name}.json").read_text())
        assert sorted(predictions) == sorted(keys)
        assert score_predictions({k: truth[k] for k in keys}, predictions).to_json() == \
            summary[name]
    assert summary["wps"]["f1"] > 0.8  # these two articles are found and kept
    assert "| wps | 2 |" in (out / "summary.md").read_text()
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == sorted(keys)
