"""``Segmenter.needs_screenshot``: each segmenter says whether it reads the screenshot, and a
batch takes one only then (no list of names in the runner)."""

from __future__ import annotations

import pytest

from wps.errors import ModelError
from wps.pipeline import PipelineOptions
from wps.runner.batch import _checked_pipeline
from wps.segmenters import _REGISTRY, build_segmenter, segmenter_names, wants_screenshot


def test_every_segmenter_declares_whether_it_reads_the_screenshot():
    for name in segmenter_names():
        if not _REGISTRY[name].__module__.startswith("wps."):
            continue  # the tests' own segmenters (a user's plugin: see the test below)
        factory_options = {"members": "baseline,dom-cohesion"} if name == "ensemble" else {}
        try:
            segmenter = build_segmenter(name, **factory_options)
        except (ImportError, ModelError):  # a model segmenter without its weights or torch
            continue
        assert isinstance(segmenter.needs_screenshot, bool), name


@pytest.mark.parametrize("segmenter, options, screenshot", [
    ("baseline", {}, False),
    ("dom-cohesion", {}, False),
    ("dom-cohesion", {"use_screenshot": True}, True),
    ("dom-cohesion", {"screenshot_colours": True}, True),
    ("vips", {"use_screenshot": False}, False),
    ("vips", {}, True),
    ("xycut", {}, True),
    ("ensemble", {"members": "baseline,dom-cohesion"}, False),
    ("ensemble", {"members": "baseline,xycut"}, True),
])
def test_a_batch_takes_the_screenshot_only_for_a_segmenter_that_reads_it(segmenter, options,
                                                                         screenshot):
    pipeline = PipelineOptions(segmenter=segmenter, segmenter_options=options)
    checked = _checked_pipeline(pipeline, images=False)
    assert checked.capture_options.screenshot is screenshot
    assert checked.capture_options.screenshot is build_segmenter(segmenter, **options) \
        .needs_screenshot


def test_a_segmenter_that_does_not_say_gets_the_screenshot():
    """A user's segmenter written before ``needs_screenshot`` (a name and ``segment``) still
    runs in a batch, with the screenshot it may read."""
    class Plugin:
        name = "plugin"

        def segment(self, page):
            raise NotImplementedError

    assert wants_screenshot(Plugin()) is True
    assert wants_screenshot(build_segmenter("baseline")) is False
