"""The ``wps eval|fit|flatten|fuse|agreement`` command contracts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wps.cli import main
from wps.evaluation import read_segmentations

INPUTS = Path("reference-outputs") / "algorithm-inputs"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_eval_json_contract_with_null_for_nan(webis_sample: Path, capsys) -> None:
    code, out, _ = _run(capsys, "eval", webis_sample / INPUTS / "tiny.json", "--ground-truth",
                        webis_sample / "000000" / "ground-truth.json")
    assert code == 0
    data = json.loads(out)
    assert set(data) == {"id", "algorithm", "ground_truth", "results"}
    assert (data["id"], data["algorithm"], data["ground_truth"]) == ("000000", "tiny",
                                                                    "majority-vote")
    assert list(data["results"]) == ["pixels", "edges-fine", "edges-coarse", "nodes", "chars"]
    assert data["results"]["nodes"] == {"precision": None, "recall": 0.0, "f1": None}
    assert data["results"]["pixels"]["precision"] == 1.0
    assert "NaN" not in out


def test_eval_csv_is_r_format(webis_sample: Path, capsys) -> None:
    code, out, _ = _run(capsys, "eval", webis_sample / INPUTS / "tiny.json", "--ground-truth",
                        webis_sample / "000000" / "ground-truth.json", "--format", "csv",
                        "--size-functions", "area,identity")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == '"","bcubed.precision","bcubed.recall","bcubed.f1"'
    assert lines[1].startswith('"pixels",1,3.9348044379705e-10,')
    assert lines[2] == '"nodes",NA,0,NA'


def test_eval_default_segmentation_flag(webis_sample: Path, capsys) -> None:
    truth = webis_sample / "000000" / "ground-truth.json"
    code, _, err = _run(capsys, "eval", webis_sample / INPUTS / "empty.json", "--ground-truth",
                        truth)
    assert code == 2 and err.startswith("wps: error: ") and "empty.json" in err
    code, out, _ = _run(capsys, "eval", webis_sample / INPUTS / "empty.json", "--ground-truth",
                        truth, "--default-segmentation", "--size-functions", "pixels")
    assert code == 0
    assert json.loads(out)["results"]["pixels"]["precision"] == pytest.approx(0.226672052828432)


@pytest.mark.parametrize(
    ("name", "exit_code"),
    [("baseline-floatheight.json", 4), ("baseline-unclosed.json", 4),
     ("baseline-wrongid.json", 4), ("baseline-wrongheight.json", 4)],
)
def test_eval_bad_input_exit_codes(webis_sample: Path, capsys, name: str, exit_code: int) -> None:
    code, out, err = _run(capsys, "eval", webis_sample / INPUTS / name, "--ground-truth",
                          webis_sample / "000000" / "ground-truth.json")
    assert code == exit_code and out == ""
    assert err.count("\n") == 1 and name in err


def test_eval_unknown_size_function(webis_sample: Path, capsys) -> None:
    code, _, err = _run(capsys, "eval", webis_sample / INPUTS / "tiny.json", "--ground-truth",
                        webis_sample / "000000" / "ground-truth.json", "--size-functions", "bogus")
    assert code == 2 and "unknown size function 'bogus'" in err


def test_fit_flatten_fuse_agreement_commands(webis_sample: Path, tmp_path: Path, capsys) -> None:
    page = webis_sample / "000000"
    fitted = tmp_path / "fitted.json"
    code, _, _ = _run(capsys, "fit", "--input", page / "annotations.json", "--output", fitted,
                      "--segmentations", "3IO1")
    assert code == 0
    names = list(read_segmentations(fitted).segmentations)
    assert names == ["annotation-3IO1LGZLK9XTC9FET9Y9DVFNNL5861.fitted"]
    flat = tmp_path / "flat.json"
    assert _run(capsys, "flatten", "--input", fitted, "--output", flat)[0] == 0
    assert read_segmentations(flat).width == 1366
    fused = tmp_path / "fused.json"
    code, _, _ = _run(capsys, "fuse", "--input", page / "fitted-annotations.json", "--output",
                      fused, "--disagreement-threshold", "0.1,0.5")
    assert code == 0
    counts = {k: len(v) for k, v in read_segmentations(fused).segmentations.items()}
    assert counts["disagreement0.5"] == 15 and set(counts) == {"disagreement0.1",
                                                               "disagreement0.5"}
    code, out, _ = _run(capsys, "agreement", "--input", page / "fitted-annotations.json",
                        "--output", tmp_path / "agreement")
    assert code == 0
    assert "pixel.txt 0.590063015979692 0.947362839774166" in out
    assert (tmp_path / "agreement" / "identity.txt").read_text().count("\n") == 5


def test_fit_without_nodes_is_an_error(webis_sample: Path, tmp_path: Path, capsys) -> None:
    source = tmp_path / "in.json"
    source.write_text((webis_sample / "000000" / "annotations.json").read_text())
    code, _, err = _run(capsys, "fit", "--input", source, "--output", tmp_path / "out.json")
    assert code == 5 and "nodes.csv" in err
    assert not (tmp_path / "out.json").exists()
