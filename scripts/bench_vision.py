#!/usr/bin/env python3
"""Speed and memory of the vision segmenters: ViT-B encoder per 1024² tile (fp32 and bf16
autocast), whole-page ``sam`` and ``websam`` on a synthetic 1366 × 5,000 page, peak memory.

Each part runs in a fresh process, so its peak resident memory (and on CUDA its peak allocated
memory) is its own. Without ``--sam-checkpoint`` a random ViT-B (``sam_model_registry["vit_b"]()``)
is saved to a temporary folder: random weights cost the same time as real ones, but the masks
(and so the post-processing time) differ. Example::

    .venv/bin/python scripts/bench_vision.py --out out/bench_vision.json
    .venv/bin/python scripts/bench_vision.py --device cuda --repeats 10
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PARTS = ("encoder", "sam-page", "websam-page")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="bench_vision.py", description=__doc__.split("\n")[0])
    parser.add_argument("--parts", default=",".join(PARTS), help=f"any of {','.join(PARTS)}")
    parser.add_argument("--sam-checkpoint", type=Path, help="SAM ViT-B checkpoint (default random)")
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--repeats", type=int, default=1, help="timed encoder passes (after one "
                                                               "warm-up pass on CUDA)")
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    parser.add_argument("--width", type=int, default=1366)
    parser.add_argument("--height", type=int, default=5000)
    parser.add_argument("--points-per-side", type=int, default=32, help="sam (published: 32)")
    parser.add_argument("--out", type=Path, default=Path("out/bench_vision.json"))
    parser.add_argument("--part", help=argparse.SUPPRESS)  # run one part in this process
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.part:
        print(json.dumps(run_part(args)))
        return 0
    import torch

    results = {"device": args.device, "threads": args.threads or torch.get_num_threads(),
               "torch": torch.__version__, "page": [args.width, args.height],
               "points_per_side": args.points_per_side, "parts": {}}
    with tempfile.TemporaryDirectory(prefix="wps-bench-vision-") as scratch:
        checkpoint = args.sam_checkpoint or random_vit_b(Path(scratch))
        for part in [name.strip() for name in args.parts.split(",") if name.strip()]:
            if part not in PARTS:
                raise SystemExit(f"bench_vision.py: error: unknown part {part!r}")
            command = [sys.executable, __file__, "--part", part, "--sam-checkpoint",
                       str(checkpoint), "--device", args.device, "--repeats", str(args.repeats),
                       "--threads", str(args.threads), "--width", str(args.width), "--height",
                       str(args.height), "--points-per-side", str(args.points_per_side),
                       "--out", str(Path(scratch) / part)]
            done = subprocess.run(command, capture_output=True, text=True)
            if done.returncode != 0:
                raise SystemExit(f"bench_vision.py: error: part {part} failed:\n{done.stderr}")
            results["parts"][part] = json.loads(done.stdout.strip().splitlines()[-1])
            print(f"{part}: {json.dumps(results['parts'][part])}", file=sys.stderr)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    print(markdown(results))
    return 0


def random_vit_b(folder: Path) -> Path:
    """A random ViT-B in the official checkpoint format (a state dict saved with torch.save)."""
    import torch
    from segment_anything import sam_model_registry

    path = folder / "sam-vit-b-random.pth"
    torch.save(sam_model_registry["vit_b"]().state_dict(), path)
    return path


def run_part(args: argparse.Namespace) -> dict:
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    started = time.perf_counter()
    if args.part == "encoder":
        result = encoder_seconds(args)
    elif args.part == "sam-page":
        result = page_seconds(args, "sam")
    else:
        result = page_seconds(args, "websam")
    result["part_wall_s"] = round(time.perf_counter() - started, 2)
    result["peak_rss_mib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    if args.device == "cuda":
        result["peak_cuda_mib"] = round(torch.cuda.max_memory_allocated() / 2**20)
    return result


def _synchronise(device: str) -> None:
    import torch

    if device == "cuda":
        torch.cuda.synchronize()


def encoder_seconds(args: argparse.Namespace) -> dict:
    """Seconds of one ViT-B image-encoder pass on a 1024² input, fp32 and bf16 autocast."""
    import torch

    from wps.segmenters._vision.models import load_sam

    encoder = load_sam(args.sam_checkpoint, "vit_b", args.device).image_encoder
    image = torch.randn(1, 3, 1024, 1024, device=args.device)
    result = {}
    for name, dtype in (("fp32", None), ("bf16", torch.bfloat16)):
        autocast = torch.autocast(device_type=args.device, dtype=dtype, enabled=dtype is not None)
        with torch.inference_mode(), autocast:
            if args.device == "cuda":
                encoder(image)
            times = []
            for _ in range(max(1, args.repeats)):
                _synchronise(args.device)
                begin = time.perf_counter()
                encoder(image)
                _synchronise(args.device)
                times.append(time.perf_counter() - begin)
        result[f"encoder_{name}_s"] = round(min(times), 3)
        result[f"encoder_{name}_all_s"] = [round(t, 3) for t in times]
    return result


def synthetic_page(folder: Path, width: int, height: int):
    """A page-like screenshot (header, two columns of text blocks, footer) and its nodes."""
    import cv2
    import numpy as np

    from wps.model import Node, PageCapture

    rng = np.random.default_rng(0)
    image = np.full((height, width, 3), 255, dtype=np.uint8)
    nodes = [Node(0, None, "BODY", "/HTML[1]/BODY[1]", (0.0, 0.0, float(width), float(height)))]
    blocks = [(0, 0, width, 90)]
    top = 120
    while top < height - 300:
        block_height = int(rng.integers(180, 600))
        blocks += [(40, top, width * 2 // 3 - 20, top + block_height),
                   (width * 2 // 3 + 20, top, width - 40, top + block_height // 2)]
        top += block_height + 40
    blocks.append((0, height - 160, width, height))
    for left, top, right, bottom in blocks:
        colour = tuple(int(v) for v in rng.integers(200, 250, size=3))
        image[top:bottom, left:right] = colour
        block_id = len(nodes)
        nodes.append(Node(block_id, 0, "DIV", f"/HTML[1]/BODY[1]/DIV[{block_id}]",
                          (float(left), float(top), float(right), float(bottom))))
        for line_top in range(top + 16, bottom - 24, 28):
            line_right = int(right - rng.integers(10, max(11, (right - left) // 3)))
            image[line_top:line_top + 14, left + 16:line_right] = (50, 50, 50)
            nodes.append(Node(len(nodes), block_id, "#text",
                              f"/HTML[1]/BODY[1]/DIV[{block_id}]/text()[{len(nodes)}]",
                              (float(left + 16), float(line_top), float(line_right),
                               float(line_top + 14)), text="lorem ipsum"))
    folder.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(folder / "screenshot.png"), image[:, :, ::-1])
    return PageCapture(url="bench:synthetic", width=width, height=height, nodes=nodes,
                       page_id="synthetic", screenshot=folder / "screenshot.png")


def page_seconds(args: argparse.Namespace, name: str) -> dict:
    """Seconds of one whole-page segmentation (model loading excluded, reported apart)."""
    from wps.segmenters import build_segmenter
    from wps.segmenters._vision import tile_windows

    page = synthetic_page(args.out, args.width, args.height)
    if name == "sam":
        segmenter = build_segmenter("sam", checkpoint=str(args.sam_checkpoint),
                                    device=args.device, points_per_side=args.points_per_side)
        load = segmenter.generator
        extra = {"tiles": len(tile_windows(args.width, args.height, args.width, 0.25)),
                 "points_per_side": args.points_per_side}
    else:
        adapter = random_adapter(args.sam_checkpoint, args.out / "adapter.pt")
        segmenter = build_segmenter("websam", checkpoint=str(adapter),
                                    sam_checkpoint=str(args.sam_checkpoint), device=args.device)
        load = segmenter.model
        extra = {}
    begin = time.perf_counter()
    load()
    loaded = time.perf_counter() - begin
    begin = time.perf_counter()
    segmentation = segmenter.segment(page)
    _synchronise(args.device)
    return {f"{name}_page_s": round(time.perf_counter() - begin, 2),
            "load_s": round(loaded, 2), "segments": len(segmentation.segments), **extra}


def random_adapter(sam_checkpoint: Path, path: Path) -> Path:
    from wps.segmenters._vision.models import load_sam
    from wps.segmenters.websam.checkpoint import adapter_checkpoint, save_checkpoint
    from wps.segmenters.websam.modeling import WebSam

    model = WebSam(load_sam(sam_checkpoint, shared=False))
    return save_checkpoint(adapter_checkpoint(model, sam_checkpoint, {"step": 0}), path)


def markdown(results: dict) -> str:
    parts = results["parts"]
    lines = [f"device {results['device']}, {results['threads']} torch threads, torch "
             f"{results['torch']}, page {results['page'][0]} × {results['page'][1]}", "",
             "| measurement | seconds | peak RSS MiB |", "|---|---|---|"]
    if "encoder" in parts:
        part = parts["encoder"]
        lines += [f"| ViT-B encoder, 1024² tile, fp32 | {part['encoder_fp32_s']} | "
                  f"{part['peak_rss_mib']} |",
                  f"| ViT-B encoder, 1024² tile, bf16 autocast | {part['encoder_bf16_s']} | "
                  f"{part['peak_rss_mib']} |"]
    if "sam-page" in parts:
        part = parts["sam-page"]
        lines.append(f"| sam whole page ({part['tiles']} tiles, {part['points_per_side']}² "
                     f"points; load {part['load_s']} s) | {part['sam_page_s']} | "
                     f"{part['peak_rss_mib']} |")
    if "websam-page" in parts:
        part = parts["websam-page"]
        lines.append(f"| websam whole page (load {part['load_s']} s) | {part['websam_page_s']} | "
                     f"{part['peak_rss_mib']} |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
