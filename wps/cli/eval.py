"""``wps eval``: Extended BCubed of an algorithm segmentation against a Webis ground truth."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ..errors import UsageError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "eval",
        help="score a segmentation against Webis-WebSeg-20 ground truth (BCubed P/R/F1)",
        description="Extended BCubed precision, recall and F1 exactly as the reference R code "
        "(evaluate-segmentation.R). The ground truth's folder must hold nodes.csv, "
        "nodes-texts.csv and the edge PNGs (or give --resources-dir).",
    )
    parser.add_argument("algorithm", type=Path, nargs="?", default=None,
                        help="algorithm segmentation JSON (or --algorithm)")
    parser.add_argument("--algorithm", dest="algorithm_option", type=Path, default=None,
                        metavar="ALGORITHM", help="the same, as the R script takes it")
    parser.add_argument("--ground-truth", type=Path, required=True, help="ground-truth JSON")
    parser.add_argument("--algorithm-segmentation", default=".*", metavar="REGEX",
                        help="selects exactly one segmentation of the algorithm file")
    parser.add_argument("--ground-truth-segmentation", default=".*", metavar="REGEX",
                        help="selects exactly one segmentation of the ground-truth file")
    parser.add_argument("--size-functions", "--size-function", dest="size_functions",
                        default="pixels,edges-fine,edges-coarse,nodes,chars",
                        help="comma-separated: pixels, edges-fine, edges-coarse, nodes, chars "
                        "(aliases area, identity, ncharacters)")
    parser.add_argument("--format", choices=("json", "csv"), default="json",
                        help="json object or the R script's CSV table")
    parser.add_argument("--default-segmentation", action="store_true",
                        help="score an empty segmentation as one full-page segment")
    parser.add_argument("--resources-dir", type=Path, default=None,
                        help="folder with nodes.csv etc. (default: the ground truth's folder)")
    parser.add_argument("--precision", type=float, default=1.0,
                        help="coordinate precision of the pixel types (R's --precision)")
    parser.add_argument("--output", type=Path, default=None,
                        help="also write the result to this file (R's --output)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..evaluation import evaluate
    from ..files import prepare_output_file, write_text_atomic

    if (args.algorithm is None) == (args.algorithm_option is None):
        raise UsageError("give the algorithm segmentation JSON either as the positional "
                         "argument or as --algorithm")
    functions = [name.strip() for name in args.size_functions.split(",") if name.strip()]
    if not functions:
        raise UsageError("--size-functions: no size function given")
    if args.output is not None:  # an impossible output fails before the scoring
        prepare_output_file(args.output)
    result = evaluate(
        args.algorithm or args.algorithm_option,
        args.ground_truth,
        algorithm_segmentation=args.algorithm_segmentation,
        ground_truth_segmentation=args.ground_truth_segmentation,
        size_functions=functions,
        default_segmentation=args.default_segmentation,
        resources_dir=args.resources_dir,
        precision=args.precision,
    )
    if args.format == "csv":
        text = result.to_csv()
    else:
        text = json.dumps(result.to_json(), allow_nan=False) + "\n"
    if args.output is not None:
        write_text_atomic(args.output, text)
    print(text, end="")
    return 0
