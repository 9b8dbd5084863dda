"""Both benchmarks check their output folder before any work (found in the QA pass)."""

from __future__ import annotations

from pathlib import Path

import pytest

from wps.errors import OutputError


def test_webseg20_benchmark_output_that_is_a_file(webis_sample: Path, tmp_path: Path) -> None:
    from wps.benchmark.runner import BenchmarkOptions, run_benchmark

    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    options = BenchmarkOptions(data=webis_sample, segmenters=["baseline"], out=blocker,
                               progress=False)
    with pytest.raises(OutputError, match="a-file: exists and is not a folder"):
        run_benchmark(options)
    assert blocker.read_text() == "x"


def test_article_benchmark_checks_the_output_before_the_data(tmp_path: Path) -> None:
    from wps.benchmark.articles import run_article_benchmark

    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    with pytest.raises(OutputError, match="a-file: exists and is not a folder"):
        run_article_benchmark(tmp_path / "no-data", blocker, cache=tmp_path / "cache",
                              progress=False)


def test_webseg20_benchmark_refuses_an_unknown_engine_before_any_work(webis_sample: Path,
                                                                      tmp_path: Path) -> None:
    from wps.benchmark.runner import BenchmarkOptions, run_benchmark
    from wps.errors import UsageError

    options = BenchmarkOptions(data=webis_sample, segmenters=["baseline"], out=tmp_path / "out",
                               engine="dask", progress=False)
    with pytest.raises(UsageError, match="--engine must be local or ray, got 'dask'"):
        run_benchmark(options)
    assert not (tmp_path / "out").exists()
