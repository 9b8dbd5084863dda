"""``wps agreement``: pairwise BCubed agreement of annotations (calculate-agreement.R)."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..files import write_text_atomic


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "agreement", help="pairwise BCubed precision matrices and averaged agreement",
        description="Prints the averaged agreement (mean pairwise F1 and max(P,R)) per size "
        "function and the precision matrices ([i,j]: i as algorithm, j as truth).",
    )
    parser.add_argument("--input", type=Path, required=True, help="segmentations JSON")
    parser.add_argument("--segmentations", default=".*", metavar="REGEX",
                        help="names of the segmentations to compare")
    parser.add_argument("--resources-dir", type=Path, default=None,
                        help="folder with nodes.csv and edge PNGs (default: the input's folder)")
    parser.add_argument("--output", type=Path, default=None,
                        help="also write <type>.txt matrices and averaged-agreement.txt here")
    parser.add_argument("--precision", type=float, default=1.0,
                        help="coordinate precision (R's --precision)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..evaluation import agreement, read_segmentations
    from ..evaluation.agreement import AGREEMENT_FILE_NAMES
    from ..files import check_output_folder

    if args.output is not None:  # an impossible output fails before the computation
        check_output_folder(args.output)
    result = agreement(
        read_segmentations(args.input), pattern=args.segmentations,
        resources_dir=args.resources_dir, precision=args.precision,
    )
    print(result.averaged_table(), end="")
    for name in result.matrices:
        print(f"# {AGREEMENT_FILE_NAMES[name]}.txt")
        print(result.matrix_text(name), end="")
    if args.output is not None:
        files = {f"{AGREEMENT_FILE_NAMES[n]}.txt": result.matrix_text(n) for n in result.matrices}
        files["averaged-agreement.txt"] = result.averaged_table()
        for file_name, text in files.items():
            write_text_atomic(args.output / file_name, text)
    return 0

