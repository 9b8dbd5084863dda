"""Two tiny random causal LMs sharing a locally built word-level tokenizer (no download)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tiny_lm import build_model, build_tokenizer


@pytest.fixture(scope="session")
def tiny_models(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    root = tmp_path_factory.mktemp("binoculars-models")
    observer, performer = root / "observer", root / "performer"
    for folder, seed in ((observer, 1), (performer, 2)):
        tokenizer = build_tokenizer(folder)
        build_model(folder, seed, len(tokenizer))
    return observer, performer


@pytest.fixture(scope="session")
def scorer(tiny_models: tuple[Path, Path]):
    from wps.detector import BinocularsScorer

    observer, performer = tiny_models
    return BinocularsScorer(observer, performer, device="cpu", batch_size=3)
