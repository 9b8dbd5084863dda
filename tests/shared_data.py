"""Where the shared data sets live (../shared beside the checkout, or $WPS_SHARED).

A plain module, not a conftest, so test modules can import it by a unique name.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("WPS_SHARED", REPO.parent / "shared"))
WEBIS_SAMPLE = SHARED / "webis-webseg-20-sample"
ARTICLE_BENCHMARK = SHARED / "article-extraction-benchmark"


def require_shared(path: Path) -> Path:
    """Skip a test whose shared data is absent on a developer's machine; in CI it is an error,
    so a checkout without ../shared can never pass by skipping the data tests."""
    if not path.is_dir():
        message = f"{path} is missing (CI has ../shared beside the checkout)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return path
