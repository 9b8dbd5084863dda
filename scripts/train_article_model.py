#!/usr/bin/env python
"""Train and cross-validate the article-body block model (wps/article_body/block-model.json).

Usage: scripts/train_article_model.py --data DIR [--cache DIR] [--folds 5] [--write MODEL]
       [--report JSON]

Every candidate block of a page (wps.article_body.blocks) is labelled by how much of its text lies in
the page's gold article body (share of its 4-word shingles found there, >= 0.5: body). A block
weighs its share of the page's words, so each page counts the same, as in the benchmark's metric.
K-fold over pages (seeded): the model is fitted on the training folds' pages only, the held-out
fold's pages are predicted (threshold fixed at 0.5, with the packaged fallback to the default
run, wps.article_body.body) and scored with the benchmark's metric; the figures printed per fold and
pooled are held-out ones. ``--write`` then fits the model on all pages and writes it with the
held-out figures.
Pages are read from the benchmark's HTML rendered by Chromium (the cached captures' dom.html,
.wps-cache/articles-nojs) when present, else from the file HTML with its scripts removed.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from wps.article_body.blocks import FEATURES
from wps.benchmark.article_training import (PARAMS, SEED, THRESHOLD, fit, fit_block_model, page_rows,
                               predict, score_predictions, split, texts_at)
from wps.benchmark.articles import load_benchmark

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--cache", type=Path, default=Path(".wps-cache/articles-nojs"))
    parser.add_argument("--store", type=Path, default=Path("out/article-model/blocks.json"),
                        help="cache of the computed block features")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=SEED, help="seed of the page folds")
    parser.add_argument("--write", type=Path, default=None, help="fit on all pages, write here")
    parser.add_argument("--report", type=Path, default=None, help="held-out figures as JSON")
    parser.add_argument("--predictions", type=Path, default=None,
                        help="held-out predictions in the benchmark's format")
    args = parser.parse_args(argv)
    truth, _ = load_benchmark(args.data)
    pages = page_rows(args.data, args.cache, args.store)
    keys = sorted(truth)
    held_out: dict[str, list[float]] = {}
    per_fold = []
    for number, (train, test) in enumerate(split(keys, args.folds, args.seed)):
        probabilities = predict(fit(pages, train), pages, test)
        held_out.update(probabilities)
        score = score_predictions({k: truth[k] for k in test},
                                  texts_at(pages, probabilities, THRESHOLD))
        per_fold.append({"fold": number, "pages_held_out": [k[:8] for k in test],
                         **score.to_json()})
        print(json.dumps({k: v for k, v in per_fold[-1].items() if k != "pages_held_out"}),
              flush=True)
    predictions = texts_at(pages, held_out, THRESHOLD)
    overall = score_predictions(truth, predictions).to_json()
    if args.predictions:
        args.predictions.parent.mkdir(parents=True, exist_ok=True)
        args.predictions.write_text(json.dumps(predictions, ensure_ascii=False), encoding="utf-8")
    mean = {name: round(sum(f[name] for f in per_fold) / len(per_fold), 4)
            for name in ("precision", "recall", "f1")}
    report = {"folds": per_fold, "held_out_pooled": overall, "fold_mean": mean,
              "params": PARAMS, "threshold": THRESHOLD, "seed": args.seed,
              "features": list(FEATURES)}
    print(json.dumps({"held_out_pooled": overall, "fold_mean": mean}))
    if args.report:
        args.report.parent.mkdir(parents=True, exist_ok=True)
        args.report.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    if args.write:
        model = fit_block_model(pages, keys, meta={
            "trained_on": f"{len(keys)} pages of the article-extraction benchmark",
            "held_out": {"pooled": overall, "fold_mean": mean}, "params": PARAMS,
            "script": "scripts/train_article_model.py"})
        args.write.write_text(json.dumps(model.to_json(), separators=(",", ":")) + "\n",
                              encoding="utf-8")
        print(f"wrote {args.write} (threshold {THRESHOLD})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
