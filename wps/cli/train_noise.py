"""``wps train-noise LABELLED.jsonl --out MODEL_DIR``: train the noise-sentence classifier."""

from __future__ import annotations

import argparse
from pathlib import Path

from . import say


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "train-noise",
        help="train the noise-sentence classifier used to cut boilerplate tails",
        description='Train TF-IDF (word 1-2-grams) + MLP on JSONL lines {"text": ..., "label":'
        ' 1|0|"noise"|"content"} and save a model folder.',
    )
    parser.add_argument("training", type=Path, help="labelled JSONL file")
    parser.add_argument("--out", required=True, type=Path, help="model folder to write")
    parser.add_argument("--hidden-units", type=int, default=128, help="MLP hidden layer size")
    parser.add_argument("--max-iterations", type=int, default=200, help="MLP training epochs")
    parser.add_argument("--seed", type=int, default=0, help="random seed")
    parser.add_argument(
        "--held-out",
        type=float,
        default=0.2,
        help="fraction scored before the final fit (0 disables)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..errors import UsageError
    from ..files import check_replaceable_folder
    from ..noise_tail import NoiseClassifier, load_labelled_jsonl

    if args.hidden_units < 1 or args.max_iterations < 1:
        raise UsageError("--hidden-units and --max-iterations must be positive")
    check_replaceable_folder(args.out, "metadata.json", "noise model folder")  # before training
    texts, labels = load_labelled_jsonl(args.training)
    classifier, report = NoiseClassifier.train(
        texts,
        labels,
        hidden_units=args.hidden_units,
        max_iterations=args.max_iterations,
        seed=args.seed,
        held_out_fraction=args.held_out,
    )
    classifier.save(args.out)
    scores = ", ".join(f"{name} {value:.3f}" for name, value in report.scores.items())
    say(
        f"wps train-noise: {report.examples} chunks ({report.noise_examples} noise) -> {args.out}"
        + (f"; held-out {report.held_out}: {scores}" if scores else ""))
    return 0
