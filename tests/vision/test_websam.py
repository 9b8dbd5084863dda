"""WebSAM-Adapter: parameter count on a random ViT-B, the tiny model's forward and masks →
segments, the adapter checkpoint, and two training steps on a page folder."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("segment_anything")

from wps.cli import main  # noqa: E402
from wps.errors import ModelError  # noqa: E402
from wps.segmenters import build_segmenter  # noqa: E402
from wps.segmenters._vision import load_screenshot_file  # noqa: E402
from wps.segmenters._vision.models import build_sam_tiny, build_sam_vit_b, load_sam  # noqa: E402
from wps.segmenters.websam.checkpoint import (  # noqa: E402
    adapter_checkpoint,
    load_websam,
    save_checkpoint,
)
from wps.segmenters.websam.modeling import WebSam, trainable_parameter_count  # noqa: E402
from wps.segmenters.websam.predictor import page_probabilities  # noqa: E402
from wps.segmenters.websam.training import page_target  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
TINY = {"device": "cpu", "precision": "fp32"}


def test_the_adapter_trains_4_34_m_parameters_on_a_random_vit_b() -> None:
    model = WebSam(build_sam_vit_b())
    count = trainable_parameter_count(model)
    assert abs(count - 4.34e6) <= 0.01 * 4.34e6, count
    adapter = sum(parameter.numel() for parameter in model.adapter.parameters())
    assert adapter == 73_824 + 24_672 + 12 * 9_312 + 74_496  # PET + ECT + 12 tune + shared up
    assert all(not parameter.requires_grad for parameter in model.sam.image_encoder.parameters())
    assert set(model.trainable_state_dict()) == {
        name for name, parameter in model.named_parameters() if parameter.requires_grad}


@pytest.fixture
def tiny_adapter(tmp_path: Path, tiny_sam_checkpoint: Path) -> Path:
    torch.manual_seed(1)
    model = WebSam(load_sam(tiny_sam_checkpoint, shared=False))
    with torch.no_grad():  # a decoder bias that makes part of the page a segment
        model.sam.mask_decoder.output_hypernetworks_mlps[0].layers[-1].bias.add_(0.3)
    path = tmp_path / "adapter.pt"
    save_checkpoint(adapter_checkpoint(model, tiny_sam_checkpoint, {"step": 0}), path)
    return path


def test_websam_forward_gives_one_mask_logit_map_per_image(tiny_sam_checkpoint: Path) -> None:
    model = WebSam(load_sam(tiny_sam_checkpoint, shared=False)).eval()
    images = model.preprocess(torch.rand(2, 3, 64, 64) * 255)
    with torch.no_grad():
        logits = model(images)
        single = model(images[1:])
    assert logits.shape == (2, 1, 64, 64)
    assert torch.allclose(logits[1:], single, atol=1e-5)  # images do not mix in a batch
    assert not torch.allclose(logits[0], logits[1])


def test_websam_segments_a_page_folder_end_to_end(page_folder: Path, tiny_sam_checkpoint: Path,
                                                  tiny_adapter: Path, tmp_path: Path,
                                                  capsys) -> None:
    out = tmp_path / "out"
    code = main(["segment", str(page_folder), "--out", str(out), "--segmenter", "websam",
                 "--no-text", "-O", f"checkpoint={tiny_adapter}",
                 "-O", f"sam_checkpoint={tiny_sam_checkpoint}", "-O", "device=cpu"])
    assert code == 0, capsys.readouterr().err
    assert main(["eval", str(out / "segmentation.json"), "--ground-truth",
                 str(page_folder / "ground-truth.json")]) == 0
    lines = [json.loads(line) for line in (out / "segments.jsonl").read_text().splitlines()]
    assert lines and all(line["node_ids"] for line in lines)


def test_websam_masks_become_components_fitted_to_nodes(page_folder: Path,
                                                        tiny_sam_checkpoint: Path,
                                                        tiny_adapter: Path) -> None:
    from wps.webis.capture import capture_from_webis

    segmenter = build_segmenter("websam", checkpoint=str(tiny_adapter),
                                sam_checkpoint=str(tiny_sam_checkpoint), **TINY)
    capture = capture_from_webis(page_folder)
    rgb = load_screenshot_file(page_folder / "screenshot.png", "000000", "test")
    probabilities = segmenter.probabilities(rgb)
    assert probabilities.shape == rgb.shape[:2]
    segmentation = segmenter.segment(capture)
    inside = probabilities >= segmenter.mask_threshold
    assert 0 < inside.mean() < 1
    for segment in segmentation.segments:  # every node of a segment lies mostly in the mask
        for node_id in segment.node_ids:
            left, top, right, bottom = (int(v) for v in capture.nodes[node_id].bbox)
            if right > left and bottom > top:
                assert inside[top:bottom, left:right].mean() >= 0.75 - 1e-9


def test_an_adapter_refuses_another_sam_checkpoint(tiny_adapter: Path, tmp_path: Path,
                                                   tiny_sam_checkpoint: Path) -> None:
    torch.manual_seed(5)
    other = tmp_path / "other-sam.pth"
    torch.save(build_sam_tiny().state_dict(), other)
    with pytest.raises(ModelError, match="not the SAM checkpoint adapter adapter.pt was trained"):
        load_websam(tiny_adapter, other)
    with pytest.raises(ModelError, match="pass it as -O sam_checkpoint"):
        load_websam(tiny_sam_checkpoint, tiny_sam_checkpoint)


def test_the_target_is_the_union_of_the_majority_vote_polygons(page_folder: Path) -> None:
    from wps.evaluation.geometry import segment_geometry
    from wps.webis.segmentation_json import read_segmentations

    target = page_target(page_folder / "ground-truth.json", (5590, 1366))
    _, segments = read_segmentations(page_folder / "ground-truth.json").select_one("majority")
    import shapely

    union = shapely.union_all([segment_geometry(segment) for segment in segments])
    assert abs(int(target.sum()) - union.area) <= 0.02 * union.area


def _train_script():
    spec = importlib.util.spec_from_file_location("train_websam", REPO / "scripts/train_websam.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_two_training_steps_lower_the_loss_save_reload_and_resume(
        page_folder: Path, tiny_sam_checkpoint: Path, tmp_path: Path, capsys) -> None:
    from wps.segmenters.websam.training import TrainOptions, train

    out = tmp_path / "adapter.pt"
    script = _train_script()
    assert script.main(["--data", str(page_folder.parent), "--sam-checkpoint",
                        str(tiny_sam_checkpoint), "--out", str(out), "--steps", "2",
                        "--device", "cpu", "--no-progress"]) == 0
    assert "2 steps on 1 pages" in capsys.readouterr().out
    saved = torch.load(out, weights_only=True)
    assert saved["training"]["step"] == 2 and "optimizer" not in saved
    assert not any(name.startswith("sam.image_encoder") for name in saved["trainable"])

    options = TrainOptions(data=page_folder.parent, sam_checkpoint=tiny_sam_checkpoint,
                           out=tmp_path / "again.pt", steps=2, device="cpu", progress=False)
    result = train(options)
    assert len(result.losses) == 2 and result.losses[1] < result.losses[0]
    assert torch.equal(torch.load(options.out, weights_only=True)["trainable"][
        "adapter.up.weight"], saved["trainable"]["adapter.up.weight"])  # deterministic

    rgb = load_screenshot_file(page_folder / "screenshot.png", "000000", "test")
    reloaded = load_websam(out, tiny_sam_checkpoint)
    trained = WebSam(load_sam(tiny_sam_checkpoint, shared=False))
    trained.load_trainable_state_dict(saved["trainable"])
    assert np.array_equal(page_probabilities(reloaded, rgb),
                          page_probabilities(trained.eval(), rgb))
    fresh = WebSam(load_sam(tiny_sam_checkpoint, shared=False)).eval()
    assert not np.array_equal(page_probabilities(fresh, rgb), page_probabilities(reloaded, rgb))

    # interrupted after step 1 (saved every step), the same command goes on from step 1
    stopped = TrainOptions(data=page_folder.parent, sam_checkpoint=tiny_sam_checkpoint,
                           out=tmp_path / "resumed.pt", steps=2, device="cpu", progress=False,
                           save_every=1)

    def interrupt(step: int, loss: float) -> None:
        if step == 1:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        train(stopped, on_step=interrupt)
    resumed = train(stopped)
    assert resumed.steps == 2 and len(resumed.losses) == 1
    assert resumed.losses[0] == pytest.approx(result.losses[1], rel=1e-5)
