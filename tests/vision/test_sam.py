"""The ``sam`` segmenter end to end with the tiny random SAM, and its one-line failures."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("segment_anything")

from wps.cli import main  # noqa: E402
from wps.errors import MissingDependencyError, ModelError  # noqa: E402
from wps.segmenters import build_segmenter  # noqa: E402

LOOSE = ["-O", "pred_iou_thresh=0", "-O", "stability_score_thresh=0", "-O", "points_per_side=2",
         "-O", "device=cpu", "-O", "precision=fp32"]
"""The random model's masks are poor: keep them all, and few points keep it fast."""


def test_sam_segments_a_webis_page_folder_and_wps_eval_scores_it(
        page_folder: Path, tiny_sam_checkpoint: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    code = main(["segment", str(page_folder), "--out", str(out), "--segmenter", "sam",
                 "--no-text", "-O", f"checkpoint={tiny_sam_checkpoint}", *LOOSE])
    assert code == 0, capsys.readouterr().err
    written = json.loads((out / "segmentation.json").read_text())
    segments = next(iter(written["segmentations"].values()))
    assert segments and (written["width"], written["height"]) == (1366, 5590)
    assert main(["eval", str(out / "segmentation.json"), "--ground-truth",
                 str(page_folder / "ground-truth.json")]) == 0
    lines = [json.loads(line) for line in (out / "segments.jsonl").read_text().splitlines()]
    assert all(line["node_ids"] for line in lines)  # every segment fitted to DOM nodes
    assert any(line["text"] for line in lines)
    owned = [node_id for line in lines for node_id in line["node_ids"]]
    assert len(owned) == len(set(owned))  # no node in two segments


def test_sam_without_a_checkpoint_is_one_line_exit_20(page_folder: Path, tmp_path: Path,
                                                      capsys, monkeypatch) -> None:
    monkeypatch.delenv("WPS_SAM_CHECKPOINT", raising=False)
    code = main(["segment", str(page_folder), "--out", str(tmp_path / "out"),
                 "--segmenter", "sam"])
    error = capsys.readouterr().err.strip()
    assert code == ModelError.exit_code == 20
    assert error.count("\n") == 0 and "checkpoint=PATH" in error
    assert not (tmp_path / "out").exists()
    code = main(["segment", str(page_folder), "--out", str(tmp_path / "out"),
                 "--segmenter", "sam", "-O", f"checkpoint={tmp_path / 'nothing.pth'}"])
    assert code == 20 and "nothing.pth" in capsys.readouterr().err


def test_sam_without_the_vision_extra_is_one_line_exit_21(page_folder: Path, tmp_path: Path,
                                                          tiny_sam_checkpoint: Path, capsys,
                                                          monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "segment_anything", None)  # what find_spec sees as absent
    code = main(["segment", str(page_folder), "--out", str(tmp_path / "out"),
                 "--segmenter", "sam", "-O", f"checkpoint={tiny_sam_checkpoint}"])
    error = capsys.readouterr().err.strip()
    assert code == MissingDependencyError.exit_code == 21
    assert error.count("\n") == 0 and "pip install 'wps[vision]'" in error


def test_a_checkpoint_that_is_not_sam_or_of_another_type_is_a_model_error(
        tmp_path: Path, tiny_sam_checkpoint: Path) -> None:
    import numpy as np

    garbage = tmp_path / "garbage.pth"
    garbage.write_bytes(b"not a checkpoint")
    rgb = np.full((64, 64, 3), 255, dtype=np.uint8)
    with pytest.raises(ModelError, match="not a readable SAM checkpoint"):
        build_segmenter("sam", checkpoint=str(garbage), device="cpu").masks(rgb)
    with pytest.raises(ModelError, match="a SAM tiny checkpoint, not vit_b"):
        build_segmenter("sam", checkpoint=str(tiny_sam_checkpoint), model_type="vit_b",
                        device="cpu").masks(rgb)


def test_the_checkpoint_can_come_from_the_environment(tiny_sam_checkpoint: Path,
                                                      monkeypatch) -> None:
    monkeypatch.setenv("WPS_SAM_CHECKPOINT", str(tiny_sam_checkpoint))
    assert build_segmenter("sam").checkpoint == str(tiny_sam_checkpoint)


def test_bad_choices_are_usage_errors_before_any_model_loads(tiny_sam_checkpoint: Path) -> None:
    from wps.errors import UsageError

    for option in ({"device": "tpu"}, {"precision": "fp8"}, {"model_type": "vit_x"}):
        with pytest.raises(UsageError, match=next(iter(option))):
            build_segmenter("sam", checkpoint=str(tiny_sam_checkpoint), **option)
