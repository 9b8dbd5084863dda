"""The optional torch stack, checkpoints and the SAM builder registry (algorithms.md §3–4).

No weights are ever downloaded: every model loads from a path the user gives (``-O checkpoint=``,
or an environment variable so that ``wps batch`` and the benchmark script, which build segmenters
by name only, can use them too). Nothing here imports torch until a function needs it.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

from ...errors import MissingDependencyError, ModelError, UsageError

VISION_PACKAGES = ("torch", "torchvision", "segment_anything")
INSTALL_HINT = "pip install 'wps[vision]'"
PRECISIONS = ("auto", "bf16", "fp32")
DEVICES = ("auto", "cpu", "cuda")


def require_vision(segmenter: str) -> None:
    """Fail with the pip command when torch, torchvision or segment-anything is missing."""
    missing = [name for name in VISION_PACKAGES if importlib.util.find_spec(name) is None]
    if missing:
        raise MissingDependencyError(
            f"{segmenter}: needs {', '.join(missing).replace('_', '-')} (the vision extra): "
            f"{INSTALL_HINT}")


def check_choices(segmenter: str, **choices: str) -> None:
    """``device``, ``precision`` and ``model_type`` options checked before any model loads."""
    allowed = {"device": DEVICES, "precision": PRECISIONS,
               "model_type": ("auto", *SAM_BUILDERS)}
    for option, value in choices.items():
        if value not in allowed[option]:
            raise UsageError(f"{segmenter}: {option} must be one of {list(allowed[option])}, "
                             f"got {value!r}")


def checkpoint_path(value: Any, environment: str, option: str, segmenter: str) -> Path:
    """The checkpoint file named by the option, else by ``$environment``; it must exist."""
    chosen = value if value not in (None, "") else os.environ.get(environment) or None
    if chosen is None:
        raise ModelError(f"{segmenter}: no {option} given; pass -O {option}=PATH "
                         f"(or set {environment}); weights are never downloaded")
    path = Path(str(chosen)).expanduser()
    if not path.is_file():
        raise ModelError(f"{path}: {segmenter} {option} file does not exist "
                         f"(pass -O {option}=PATH to a local file)")
    return path


def file_sha256(path: str | Path) -> str:
    """Hex SHA-256 of a file, remembered per (path, size, mtime): SAM-B is 375 MB."""
    stat = Path(path).stat()
    return _sha256(str(Path(path).resolve()), stat.st_size, stat.st_mtime_ns)


@lru_cache(maxsize=8)
def _sha256(path: str, size: int, mtime_ns: int) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def pick_device(device: str) -> str:
    """``auto`` → ``cuda`` when torch sees a GPU, else ``cpu``; ``cuda`` without one is an error."""
    if device not in DEVICES:
        raise UsageError(f"device must be one of {list(DEVICES)}, got {device!r}")
    import torch

    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise UsageError("device cuda: torch sees no CUDA device (use -O device=cpu)")
    return device


def precision_dtype(precision: str, device: str) -> Any:
    """The autocast dtype, or None for float32. ``auto`` takes bf16 only where the hardware
    has it (a GPU with bf16, a CPU with AVX512-BF16/AMX): emulated on an AVX2 CPU, a ViT-B pass
    took 1,533 s against 129 s in fp32 (scripts/bench_vision.py). ``bf16`` forces it."""
    if precision not in PRECISIONS:
        raise UsageError(f"precision must be one of {list(PRECISIONS)}, got {precision!r}")
    import torch

    if precision == "fp32":
        return None
    if device.startswith("cuda"):
        if not torch.cuda.is_bf16_supported():
            if precision == "bf16":
                raise UsageError("precision bf16: this GPU does not support bfloat16")
            return None
        return torch.bfloat16
    return torch.bfloat16 if precision == "bf16" or _cpu_has_bf16() else None


def _cpu_has_bf16() -> bool:
    import torch

    try:
        return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
    except (AttributeError, RuntimeError):
        return False


# ------------------------------------------------------------------------------ SAM builders
def build_sam_vit_h() -> Any:
    from segment_anything import build_sam_vit_h as build

    return build()


def build_sam_vit_l() -> Any:
    from segment_anything import build_sam_vit_l as build

    return build()


def build_sam_vit_b() -> Any:
    from segment_anything import build_sam_vit_b as build

    return build()


def build_sam_tiny() -> Any:
    """Random ~87 k-parameter SAM on 64² inputs (algorithms.md §3): for tests, never useful."""
    from segment_anything.modeling import (
        ImageEncoderViT,
        MaskDecoder,
        PromptEncoder,
        Sam,
        TwoWayTransformer,
    )

    encoder = ImageEncoderViT(img_size=64, patch_size=16, embed_dim=32, depth=2, num_heads=2,
                              out_chans=32, window_size=0)
    prompts = PromptEncoder(embed_dim=32, image_embedding_size=(4, 4), input_image_size=(64, 64),
                            mask_in_chans=4)
    decoder = MaskDecoder(transformer_dim=32, transformer=TwoWayTransformer(
        depth=1, embedding_dim=32, mlp_dim=64, num_heads=2), iou_head_depth=1,
        iou_head_hidden_dim=16)
    return Sam(image_encoder=encoder, prompt_encoder=prompts, mask_decoder=decoder).eval()


SAM_BUILDERS: dict[str, Callable[[], Any]] = {
    "vit_h": build_sam_vit_h,
    "vit_l": build_sam_vit_l,
    "vit_b": build_sam_vit_b,
    "tiny": build_sam_tiny,
}
"""Random-weight SAM models by type, as segment-anything's ``sam_model_registry``."""

SAM_TYPE_BY_WIDTH = {1280: "vit_h", 1024: "vit_l", 768: "vit_b", 32: "tiny"}
_PATCH_WEIGHT = "image_encoder.patch_embed.proj.weight"


def read_state_dict(path: Path, what: str) -> dict[str, Any]:
    """A ``torch.save``-d dict of tensors (weights only: no code runs while loading)."""
    import pickle

    import torch

    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except (OSError, RuntimeError, pickle.UnpicklingError, EOFError, ValueError) as err:
        raise ModelError(f"{path}: not a readable {what} checkpoint ({_first_line(err)})"
                         ) from None
    if not isinstance(state, dict):
        raise ModelError(f"{path}: not a {what} checkpoint (holds {type(state).__name__})")
    return state


def sam_type_of(state: dict[str, Any], path: Path) -> str:
    """The SAM model type of a state dict, from its patch embedding's width."""
    weight = state.get(_PATCH_WEIGHT)
    width = getattr(weight, "shape", (None,))[0]
    if width not in SAM_TYPE_BY_WIDTH:
        raise ModelError(f"{path}: not a SAM checkpoint (no {_PATCH_WEIGHT} of a known width)")
    return SAM_TYPE_BY_WIDTH[width]


def load_sam(path: str | Path, model_type: str = "auto", device: str = "cpu",
             shared: bool = True) -> Any:
    """A SAM model in eval mode on ``device`` from an official-format checkpoint (a state dict
    saved with ``torch.save``); ``auto`` reads the type from the weights. ``shared`` models load
    once per process and file version (never change one); ``shared=False`` gives a fresh one."""
    path = Path(path)
    if model_type != "auto" and model_type not in SAM_BUILDERS:
        raise UsageError(f"model_type must be auto or one of {sorted(SAM_BUILDERS)}, "
                         f"got {model_type!r}")
    stat = path.stat()
    load = _load_shared_sam if shared else _load_sam
    return load(str(path), stat.st_size, stat.st_mtime_ns, model_type, device)


def _load_sam(path: str, size: int, mtime_ns: int, model_type: str, device: str) -> Any:
    state = read_state_dict(Path(path), "SAM")
    found = sam_type_of(state, Path(path))
    if model_type not in ("auto", found):
        raise ModelError(f"{path}: a SAM {found} checkpoint, not {model_type} "
                         f"(drop -O model_type or pass model_type={found})")
    model = SAM_BUILDERS[found]()
    try:
        model.load_state_dict(state, strict=True)
    except RuntimeError as err:
        raise ModelError(f"{path}: does not fit SAM {found} ({_first_line(err)})") from None
    return model.to(device).eval()


_load_shared_sam = lru_cache(maxsize=2)(_load_sam)


def _first_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return text[0][:200] if text else type(err).__name__
