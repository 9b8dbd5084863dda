"""``wps fit``: fit segments to DOM nodes (fit-segmentations-to-dom-nodes.R)."""

from __future__ import annotations

import argparse
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "fit", help="fit Webis segmentations to the page's DOM node rectangles",
        description="Each segment becomes the union of the node rectangles lying at least the "
        "containment threshold inside it; empty and duplicate segments are removed and names "
        "get '.fitted'.",
    )
    parser.add_argument("--input", type=Path, required=True, help="segmentation JSON")
    parser.add_argument("--output", type=Path, required=True, help="fitted segmentation JSON")
    parser.add_argument("--nodes", type=Path, default=None,
                        help="nodes.csv (default: the one next to the input)")
    parser.add_argument("--segmentations", default=".*", metavar="REGEX",
                        help="names of the segmentations to fit")
    parser.add_argument("--fit-containment-threshold", type=float, default=0.75,
                        help="share of a node's area inside a segment for it to count (0..1)")
    parser.add_argument("--tolerance", type=float, default=0.0,
                        help="simplification tolerance of the fitted segments (R's --tolerance)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..evaluation import fit_segmentations, read_segmentations, write_segmentations

    segmentations = read_segmentations(args.input)
    nodes = args.nodes or args.input.parent / "nodes.csv"
    fitted = fit_segmentations(
        segmentations, nodes, pattern=args.segmentations,
        containment_threshold=args.fit_containment_threshold, tolerance=args.tolerance,
    )
    write_segmentations(fitted, args.output)
    return 0
