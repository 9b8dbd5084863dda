"""``wps flatten``: make overlapping or nested segments disjoint (flatten-segmentations.R)."""

from __future__ import annotations

import argparse
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "flatten", help="replace each segmentation by its planar overlay with itself",
        description="Every piece of the overlay of a segmentation's segments becomes one "
        "segment, so nested or overlapping segments become disjoint.",
    )
    parser.add_argument("--input", type=Path, required=True, help="segmentation JSON")
    parser.add_argument("--output", type=Path, required=True, help="flattened segmentation JSON")
    parser.add_argument("--precision", type=float, default=1.0,
                        help="coordinate precision (R's --precision)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..evaluation import flatten_segmentations, read_segmentations, write_segmentations

    flattened = flatten_segmentations(read_segmentations(args.input), precision=args.precision)
    write_segmentations(flattened, args.output)
    return 0
