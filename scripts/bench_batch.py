"""Benchmark ``wps batch``: pages per minute on the article benchmark's local pages, per engine.

Usage: .venv/bin/python scripts/bench_batch.py [--pages 121] [--configs local-1,local-2,ray-2,local-4x1]
       [--profile] [--out out/bench-batch] [-- EXTRA wps batch OPTIONS]

Each configuration runs ``wps batch`` as its own process on the same pages (the 121 ``.html.gz``
files of ../shared/article-extraction-benchmark, read in place, or the first ``--pages``), with
the default segmenter and outputs, into a fresh folder. Reported per configuration: pages per
minute (pages done over the command's wall time, start-up included), CPU seconds per page (user
+ system of the whole process tree: the kernel's accounting of reaped children, or the sum of
/proc samples by process kind when that is larger, as Chromium's renderers are not always
reaped into it; by kind: python, the Playwright driver, Chromium, Ray), the load average before
and after (the machine is shared: compare CPU seconds too, not only wall time), peak memory of
the whole process tree (PSS: the driver, its workers, Chromium, Ray's servers) and the render
stages averaged over the pages (from summary.json). ``--profile`` also runs the local engine
with one worker in this process under cProfile (one page at a time: cProfile sees only its own
thread) and splits its time into capture, segmentation, text, filters, output and the renderer
memory watcher. Target: >= 60 pages/min on a 2-core machine. Results are printed and written
to ``OUT/results.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGES = ROOT.parent / "shared" / "article-extraction-benchmark" / "html"
CONFIGS = {
    "local-1": ["--engine", "local", "--workers", "1"],
    "local-2": ["--engine", "local", "--workers", "2"],
    "ray-2": ["--engine", "ray", "--renderers", "2"],
    # Two workers a core, each with one page in flight: what this machine does best (local
    # pages reuse their tab, so a worker's Chromium costs little to keep busy).
    "local-4x1": ["--engine", "local", "--workers", "4", "--pages-per-browser", "1"],
}
PROFILED = {
    "capture (Chromium: navigate, settle, scroll, DOM walk, screenshot)":
        "wps.capture.browser:Browser.capture",
    "  renderer memory watcher (/proc scans)": "wps.capture.processes:renderer_memory",
    "segmentation": "wps.steps:SegmentStep.run",
    "  Canny box tightening (screenshot decode + edges)":
        "wps.segmenters.dom_cohesion._canny:tighten_boxes",
    "main text (trafilatura + alignment)": "wps.steps:MainTextStep.run",
    "filters": "wps.steps:FilterStep.run",
    "prose decision": "wps.decide:DecideStep.run",
    "output (all files)": "wps.output:write_page_outputs",
    "  overlay.png (draw + PNG encode)": "wps.output:draw_overlay",
    "  capture/ save (capture.json, dom.html, screenshot copy)": "wps.model:PageCapture.save",
}
"""Stages of the profile: label -> ``module:qualified name`` of the function that is the stage."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=None, help="only the first N pages")
    parser.add_argument("--configs", default=",".join(CONFIGS))
    parser.add_argument("--profile", action="store_true",
                        help="also split the time of a local one-worker run by stage (cProfile)")
    parser.add_argument("--out", type=Path, default=ROOT / "out" / "bench-batch")
    parser.add_argument("extra", nargs="*", help="more wps batch options (after --)")
    args = parser.parse_args()
    files = sorted(PAGES.glob("*.html.gz"))[:args.pages]
    if not files:
        sys.exit(f"bench_batch: no pages in {PAGES}")
    args.out.mkdir(parents=True, exist_ok=True)
    listing = args.out / "pages.txt"
    listing.write_text("".join(f"{file}\n" for file in files), encoding="utf-8")
    results = {"pages": len(files), "cpus": os.cpu_count(),
               "load_before": os.getloadavg()[0], "extra": args.extra, "runs": {}}
    for name in args.configs.split(","):
        results["runs"][name] = run_config(name, listing, args.out / name, args.extra)
        print(_line(name, results["runs"][name]), flush=True)
    if args.profile:
        results["profile"] = profile_local(listing, args.out / "profile", args.extra)
        for stage, seconds in results["profile"]["seconds_per_page"].items():
            print(f"  {stage:<68} {seconds:6.2f} s/page")
    (args.out / "results.json").write_text(json.dumps(results, indent=1))


def run_config(name: str, listing: Path, out: Path, extra: list[str]) -> dict[str, object]:
    shutil.rmtree(out, ignore_errors=True)
    command = [sys.executable, "-m", "wps", "batch", str(listing), "--out", str(out),
               "--no-progress", *CONFIGS[name], *extra]
    load_before = os.getloadavg()[0]
    cpu_before = _children_cpu()
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True)
    peak = PeakMemory(process.pid)
    peak.start()
    _, err = process.communicate()
    wall = time.perf_counter() - started
    peak.stop()
    cpu = max(_children_cpu() - cpu_before, sum(peak.cpu_by_kind().values()))
    summary = json.loads((out / "summary.json").read_text()) if (out / "summary.json").exists() \
        else {}
    done = summary.get("done", 0)
    return {"command": " ".join(command), "exit_code": process.returncode, "wall_s": round(wall, 1),
            "done": done, "failed": summary.get("failed"),
            "pages_per_min": round(60 * done / wall, 1),
            "cpu_s_per_page": round(cpu / max(done, 1), 2),
            "cpu_s_per_page_by_kind": {kind: round(seconds / max(done, 1), 2)
                                       for kind, seconds in sorted(peak.cpu_by_kind().items())},
            "load_before": round(load_before, 2), "load_after": round(os.getloadavg()[0], 2),
            "peak_pss_mb": round(peak.peak_mb),
            "stage_s_per_page": {stage: round(seconds / max(done, 1), 3)
                                 for stage, seconds in summary.get("stage_seconds", {}).items()},
            "failure_causes": summary.get("failure_causes"),
            "stderr_tail": err.strip().splitlines()[-3:]}


def profile_local(listing: Path, out: Path, extra: list[str]) -> dict[str, object]:
    """One local worker in this process under cProfile: cumulative seconds of each stage."""
    import cProfile
    import pstats

    from wps.cli import main as wps_main

    shutil.rmtree(out, ignore_errors=True)
    profiler = cProfile.Profile()
    started = time.perf_counter()
    profiler.runcall(wps_main, ["batch", str(listing), "--out", str(out), "--no-progress",
                                "--workers", "1", "--pages-per-browser", "1", *extra])
    wall = time.perf_counter() - started
    done = json.loads((out / "summary.json").read_text())["done"]
    stats = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    wanted = {_code_key(target): stage for stage, target in PROFILED.items()}
    cumulative: dict[str, float] = {}
    for key, (_, _, _, total, _) in stats.items():
        if key in wanted:
            cumulative[wanted[key]] = cumulative.get(wanted[key], 0.0) + total
    return {"wall_s": round(wall, 1), "done": done,
            "seconds_per_page": {stage: round(cumulative.get(stage, 0.0) / max(done, 1), 3)
                                 for stage in PROFILED}}


def _code_key(target: str) -> tuple[str, int, str]:
    """cProfile's key (file, first line, name) of ``module:qualified.name``."""
    import importlib

    module, _, name = target.partition(":")
    function = importlib.import_module(module)
    for part in name.split("."):
        function = getattr(function, part)
    code = function.__code__
    return code.co_filename, code.co_firstlineno, code.co_name


class PeakMemory(threading.Thread):
    """Samples the proportional set size (PSS) of a process and all its descendants, and the
    CPU time each of them used (last sample per process: a lower bound, by process kind)."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.peak_mb = 0.0
        self._cpu: dict[int, tuple[str, float]] = {}
        self._finished = threading.Event()

    def run(self) -> None:
        while not self._finished.wait(0.5):
            tree = _tree(self.pid)
            self.peak_mb = max(self.peak_mb, sum(map(_pss_kb, tree)) / 1024)
            for pid in tree:
                sample = _cpu_of(pid)
                if sample is not None:
                    self._cpu[pid] = sample

    def cpu_by_kind(self) -> dict[str, float]:
        kinds: dict[str, float] = {}
        for kind, seconds in self._cpu.values():
            kinds[kind] = kinds.get(kind, 0.0) + seconds
        return kinds

    def stop(self) -> None:
        self._finished.set()
        self.join()


def _tree(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parent = int(stat.rpartition(")")[2].split()[1])
            children.setdefault(parent, []).append(int(entry))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _cpu_of(pid: int) -> tuple[str, float] | None:
    """(kind, user + system seconds) of a live process."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None
    name = stat[stat.index("(") + 1:stat.rindex(")")]
    fields = stat.rpartition(")")[2].split()
    seconds = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    if b"chrom" in cmdline.split(b"\0")[0]:
        kind = "chromium"
    elif b"playwright" in cmdline or name == "node":
        kind = "playwright driver"
    elif b"ray" in cmdline:
        kind = "ray (servers, actors, tasks)"
    else:
        kind = "python"
    return kind, seconds


def _pss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _line(name: str, run: dict[str, object]) -> str:
    return (f"{name:8} {run['done']} pages done, {run['failed']} failed in {run['wall_s']} s: "
            f"{run['pages_per_min']} pages/min, {run['cpu_s_per_page']} CPU s/page "
            f"{run['cpu_s_per_page_by_kind']}, load {run['load_before']} -> "
            f"{run['load_after']}, peak {run['peak_pss_mb']} MB; per page "
            f"{run['stage_s_per_page']}")


if __name__ == "__main__":
    main()
