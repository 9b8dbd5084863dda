"""The WebSAM adapter checkpoint: only the trainable weights, and the SAM file they belong to.

A ``torch.save``-d dict (format ``wps-websam-adapter/1``): ``trainable`` (adapter and mask decoder,
4.34 M parameters for ViT-B, ~17 MB), ``sam_type``, ``sam_sha256`` and ``sam_file`` (the SAM
checkpoint it was trained on: another SAM file is refused, since the decoder was tuned on that
encoder), ``mu`` and ``training`` (steps, fold, loss: what produced it). SAM's own weights stay
out, so an adapter can be shared apart from them.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from ...errors import ModelError
from ...files import atomic_file
from .._vision.models import (
    SAM_TYPE_BY_WIDTH,
    file_sha256,
    load_sam,
    read_state_dict,
    sam_type_of,
)

ADAPTER_FORMAT = "wps-websam-adapter/1"


def adapter_checkpoint(model: Any, sam_path: str | Path, training: dict[str, Any]) -> dict:
    """The checkpoint dict of a :class:`~.modeling.WebSam` trained on the SAM file ``sam_path``."""
    width = model.sam.image_encoder.patch_embed.proj.out_channels
    return {"format": ADAPTER_FORMAT, "sam_type": SAM_TYPE_BY_WIDTH.get(width, "vit_b"),
            "sam_sha256": file_sha256(sam_path), "sam_file": Path(sam_path).name,
            "mu": model.mu, "trainable": model.trainable_state_dict(), "training": training}


def save_checkpoint(checkpoint: dict[str, Any], path: str | Path) -> Path:
    """Write atomically: a crash leaves the previous checkpoint, never half a file."""
    import torch

    with atomic_file(path, binary=True) as stream:
        torch.save(checkpoint, stream)
    return Path(path)


def read_adapter(path: str | Path) -> dict[str, Any]:
    """An adapter checkpoint's dict, its format checked."""
    state = read_state_dict(Path(path), "WebSAM adapter")
    if state.get("format") != ADAPTER_FORMAT or not isinstance(state.get("trainable"), dict):
        hint = " (that is a SAM checkpoint: pass it as -O sam_checkpoint)" \
            if _is_sam(state) else ""
        raise ModelError(f"{path}: not a WebSAM adapter checkpoint (format "
                         f"{state.get('format')!r}, expected {ADAPTER_FORMAT}){hint}")
    return state


def load_websam(adapter_path: str | Path, sam_path: str | Path, device: str = "cpu") -> Any:
    """The :class:`~.modeling.WebSam` of an adapter checkpoint on top of its SAM file, in eval
    mode; loaded once per process and file versions."""
    adapter_path, sam_path = Path(adapter_path), Path(sam_path)
    first, second = adapter_path.stat(), sam_path.stat()
    return _load_websam(str(adapter_path), first.st_mtime_ns, str(sam_path), second.st_mtime_ns,
                        device)


@lru_cache(maxsize=2)
def _load_websam(adapter_path: str, _adapter_mtime: int, sam_path: str, _sam_mtime: int,
                 device: str) -> Any:
    from .modeling import WebSam

    state = read_adapter(adapter_path)
    found = file_sha256(sam_path)
    if found != state.get("sam_sha256"):
        raise ModelError(
            f"{sam_path}: not the SAM checkpoint adapter {Path(adapter_path).name} was trained "
            f"on (sha256 {found[:12]}…, expected {str(state.get('sam_sha256'))[:12]}… of "
            f"{state.get('sam_file')})")
    sam = load_sam(sam_path, str(state.get("sam_type", "auto")), "cpu", shared=False)
    model = WebSam(sam, mu=int(state.get("mu", 8)))
    try:
        model.load_trainable_state_dict(state["trainable"])
    except (KeyError, RuntimeError) as err:
        raise ModelError(f"{adapter_path}: adapter does not fit {state.get('sam_file')} "
                         f"({str(err).splitlines()[0][:200]})") from None
    return model.to(device).eval()


def _is_sam(state: dict[str, Any]) -> bool:
    try:
        sam_type_of(state, Path("."))
    except ModelError:
        return False
    return True
