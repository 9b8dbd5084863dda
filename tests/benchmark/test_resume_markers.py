"""One resume format: the completion markers ``wps batch`` keeps (``OUT/.done/<key>``), also
for the non-article benchmark's page folders (it kept a state file of its own)."""

from __future__ import annotations

import pytest
from shared_data import SHARED, require_shared

from wps.benchmark.nonarticle import prepared_options, run_key, run_pages
from wps.benchmark.nonarticle_data import load_dataset
from wps.capture import CaptureOptions, capture_page
from wps.completions import DONE_FOLDER, Completions
from wps.pipeline import PipelineOptions

PAGE = "verfassungsblog.de.expertinnen"


def test_a_marker_says_done_only_for_the_same_options(tmp_path):
    completions = Completions(tmp_path)
    assert not completions.is_done("page", {"key": "a"})
    completions.mark("page", {"key": "a", "seconds": 1.5})
    assert completions.is_done("page", {"key": "a"})
    assert not completions.is_done("page", {"key": "b"})
    (tmp_path / DONE_FOLDER / "odd").write_text("[1, 2", encoding="utf-8")
    assert completions.record("odd") is None and not completions.is_done("odd", {})
    completions.forget("page")
    assert completions.record("page") is None


@pytest.mark.browser
def test_the_nonarticle_benchmark_resumes_from_completion_markers(tmp_path):
    data = require_shared(SHARED / "nonarticle-dev")
    dataset = load_dataset(data)
    captures = tmp_path / "captures"
    capture_page(dataset.pages[PAGE], CaptureOptions(screenshot=False)).save(
        captures / PAGE / "capture")
    options = prepared_options(PipelineOptions(segmenter="baseline"))
    out = tmp_path / "out"

    first = run_pages(dataset, [PAGE], out, options, captures=captures, progress=False)
    assert first[PAGE].mode == "from-capture"
    assert Completions(out).is_done(PAGE, {"key": run_key(options)})
    assert run_pages(dataset, [PAGE], out, options, captures=captures,
                     progress=False)[PAGE].mode == "reused"
    other = prepared_options(PipelineOptions(segmenter="dom-cohesion"))
    assert run_pages(dataset, [PAGE], out, other, captures=captures,
                     progress=False)[PAGE].mode == "from-capture"
    assert not (out / "benchmark-state.json").exists()
