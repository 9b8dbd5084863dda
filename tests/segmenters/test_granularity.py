"""One granularity scale for every segmenter: coarse never gives more segments than fine."""

from __future__ import annotations

import pytest
from shared_data import SHARED, require_shared

from wps.errors import UsageError
from wps.segmenters import build_segmenter

DEV_PAGE = SHARED / "webseg-dev" / "pages" / "wd00004"


@pytest.mark.parametrize("name", ["dom-cohesion", "vips", "xycut"])
def test_coarse_to_fine_is_more_segments(name):
    from wps.webis import capture_from_webis

    page = capture_from_webis(require_shared(DEV_PAGE))
    counts = [len(build_segmenter(name, granularity=level).segment(page).segments)
              for level in ("coarse", "medium", "fine")]
    assert counts == sorted(counts) and counts[0] < counts[-1], counts
    default = len(build_segmenter(name).segment(page).segments)
    assert default == counts[1]  # medium is each segmenter's default


@pytest.mark.parametrize("name", ["dom-cohesion", "vips", "xycut", "ensemble"])
def test_a_bad_granularity_is_a_usage_error(name):
    with pytest.raises(UsageError, match="granularity"):
        build_segmenter(name, granularity="finest")
    with pytest.raises(UsageError, match="granularity"):
        build_segmenter(name, granularity=2.0)
