"""wps.segment, segment_to_directory and ``wps segment``, on real renders and Webis data."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import wps
from wps.cli import main
from wps.errors import DatasetError, InputFileError, UnknownSegmenterError
from wps.evaluation import evaluate

REPO = Path(__file__).resolve().parents[1]
FORUM = REPO / "datasets" / "examples" / "forum.html"
PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>Two lists</title></head><body>
<h1>Bakery news</h1>
<ul><li>Rye bread is back</li><li>New opening hours</li><li>Summer recipes</li></ul>
<p>Visit us at the market square every Saturday morning.</p></body></html>"""


@pytest.fixture(scope="module")
def browser():
    from wps.capture import Browser, CaptureOptions

    with Browser(CaptureOptions(settle_s=0.0, scroll_max_steps=2, timeout_s=15.0,
                                allow_private=True)) as shared:
        yield shared


def test_segment_webis_folder(webis_page):
    result = wps.segment(webis_page)
    assert isinstance(result, wps.PageResult)
    assert result.capture.page_id == "000000" and result.capture.source == "webis"
    assert result.segmentation.segmenter == "dom-cohesion"
    assert len(result.segmentation.segments) > 5
    baseline = wps.segment(result.capture, segmenter="baseline")
    assert len(baseline.segmentation.segments) == 1


def test_segment_to_directory_writes_every_output(webis_page, tmp_path):
    out = tmp_path / "page"
    result = wps.segment_to_directory(webis_page, out)
    assert result.output_dir == out
    assert sorted(p.name for p in out.iterdir()) == [
        "capture", "main-text.json", "overlay.png", "report.html", "segmentation.json",
        "segments.jsonl"]
    scores = evaluate(out / "segmentation.json", webis_page / "ground-truth.json")
    assert scores.results["pixels"].f1 > 0.3696
    lines = (out / "segments.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(result.segmentation.segments)
    first = json.loads(lines[0])
    assert first["segment_id"] == f"{first['doc_id']}:0000" and first["segmenter"] == "dom-cohesion"
    reloaded = wps.segment(out / "capture")  # a saved capture folder is a source too
    assert [s.node_ids for s in reloaded.segmentation.segments] == [
        s.node_ids for s in result.segmentation.segments]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no staging left


def test_options_reach_the_segmenter(webis_page):
    options = {"iqr_k": 1000.0, "split_records_min_chars": None}
    coarse = wps.segment(webis_page, segmenter_options=options)
    fine = wps.segment(webis_page)
    assert len(coarse.segmentation.segments) < len(fine.segmentation.segments)


def test_bad_sources_are_clear_errors(tmp_path):
    with pytest.raises(InputFileError, match="no such file or folder"):
        wps.segment(tmp_path / "missing.html")
    malformed = tmp_path / "000123"
    malformed.mkdir()
    (malformed / "ground-truth.json").write_text('{"id": "000123", "height": 10, "width": 10}')
    with pytest.raises(DatasetError, match="000123: not a Webis-WebSeg-20 page folder"):
        wps.segment(malformed)
    (malformed / "nodes.csv").write_text("left,bottom,right,top,xpath\n0,10,10,zero,/HTML[1]\n")
    with pytest.raises(DatasetError, match="non-numeric box"):
        wps.segment(malformed)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(DatasetError, match="neither a page capture"):
        wps.segment(empty)
    with pytest.raises(UnknownSegmenterError, match="no-such"):
        wps.segment(tmp_path / "missing.html", segmenter="no-such")  # before any capture


def test_failed_run_leaves_no_output_folder(tmp_path):
    out = tmp_path / "out"
    with pytest.raises(InputFileError):
        wps.segment_to_directory(tmp_path / "missing.html", out)
    assert not out.exists() and list(tmp_path.iterdir()) == []


@pytest.mark.browser
def test_segment_url_with_shared_browser(page_server, browser, tmp_path):
    url = page_server.add_html("/pipeline/bakery.html", PAGE)
    result = wps.segment_to_directory(url, tmp_path / "bakery", browser=browser)
    assert result.capture.url == url and result.capture.title == "Two lists"
    texts = [s.text for s in result.segmentation.segments]
    assert "Rye bread is back\nNew opening hours\nSummer recipes" in texts
    assert (tmp_path / "bakery" / "capture" / "screenshot.png").is_file()
    assert result.capture.screenshot == tmp_path / "bakery" / "capture" / "screenshot.png"
    from PIL import Image

    with Image.open(tmp_path / "bakery" / "overlay.png") as overlay:
        assert overlay.size == (result.capture.width, result.capture.height)


@pytest.mark.browser
def test_cli_segment_forum_example(tmp_path, capsys):
    out = tmp_path / "example"
    fast = ["--settle", "0", "--scroll-steps", "1"]
    assert main(["segment", str(FORUM), "--out", str(out), *fast]) == 0
    records = [json.loads(line) for line in (out / "segments.jsonl").read_text().splitlines()]
    thread = "/HTML[1]/BODY[1]/DIV[2]/MAIN[1]/ARTICLE"
    posts = [r for r in records if r["xpaths"][0].startswith(thread) and r["kind"] == "post"]
    assert len(posts) == 5 and all(r["kept"] for r in posts)
    assert "segments (dom-cohesion)" in capsys.readouterr().err


def test_cli_segment_json_to_stdout(webis_page, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["segment", str(webis_page), "--format", "json", "--segmenter", "baseline"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["page_id"] == "000000" and summary["width"] == 1366
    assert len(summary["segments"]) == 1 and summary["segments"][0]["bbox"] == [0, 0, 1366, 5590]
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_cli_segment_jsonl_and_text_to_stdout_match_the_folder(webis_page, tmp_path, capsys,
                                                               monkeypatch):
    """``--format jsonl`` prints what ``segments.jsonl`` holds and ``--format text`` the kept
    segments' texts, a blank line between; neither writes a file."""
    monkeypatch.chdir(tmp_path)
    assert main(["segment", str(webis_page), "--out", "folder"]) == 0
    capsys.readouterr()
    saved = (tmp_path / "folder" / "segments.jsonl").read_text(encoding="utf-8").splitlines()
    before = sorted(tmp_path.iterdir())
    assert main(["segment", str(webis_page), "--format", "jsonl"]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert [json.loads(line) for line in printed] == [json.loads(line) for line in saved]
    assert main(["segment", str(webis_page), "--format", "text", "--keep-only"]) == 0
    kept = [json.loads(line) for line in saved if json.loads(line)["kept"]]
    assert kept, "the Webis page keeps some prose"
    texts = [(line["main_text"] or line["text"]).strip() for line in kept]
    assert capsys.readouterr().out == "".join(text + "\n\n" for text in texts)
    assert sorted(tmp_path.iterdir()) == before  # nothing written
    assert main(["segment", str(webis_page), "--format", "text", "--out", "o"]) == 2
    assert "--format text writes to stdout only" in capsys.readouterr().err


def test_cli_segment_errors(webis_page, tmp_path, capsys):
    assert main(["segment", str(webis_page)]) == 2
    assert "--out DIR is required" in capsys.readouterr().err
    assert main(["segment", str(webis_page), "--format", "json", "-O", "no_such_option=1"]) == 2
    assert "no_such_option" in capsys.readouterr().err
    out = ["--out", str(tmp_path / "o")]
    assert main(["segment", str(webis_page), *out, "--segmenter", "nope"]) == 6
    assert main(["segment", str(tmp_path / "nothing"), "--out", str(tmp_path / "o")]) == 3
    assert "nothing: no such file or folder" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()
    broken = tmp_path / "broken"
    shutil.copytree(webis_page, broken)
    (broken / "nodes.csv").write_text("nonsense\n")
    assert main(["segment", str(broken), "--out", str(tmp_path / "o")]) == 5


def test_warm_up_loads_what_a_first_page_would_load_outside_its_deadline():
    """A batch worker warms up before its first page: on a loaded machine the imports and the
    language model (seconds) timed out each worker's first page."""
    import subprocess
    import sys

    probe = ("import sys\n"
             "from wps.lang import _identifier\n"
             "from wps.pipeline import PipelineOptions, warm_up\n"
             "before = _identifier.cache_info().currsize, 'trafilatura' in sys.modules\n"
             "warm_up(PipelineOptions())\n"
             "after = _identifier.cache_info().currsize, 'trafilatura' in sys.modules\n"
             "from trafilatura import external\n"
             "print(before, after, 'wps.output' in sys.modules, bool(external.JT_STOPLIST),\n"
             "      'edist.ted' in sys.modules, 'numpy.ma' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True, timeout=120)
    assert done.stdout.split("\n")[0] == "(0, False) (1, True) True True True True"
