"""``wps report DIR``: rebuild ``report.html`` of a ``wps segment --out`` or ``wps batch`` folder."""

from __future__ import annotations

import argparse
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "report",
        help="rebuild report.html of a wps segment --out folder or a wps batch folder",
        description="Write DIR/report.html again from the files in DIR: for a page output folder "
        "the page's report (screenshot with every segment outlined by its decision, texts, "
        "statistics and reasons); for a batch folder every page's report and the batch's "
        "(one row per page, totals, drop reasons). Prints the path of the report.",
    )
    parser.add_argument("folder", type=Path, metavar="DIR",
                        help="output folder of wps segment --out or of wps batch --out")
    parser.add_argument("--embed-screenshot", action="store_true",
                        help="put each page's saved screenshot (capture/) into its report.html "
                        "(base64, WebP/JPEG if large): one file that opens anywhere")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..errors import InputFileError
    from ..report.batch import is_batch_folder, write_batch_report
    from ..report.folders import is_page_folder, write_page_report

    folder: Path = args.folder
    if not folder.is_dir():
        raise InputFileError(f"{folder}: no such folder" if not folder.exists()
                             else f"{folder}: not a folder")
    if is_page_folder(folder):
        path = write_page_report(folder, args.embed_screenshot)
    elif is_batch_folder(folder):
        path = write_batch_report(folder, rebuild_pages=True,
                                  embed_screenshot=args.embed_screenshot)
    else:
        raise InputFileError(f"{folder}: not a wps segment or wps batch output folder "
                             "(no segments.jsonl and segmentation.json, no summary.json)")
    print(path)
    return 0
