"""Training data and fitting of the article-body block model (``scripts/train_article_model.py``),
on the article benchmark's pages (:mod:`.article_data`); the model itself is :mod:`wps.article_body`.

Every candidate block of a page (:mod:`wps.article_body.blocks`) is labelled by how much of its text
lies in the page's gold article body (share of its 4-word shingles found there, >= 0.5: body). A
block weighs its share of the page's words, so each page counts the same, as in the benchmark's
metric. Needs scikit-learn (the ``ml`` extra); the packaged model itself does not.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from ..article_body.blocks import FEATURES, PageRuns, block_features, extract_runs
from ..article_body.body import choose_blocks
from ..article_body.model import BlockModel
from .article_data import (
    load_benchmark,
    read_html,
    score_predictions,
    shingles,
    tokens,
    without_scripts,
)

__all__ = ["THRESHOLD", "PARAMS", "SEED", "block_label", "page_rows", "fit", "fit_block_model",
           "predict", "texts_at", "split", "score_predictions"]

THRESHOLD = 0.5
"""Probability at or above which a block is body text (fixed, not tuned)."""
PARAMS = {"n_estimators": 150, "max_depth": 3, "learning_rate": 0.08, "subsample": 0.8,
          "min_samples_leaf": 20, "random_state": 0}
SEED = 14


def block_label(text: str, gold_shingles: Any, gold_joined: str) -> float:
    """Share of a block's 4-word shingles in the gold body (whole-sequence test below 4 words)."""
    words = tokens(text)
    if not words:
        return 0.0
    if len(words) < 4:
        return 1.0 if " " + " ".join(words) + " " in gold_joined else 0.0
    found = shingles(text)
    return sum(min(count, gold_shingles[key]) for key, count in found.items()) / \
        sum(found.values())


def page_rows(data: Path, cache: Path, store: Path | None) -> dict[str, dict[str, Any]]:
    """Per page: blocks' texts, features, labels and weights (cached in ``store``)."""
    if store is not None and store.is_file():
        return json.loads(store.read_text(encoding="utf-8"))
    truth, files = load_benchmark(data)
    pages: dict[str, dict[str, Any]] = {}
    for key in truth:
        dom = cache / key / "dom.html"
        html = dom.read_text(encoding="utf-8") if dom.is_file() \
            else without_scripts(read_html(files[key]))
        runs: PageRuns = extract_runs(html)
        gold = truth[key].get("articleBody") or ""
        gold_shingles = shingles(gold)
        gold_joined = " " + " ".join(tokens(gold)) + " "
        counts = [max(1, len(b.tokens)) for b in runs.blocks]
        total = sum(counts) or 1
        pages[key] = {
            "texts": [b.text for b in runs.blocks],
            "X": block_features(runs),
            "y": [block_label(b.text, gold_shingles, gold_joined) >= 0.5 for b in runs.blocks],
            "w": [c / total for c in counts],
            "n": [len(b.tokens) for b in runs.blocks],
        }
    if store is not None:
        store.parent.mkdir(parents=True, exist_ok=True)
        store.write_text(json.dumps(pages), encoding="utf-8")
    return pages


def fit(pages: dict[str, dict[str, Any]], keys: list[str]) -> Any:
    """A gradient-boosted tree model fitted on the blocks of ``keys`` (scikit-learn)."""
    from sklearn.ensemble import GradientBoostingClassifier

    X = [row for key in keys for row in pages[key]["X"]]
    y = [label for key in keys for label in pages[key]["y"]]
    w = [weight for key in keys for weight in pages[key]["w"]]
    model = GradientBoostingClassifier(**PARAMS)
    model.fit(X, y, sample_weight=w)
    return model


def fit_block_model(pages: dict[str, dict[str, Any]], keys: list[str],
                    meta: dict[str, Any] | None = None) -> BlockModel:
    """:func:`fit`, as the packaged model type."""
    return BlockModel.from_sklearn(fit(pages, keys), FEATURES, THRESHOLD, meta)


def predict(model: Any, pages: dict[str, dict[str, Any]], keys: list[str],
            ) -> dict[str, list[float]]:
    out = {}
    for key in keys:
        X = pages[key]["X"]
        out[key] = model.predict_proba(X)[:, 1].tolist() if X else []
    return out


def texts_at(pages: dict[str, dict[str, Any]], probabilities: dict[str, list[float]],
             threshold: float) -> dict[str, dict[str, str]]:
    """Each page's body as the packaged decision takes it (wps.article_body.body.choose_blocks)."""
    out = {}
    for key, probs in probabilities.items():
        page = pages[key]
        chosen, _ = choose_blocks(page["X"], probs, page["n"], threshold)
        out[key] = {"articleBody": "\n".join(page["texts"][i] for i in chosen)}
    return out


def split(keys: list[str], folds: int, seed: int) -> list[tuple[list[str], list[str]]]:
    """``folds`` (training pages, held-out pages) pairs: the sorted ids shuffled by ``seed``,
    dealt round-robin."""
    order = sorted(keys)
    random.Random(seed).shuffle(order)
    parts = [order[i::folds] for i in range(folds)]
    return [([k for j, part in enumerate(parts) if j != i for k in part], sorted(parts[i]))
            for i in range(folds)]
