"""``wps fuse``: fuse several segmentations into one ground truth (fuse-segmentations.R)."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..errors import UsageError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "fuse", help="fuse annotations into one segmentation (area-weighted average linkage)",
        description="Regions covered by at least --segments-min-annotators annotators are "
        "clustered by annotator disagreement and cut at --disagreement-threshold; writes one "
        "segmentation 'disagreement<threshold>' per threshold.",
    )
    parser.add_argument("--input", type=Path, required=True, help="fitted segmentations JSON")
    parser.add_argument("--output", type=Path, required=True, help="fused segmentation JSON")
    parser.add_argument("--segmentations", default=".*", metavar="REGEX",
                        help="names of the annotators' segmentations to fuse")
    parser.add_argument("--segments-min-annotators", type=int, default=3,
                        help="keep only regions drawn by at least this many annotators")
    parser.add_argument("--disagreement-threshold", default="0.5",
                        help="threshold or comma-separated thresholds (default 0.5)")
    parser.add_argument("--size-function", default="pixels",
                        help="pixels (area), edges-fine, edges-coarse, nodes or chars")
    parser.add_argument("--resources-dir", type=Path, default=None,
                        help="folder with nodes.csv and edge PNGs (default: the input's folder)")
    parser.add_argument("--precision", type=float, default=1.0,
                        help="coordinate precision (R's --precision)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..evaluation import fuse_segmentations, read_segmentations, write_segmentations

    try:
        thresholds = [float(v) for v in args.disagreement_threshold.split(",") if v.strip()]
    except ValueError:
        raise UsageError(
            f"--disagreement-threshold: not a number list: {args.disagreement_threshold!r}"
        ) from None
    fused = fuse_segmentations(
        read_segmentations(args.input),
        pattern=args.segmentations,
        min_annotators=args.segments_min_annotators,
        disagreement_thresholds=thresholds,
        size_function=args.size_function,
        resources_dir=args.resources_dir,
        precision=args.precision,
    )
    write_segmentations(fused, args.output)
    return 0
