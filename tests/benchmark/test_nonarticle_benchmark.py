"""scripts/benchmark_nonarticle.py on two real pages of ../shared/nonarticle-dev (renders them).

The report's figures must be check.py's own: the test runs the data set's check.py on the same
output folder and compares, so no figure here is hard-coded.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from shared_data import SHARED, require_shared

from wps.benchmark.nonarticle_report import merge_markdown

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "benchmark_nonarticle.py"
NONARTICLE = SHARED / "nonarticle-dev"
PAGES = ["forum.kanadam.com-0", "verfassungsblog.de.expertinnen"]  # an index page, an article
TOTALS = ("prose", "prose_found", "not_prose", "leaks", "kept_chars_nonarticle",
          "nonarticle_pages", "posts", "posts_scorable", "posts_whole", "posts_whole_kept",
          "segments_forum", "segments_mixing")


@pytest.fixture(scope="module")
def data() -> Path:
    return require_shared(NONARTICLE)


def _bench(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], cwd=REPO,
                          capture_output=True, text=True, timeout=600, check=False)


def _check(data: Path, out: Path, report: Path) -> dict:
    subprocess.run([sys.executable, str(data / "check.py"), str(out), "--json", str(report),
                    "--quiet"], check=True, capture_output=True, timeout=300)
    return json.loads(report.read_text(encoding="utf-8"))


@pytest.mark.browser
@pytest.mark.slow
def test_report_holds_check_py_figures_and_reruns_from_captures(data: Path,
                                                                tmp_path: Path) -> None:
    out, results = tmp_path / "out", tmp_path / "results"
    first = _bench("--data", data, "--out", out, "--results", results, "--label", "first",
                   "--pages", ",".join(PAGES), "--quiet")
    assert first.returncode == 0, first.stderr
    for name in PAGES:
        assert (out / name / "segments.jsonl").is_file()
        assert (out / name / "capture" / "capture.json").is_file()
    ours = json.loads((results / "nonarticle-first.json").read_text(encoding="utf-8"))
    theirs = _check(data, out, tmp_path / "own-report.json")
    for key in TOTALS:
        assert ours["totals"][key] == theirs["total"][key], key
    for name in PAGES:
        page = {k: v for k, v in ours["pages"][name].items()
                if k not in ("run", "posts_alone", "posts_alone_units")}
        assert page == theirs["pages"][name]
        if "posts" in page:  # our own figures: a post alone is also a post whole and kept
            assert 0 < ours["pages"][name]["posts_alone"] <= page["posts_whole_kept"]
            assert 0 < ours["pages"][name]["posts_alone_units"] <= page["posts_scorable"]
        assert ours["pages"][name]["run"]["mode"] == "rendered"
    total = theirs["total"]
    section = (results / "nonarticle.md").read_text(encoding="utf-8")
    assert f"| prose strings kept | {total['prose_found']}/{total['prose']} |" in section
    assert f"| non-prose strings leaked | {total['leaks']}/{total['not_prose']} |" in section
    assert (f"| posts whole in one segment | {total['posts_whole']}/{total['posts_scorable']} |"
            in section)
    assert "--label first" in section and ours["timing"]["median_page_s"] > 0

    again = tmp_path / "again"  # another config, from the captures: no rendering
    second = _bench("--data", data, "--out", again, "--results", results, "--label", "second",
                    "--pages", ",".join(PAGES), "--from-captures", out,
                    "--config", REPO / "eval" / "articles.toml", "--quiet")
    assert second.returncode == 0, second.stderr
    redone = json.loads((results / "nonarticle-second.json").read_text(encoding="utf-8"))
    assert {redone["pages"][n]["run"]["mode"] for n in PAGES} == {"from-capture"}
    assert redone["totals"]["prose"] == _check(data, again, tmp_path / "r2.json")["total"]["prose"]
    report = (results / "nonarticle.md").read_text(encoding="utf-8")
    assert "## first" in report and "## second" in report and "## Comparison" in report


@pytest.mark.slow
def test_failed_pages_are_listed_and_the_run_goes_on(data: Path, tmp_path: Path) -> None:
    empty = tmp_path / "no-captures"
    empty.mkdir()
    done = _bench("--data", data, "--out", tmp_path / "out", "--results", tmp_path / "results",
                  "--label", "broken", "--pages", PAGES[0], "--from-captures", empty, "--quiet")
    assert done.returncode == 0, done.stderr
    result = json.loads((tmp_path / "results" / "nonarticle-broken.json").read_text())
    [failure] = result["failed"]
    assert failure["name"] == PAGES[0] and failure["exit_code"] == 3
    assert failure["error_class"] == "InputFileError"
    assert result["totals"]["scored"] == 0
    assert f"`{PAGES[0]}` (InputFileError, exit 3" in (tmp_path / "results" /
                                                       "nonarticle.md").read_text()


def test_bad_data_and_label_are_one_line_errors(tmp_path: Path) -> None:
    missing = _bench("--data", tmp_path / "absent", "--out", tmp_path / "o")
    assert missing.returncode == 5
    assert missing.stderr.strip() == (f"benchmark_nonarticle.py: error: {tmp_path / 'absent'}: "
                                      "no such dataset folder")
    assert not (tmp_path / "o").exists()
    (tmp_path / "file").write_text("x")
    bad_out = _bench("--data", require_shared(NONARTICLE), "--out", tmp_path / "file",
                     "--results", tmp_path / "results")
    assert bad_out.returncode == 8 and "exists and is not a folder" in bad_out.stderr


def test_a_rerun_replaces_only_its_own_section() -> None:
    first = merge_markdown("", "a", "<!-- section: a -->\nA1\n<!-- /section: a -->\n")
    both = merge_markdown(first, "b", "<!-- section: b -->\nB\n<!-- /section: b -->\n")
    again = merge_markdown(both, "a", "<!-- section: a -->\nA2\n<!-- /section: a -->\n")
    assert "A2" in again and "A1" not in again and "B" in again
    assert again.index("A2") < again.index("\nB\n")  # the section keeps its place
