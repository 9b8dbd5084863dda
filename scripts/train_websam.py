#!/usr/bin/env python3
"""Train the WebSAM adapter on Webis-WebSeg-20: a thin command line over
``wps.segmenters.websam.training``.

Example (fold 0 held out, the paper's 20 epochs)::

    .venv/bin/python scripts/train_websam.py --data webis-webseg-20/ \
        --sam-checkpoint sam_vit_b_01ec64.pth --out models/websam-fold0.pt \
        --folds-file webis-webseg-20-folds.txt --fold 0 --epochs 20

Rerunning the same command resumes from ``OUT.resume``; ``--fresh`` starts over.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="train_websam.py",
        description="Train the WebSAM adapter (BCE + IoU, AdamW, cosine decay) on page folders "
                    "with screenshot.png and ground-truth.json; writes only the trainable "
                    "weights and the SAM checkpoint's hash.")
    parser.add_argument("--data", type=Path, required=True,
                        help="webis-webseg-20/ folder, a folder holding it, or the zip parts")
    parser.add_argument("--sam-checkpoint", type=Path, required=True,
                        help="SAM ViT-B checkpoint (sam_vit_b_01ec64.pth), never downloaded")
    parser.add_argument("--out", type=Path, required=True, help="adapter checkpoint to write")
    parser.add_argument("--steps", type=int, help="optimizer steps (default: epochs × pages)")
    parser.add_argument("--epochs", type=int, default=20, help="epochs (default 20)")
    parser.add_argument("--folds", type=int, default=10, help="number of folds (default 10)")
    parser.add_argument("--fold", type=int, help="held-out fold K (default: train on all pages)")
    parser.add_argument("--folds-file", type=Path,
                        help="ECIR'21 webis-webseg-20-folds.txt ('<fold> <page-id>' lines); "
                             "without it, fold = crc32(page id) mod folds")
    parser.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    parser.add_argument("--precision", default="auto", choices=["auto", "bf16", "fp32"],
                        help="auto: bf16 autocast where the device supports it")
    parser.add_argument("--lr", type=float, default=2e-4, help="AdamW learning rate (2e-4)")
    parser.add_argument("--save-every", type=int, default=200, help="checkpoint every N steps")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--fresh", action="store_true", help="ignore OUT.resume, start over")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    return parser


def main(argv: list[str] | None = None) -> int:
    from wps.errors import UsageError, WpsError
    from wps.segmenters.websam.training import TrainOptions, train

    args = build_parser().parse_args(argv)
    try:
        if args.save_every < 1:
            raise UsageError(f"--save-every must be >= 1, got {args.save_every}")
        result = train(TrainOptions(
            data=args.data, sam_checkpoint=args.sam_checkpoint, out=args.out, steps=args.steps,
            epochs=args.epochs, folds=args.folds, fold=args.fold, folds_file=args.folds_file,
            device=args.device, precision=args.precision, learning_rate=args.lr,
            save_every=args.save_every, seed=args.seed, progress=not args.no_progress,
            fresh=args.fresh))
    except WpsError as err:
        if args.debug:
            raise
        print(f"train_websam.py: error: {err}", file=sys.stderr)
        return err.exit_code
    except KeyboardInterrupt:
        print("train_websam.py: interrupted; rerun the same command to resume", file=sys.stderr)
        return 130
    last = f", last loss {result.losses[-1]:.4f}" if result.losses else ""
    print(f"{result.out}: {result.steps} steps on {result.pages} pages{last}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
