"""Training the WebSAM adapter on Webis-WebSeg-20 page folders (algorithms.md §2.1).

Each page is one sample: the screenshot resized to the model's square input (1024²) and, as the
target, the union of the ``majority-vote`` ground-truth polygons filled on a blank page and
resized alike. Loss BCE + IoU, AdamW (lr 2e-4), cosine decay over all steps, bf16 autocast where
the device supports it. Folds: the ECIR'21 ten folds (``webis-webseg-20-folds.txt``, lines
``<fold> <page-id>``) when given, else ``crc32(page id) mod folds``; ``fold=K`` trains on the
other folds. Every ``save_every`` steps the adapter and a resume file (optimizer, scheduler,
step) are written atomically; a rerun of the same command continues from the resume file.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from ...errors import DatasetError, UsageError
from ...webis.segmentation_json import read_segmentations
from .._vision import file_sha256, load_screenshot_file, pick_device, precision_dtype
from .predictor import autocast, image_batch, resize_to_input

TRAINING_FILES = ("screenshot.png", "ground-truth.json")
GROUND_TRUTH = "majority-vote"


@dataclass(slots=True)
class TrainOptions:
    data: Path
    """Webis-WebSeg-20 pages: any layout :class:`~wps.webis.WebisDataset` reads."""
    sam_checkpoint: Path
    out: Path
    """The adapter checkpoint to write; ``<out>.resume`` holds the resume state."""
    steps: int | None = None
    """Optimizer steps (one page each); default ``epochs`` × training pages."""
    epochs: int = 20
    folds: int = 10
    fold: int | None = None
    """The held-out fold (trained on the others); ``None`` trains on every page."""
    folds_file: Path | None = None
    device: str = "auto"
    precision: str = "auto"
    learning_rate: float = 2e-4
    weight_decay: float = 0.01
    save_every: int = 200
    seed: int = 0
    progress: bool = True
    fresh: bool = False
    """Ignore an existing resume file and start over."""


@dataclass(slots=True)
class TrainResult:
    out: Path
    steps: int
    """Steps done in total (including those of earlier, resumed runs)."""
    losses: list[float] = field(default_factory=list)
    """Loss of each step run by this call."""
    pages: int = 0


# ------------------------------------------------------------------------------------- samples
def page_target(ground_truth: Path, shape: tuple[int, int]) -> np.ndarray:
    """The union of the ``majority-vote`` polygons as an H×W uint8 0/1 image of ``shape``
    (the screenshot's; page coordinates are scaled to it)."""
    import cv2

    segmentations = read_segmentations(ground_truth)
    _, segments = segmentations.select_one(f"^{GROUND_TRUTH}$")
    height, width = shape
    scale = np.array([width / segmentations.width, height / segmentations.height])
    target = np.zeros(shape, dtype=np.uint8)
    for segment in segments:
        for polygon in segment:
            rings = [np.round(np.asarray(ring, dtype=np.float64)[:, :2] * scale).astype(np.int32)
                     for ring in polygon]
            canvas = np.zeros(shape, dtype=np.uint8)
            cv2.fillPoly(canvas, rings, 1)  # even-odd: holes stay empty
            target |= canvas
    return target


def page_sample(folder: Path, size: int) -> tuple[np.ndarray, np.ndarray]:
    """(size×size×3 uint8 screenshot, size×size float32 target in [0, 1]) of a page folder."""
    import cv2

    rgb = load_screenshot_file(folder / "screenshot.png", folder.name, "train_websam")
    target = page_target(folder / "ground-truth.json", rgb.shape[:2]).astype(np.float32)
    return (resize_to_input(rgb, size),
            cv2.resize(target, (size, size), interpolation=cv2.INTER_AREA))


def read_folds(path: Path) -> dict[str, int]:
    """``<fold> <page-id>`` lines (the ECIR'21 ``webis-webseg-20-folds.txt``) → page id → fold."""
    folds: dict[str, int] = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as err:
        raise DatasetError(f"{path}: cannot read the folds file ({err.strerror})") from None
    for number, line in enumerate(lines, 1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 2 or not parts[0].isdigit():
            raise DatasetError(f"{path}: line {number}: expected '<fold> <page-id>'")
        folds[parts[1]] = int(parts[0])
    return folds


def training_pages(options: TrainOptions) -> list[Any]:
    """The dataset pages to train on: those with a screenshot and ground truth, outside the
    held-out fold."""
    from ...webis import WebisDataset

    if options.fold is not None and not 0 <= options.fold < options.folds:
        raise UsageError(f"--fold must be in 0..{options.folds - 1}, got {options.fold}")
    folds = read_folds(options.folds_file) if options.folds_file else {}
    dataset = WebisDataset(options.data, require=TRAINING_FILES)
    pages = list(dataset)
    if options.fold is not None:
        pages = [page for page in pages if _fold(page.id, folds, options.folds) != options.fold]
    if not pages:
        raise DatasetError(f"{options.data}: no page with {' and '.join(TRAINING_FILES)} to "
                           f"train on")
    return pages


def _fold(page_id: str, folds: dict[str, int], count: int) -> int:
    return folds[page_id] if page_id in folds else zlib.crc32(page_id.encode()) % count


# ------------------------------------------------------------------------------------ training
def train(options: TrainOptions, on_step: Callable[[int, float], None] | None = None
          ) -> TrainResult:
    """Train (or resume training) the adapter; returns the losses of the steps run now."""
    import torch
    from tqdm import tqdm

    from .._vision.models import load_sam, read_state_dict, require_vision
    from .checkpoint import adapter_checkpoint, save_checkpoint
    from .modeling import WebSam, bce_iou_loss

    require_vision("train_websam")
    if options.steps is not None and options.steps < 1 or options.epochs < 1:
        raise UsageError("--steps and --epochs must be >= 1")
    pages = training_pages(options)
    total = options.steps or options.epochs * len(pages)
    device = pick_device(options.device)
    dtype = precision_dtype(options.precision, device)
    torch.manual_seed(options.seed)
    model = WebSam(load_sam(options.sam_checkpoint, "auto", "cpu", shared=False)).to(device)
    trainable = [parameter for parameter in model.parameters() if parameter.requires_grad]
    optimizer = torch.optim.AdamW(trainable, lr=options.learning_rate,
                                  weight_decay=options.weight_decay)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=total)
    run = {"sam_sha256": file_sha256(options.sam_checkpoint), "total_steps": total,
           "fold": options.fold, "folds": options.folds, "pages": len(pages),
           "learning_rate": options.learning_rate, "seed": options.seed}
    resume = Path(f"{options.out}.resume")
    done = 0
    if resume.exists() and not options.fresh:
        state = read_state_dict(resume, "WebSAM resume")
        if state.get("run") != run:
            raise UsageError(f"{resume}: written by another training run ({state.get('run')}); "
                             f"pass --fresh to start over")
        model.load_trainable_state_dict(state["trainable"])
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        done = int(state["step"])

    def save(step: int, loss: float) -> None:
        training = {**run, "step": step, "loss": loss}
        checkpoint = adapter_checkpoint(model, options.sam_checkpoint, training)
        save_checkpoint({**checkpoint, "run": run, "step": step,
                         "optimizer": optimizer.state_dict(),
                         "scheduler": scheduler.state_dict()}, resume)
        save_checkpoint(checkpoint, options.out)

    result = TrainResult(Path(options.out), done, pages=len(pages))
    size = model.image_size
    model.train()
    bar = tqdm(total=total, initial=done, disable=not options.progress, unit="step",
               desc="train_websam")
    loss_value = float("nan")
    with bar:
        for step in range(done, total):
            page = pages[_order(len(pages), step // len(pages), options.seed)[step % len(pages)]]
            with page.open() as folder:
                image, target = page_sample(folder, size)
            images = model.preprocess(image_batch([image], device))
            targets = torch.from_numpy(target)[None, None].to(device)
            with autocast(device, dtype):
                logits = model(images)
            loss = bce_iou_loss(logits, targets)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            scheduler.step()
            loss_value = float(loss.detach())
            result.losses.append(loss_value)
            result.steps = step + 1
            bar.set_postfix(loss=f"{loss_value:.4f}", page=page.id)
            bar.update(1)
            if (step + 1) % options.save_every == 0 and step + 1 < total:
                save(step + 1, loss_value)
            if on_step is not None:
                on_step(step + 1, loss_value)
    if result.losses:
        save(result.steps, loss_value)
    model.eval()
    return result


def _order(count: int, epoch: int, seed: int) -> np.ndarray:
    """Page order of an epoch: a permutation fixed by (seed, epoch), so a resumed run goes on
    exactly where it stopped."""
    return np.random.default_rng([seed, epoch]).permutation(count)

