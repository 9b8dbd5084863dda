"""scripts/benchmark_webseg20.py as a user runs it: a subprocess on a small dataset copy."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from webis_fakes import SECOND_ID

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "benchmark_webseg20.py"


def _run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], cwd=REPO,
                          capture_output=True, text=True, timeout=300, check=False)


def test_script_runs_resumes_and_prints_the_summary(zip_dataset: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    first = _run("--data", zip_dataset, "--segmenters", "baseline", "--pages", "1",
                 "--out", out)
    assert first.returncode == 0, first.stderr
    assert "| baseline | 1 | 0 | 1.0 |" in first.stdout
    assert "WebSAM-Adapter" in first.stdout and "DOM cohesion" in first.stdout
    assert "webseg20" in first.stderr  # the progress bar
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    pixels = summary["segmenters"]["baseline"]["size_functions"]["pixels"]
    assert abs(pixels["precision"] - 0.226672052828432) < 1e-9 and pixels["recall"] == 1
    assert "--pages 1" in summary["run"]["command"]

    ids = tmp_path / "ids.txt"
    ids.write_text(f"000000\n{SECOND_ID}  # a comment\n", encoding="utf-8")
    second = _run("--data", zip_dataset, "--segmenters", "baseline", "--ids", ids,
                  "--out", out, "--quiet", "--no-progress")
    assert second.returncode == 0, second.stderr
    assert second.stdout == ""
    lines = (out / "results.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["page"] for line in lines] == ["000000", SECOND_ID]
    assert json.loads((out / "summary.json").read_text())["run"]["pages"] == 2


def test_script_reports_bad_input_in_one_line(folder_dataset: Path, tmp_path: Path) -> None:
    unknown = _run("--data", folder_dataset, "--segmenters", "no-such", "--out", tmp_path / "o")
    assert unknown.returncode == 6
    assert len(unknown.stderr.strip().splitlines()) == 1
    assert unknown.stderr.startswith("benchmark_webseg20.py: error: unknown segmenter 'no-such'")
    missing = _run("--data", tmp_path / "absent", "--segmenters", "baseline",
                   "--out", tmp_path / "o")
    assert missing.returncode == 5 and "no such dataset folder" in missing.stderr
    assert not (tmp_path / "o" / "summary.md").exists()
