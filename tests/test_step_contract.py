"""Each step declares what it needs, adds and drops: steps out of order are refused before any
runs, and every reason code has one owning step (which ``wps filter`` relies on)."""

from __future__ import annotations

import fnmatch

import pytest

from wps.config import load_config
from wps.decide import DecideStep
from wps.decide.page import LITTLE_PROSE, LOGIN_FORM
from wps.errors import UsageError
from wps.lang import LangStep
from wps.model import Node, PageCapture
from wps.pipeline import PipelineOptions, build_steps
from wps.posts import PostStep
from wps.reasons import glossary
from wps.state import check_order
from wps.steps import DedupStep, FilterStep, MainTextStep, PageState, SegmentStep, run_steps


def _capture() -> PageCapture:
    nodes = [Node(0, None, "BODY", "/HTML[1]/BODY[1]", (0, 0, 200, 120)),
             Node(1, 0, "#text", "/HTML[1]/BODY[1]/text()[1]", (0, 0, 100, 20), text="Hello")]
    return PageCapture(url="https://example.org/a", width=200, height=120, nodes=nodes,
                       page_id="a", html="<html><body>Hello</body></html>")


def test_steps_out_of_order_are_refused_before_any_runs():
    config = load_config()
    page = PageState(_capture())
    steps = [FilterStep(config["filters"], config["extract"]),
             SegmentStep(PipelineOptions().build_segmenter())]
    with pytest.raises(UsageError, match="the filters step needs the page's segmentation and "
                                         "text, which no step before it adds"):
        run_steps(steps, page)
    assert page.segmentation is None  # the segmenter did not run either


def test_a_step_may_start_on_a_page_that_holds_what_it_needs():
    config = load_config()
    page = PageState(_capture())
    run_steps([SegmentStep(PipelineOptions().build_segmenter())], page)
    run_steps([MainTextStep(config["extract"], config["text"]),
               FilterStep(config["filters"], config["extract"])], page)
    assert page.text is not None and page.segments  # as the article benchmark runs its steps
    with pytest.raises(UsageError, match="the decision step needs the page's text"):
        check_order([DecideStep(config["decide"])], PageState(page.capture, page.segmentation))


@pytest.mark.parametrize("profile", ["detector", "article"])
def test_the_built_pipelines_are_in_order(profile, tmp_path):
    options = PipelineOptions(config=load_config(profile=profile),
                              dedup_db=tmp_path / "dedup.sqlite")
    steps = build_steps(options)
    check_order(steps)
    assert {type(step) for step in steps} >= {SegmentStep, PostStep, MainTextStep, FilterStep,
                                              LangStep, DedupStep}


def test_every_reason_code_has_one_owning_step():
    owners = [FilterStep, DecideStep, LangStep, DedupStep]
    for section, codes in glossary().items():
        if section == "page":  # page verdicts, not segment reasons
            assert set(codes) == {LITTLE_PROSE, LOGIN_FORM}
            continue
        for code in codes:
            owning = [step.name for step in owners
                      if any(fnmatch.fnmatchcase(code, owned) for owned in step.drops)]
            assert len(owning) == 1, (code, owning)


def test_the_output_is_the_last_step_of_a_pipeline_put_together_by_hand(webis_page, tmp_path):
    """``build_steps`` plus :class:`OutputStep`, run on a loaded capture, write the folder that
    ``segment_to_directory`` writes; the output step first needs a segmentation."""
    from wps.output import OutputStep
    from wps.pipeline import load_capture, segment_to_directory

    segment_to_directory(webis_page, tmp_path / "whole", report=False)
    page = PageState(load_capture(webis_page))
    run_steps([*build_steps(PipelineOptions()), OutputStep(tmp_path / "by-hand", report=False)],
              page)
    for name in ("segments.jsonl", "segmentation.json", "main-text.json"):
        assert (tmp_path / "by-hand" / name).read_bytes() == \
            (tmp_path / "whole" / name).read_bytes(), name
    with pytest.raises(UsageError, match="the output step needs the page's segmentation"):
        run_steps([OutputStep(tmp_path / "none")], PageState(load_capture(webis_page)))
    assert not (tmp_path / "none").exists()
