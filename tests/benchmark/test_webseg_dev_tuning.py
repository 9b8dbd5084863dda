"""scripts/benchmark_webseg_dev.py's held-out rows: each page is scored with the settings that
are best on the other pages, never with its own best."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "benchmark_webseg_dev.py"


@pytest.fixture(scope="module")
def script():
    spec = importlib.util.spec_from_file_location("benchmark_webseg_dev", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _pages(script, values: list[float]) -> list:
    """Page scores whose five size functions all have F = the given value."""
    return [script.PageScore(f"p{i}", {function: (value, value, value)
                                       for function in script.SIZE_FUNCTIONS}, 3, 0.0, 0.0)
            for i, value in enumerate(values)]


def test_each_page_gets_the_settings_best_on_the_others(script):
    # x is best on p0 and p1, y on p2 and on all three pages together
    per_value = {(("k", "x"),): _pages(script, [0.9, 0.9, 0.1]),
                 (("k", "y"),): _pages(script, [0.5, 0.5, 0.95])}
    result = script.leave_one_page_out(per_value, "seg")
    assert [script.mean_f(page) for page in result.pages] == [0.5, 0.5, 0.1]
    assert "chosen: 2× k=y; 1× k=x" in result.label
    assert "best on all pages: k=y" in result.label


def test_grid_values_are_read_as_segmenter_options(script):
    name, grid = script.parse_grid('vips:pdoc=6,5.5;mode=null,true,"fine"')
    assert name == "vips"
    assert grid[0] == (("pdoc", 6), ("mode", None))
    assert [dict(values)["mode"] for values in grid[:3]] == [None, True, "fine"]
    assert len(grid) == 6
