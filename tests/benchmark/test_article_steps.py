"""The article benchmark judges a page with the steps ``wps segment --profile article`` runs
(posts included), not a pipeline of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from wps.benchmark.articles import page_steps, predict_page
from wps.capture import CaptureOptions, capture_page
from wps.config import load_config
from wps.model import PageCapture
from wps.pipeline import PipelineOptions, segment

FORUM = Path(__file__).resolve().parents[2] / "datasets" / "examples" / "forum.html"


@pytest.mark.browser
def test_a_forum_page_is_judged_as_wps_segment_profile_article_judges_it(tmp_path):
    capture_page(FORUM, CaptureOptions(screenshot=False)).save(tmp_path / "capture")
    config = load_config(profile="article")
    pipeline = segment(tmp_path / "capture", PipelineOptions(config=config))
    assert len(pipeline.segmentation.segments) > len(pipeline.segmented.segments)  # posts cut

    prediction = predict_page(PageCapture.load(tmp_path / "capture"),
                              page_steps("dom-cohesion", config))
    assert prediction.segments == len(pipeline.segmentation.segments)
    assert prediction.kept == sum(segment.kept for segment in pipeline.segmentation.segments)
    assert prediction.text == pipeline.text.kept_text
