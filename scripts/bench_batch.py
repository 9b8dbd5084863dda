"""Benchmark ``wps batch``: pages per minute on the article benchmark's local pages, per engine.

Usage: .venv/bin/python scripts/bench_batch.py [--pages 121] [--configs local-1,local-2,ray-2,local-4x1]
       [--hosts 4] [--code DIR,DIR] [--bare] [--one-browser] [--profile] [--out out/bench-batch]
       [-- EXTRA wps batch OPTIONS]

``url-*`` configurations batch the same pages as URLs, served by this script from ``--hosts``
addresses 127.0.0.1, 127.0.0.2, ... (one server each; the list takes the hosts in turn), with
``--allow-private --same-origin`` (nothing leaves the machine). ``--code`` runs every
configuration once with each code tree (``PYTHONPATH``), interleaved: before/after in one run.
``--bare`` adds the reference row: one Chromium, one reused page, ``goto`` + ``content()`` +
``trafilatura.extract`` per page (files decompressed beforehand; Chromium's traffic goes to a
closed proxy port, so a saved page's web requests fail at once), in a process of its own.
``--one-browser`` adds the capture alone, files and URLs: one wps ``Browser`` rendering the pages
one after another, in a process of its own per code tree (the cost of a page to Chromium, the
driver and the capture, without the pool or the steps after capture).

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
import contextlib
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
    "local-defaults": [],
    "url-defaults": [],
    "url-4x1": ["--workers", "4", "--pages-per-browser", "1"],
}
URL_OPTIONS = ["--allow-private", "--same-origin"]
"""What every ``url-*`` configuration adds: the pages are on 127.x, and their web requests stay
on their own origin (the benchmark never reaches the sites they were saved from)."""
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
    parser.add_argument("--hosts", type=int, default=4, help="127.x addresses of url-* runs")
    parser.add_argument("--code", default=str(ROOT),
                        help="code trees (comma-separated) to run each configuration with")
    parser.add_argument("--bare", action="store_true", help="add the bare-loop reference row")
    parser.add_argument("--one-browser", action="store_true",
                        help="add rows for the capture alone: one wps Browser, page after page, "
                             "files then URLs, with each code tree")
    parser.add_argument("--bare-child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--one-browser-child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("extra", nargs="*", help="more wps batch options (after --)")
    args = parser.parse_args()
    if args.bare_child:
        return bare_loop(args.bare_child, args.out)
    if args.one_browser_child:
        return one_browser(args.one_browser_child, args.out)
    files = sorted(PAGES.glob("*.html.gz"))[:args.pages]
    if not files:
        sys.exit(f"bench_batch: no pages in {PAGES}")
    args.out.mkdir(parents=True, exist_ok=True)
    listing = args.out / "pages.txt"
    listing.write_text("".join(f"{file}\n" for file in files), encoding="utf-8")
    codes = [Path(code).resolve() for code in args.code.split(",")]
    results = {"pages": len(files), "cpus": os.cpu_count(), "uptime": _uptime(),
               "load_before": os.getloadavg()[0], "extra": args.extra, "runs": {}}
    with PageServers(files, args.hosts) as servers:
        urls = args.out / "urls.txt"
        urls.write_text("".join(f"{url}\n" for url in servers.urls), encoding="utf-8")
        for name in filter(None, args.configs.split(",")):
            for code in codes:
                label = name if len(codes) == 1 else f"{name}@{code.name}"
                is_url = name.startswith("url-")
                results["runs"][label] = run_config(
                    name, urls if is_url else listing, args.out / label,
                    [*URL_OPTIONS, *args.extra] if is_url else args.extra, code)
                print(_line(label, results["runs"][label]), flush=True)
        for kind, pages in (("files", listing), ("urls", urls)) if args.one_browser else ():
            for code in codes:
                label = f"one-browser-{kind}" + ("" if len(codes) == 1 else f"@{code.name}")
                results["runs"][label] = run_one_browser(pages, args.out / label, code)
                print(_line(label, results["runs"][label]), flush=True)
    if args.bare:
        results["runs"]["bare-loop"] = run_bare(files, args.out / "bare-loop")
        print(_line("bare-loop", results["runs"]["bare-loop"]), flush=True)
    results["uptime_after"] = _uptime()
    if args.profile:
        results["profile"] = profile_local(listing, args.out / "profile", args.extra)
        for stage, seconds in results["profile"]["seconds_per_page"].items():
            print(f"  {stage:<68} {seconds:6.2f} s/page")
    (args.out / "results.json").write_text(json.dumps(results, indent=1))


def run_config(name: str, listing: Path, out: Path, extra: list[str],
               code: Path = ROOT) -> dict[str, object]:
    shutil.rmtree(out, ignore_errors=True)
    command = [sys.executable, "-m", "wps", "batch", str(listing), "--out", str(out),
               "--no-progress", *CONFIGS[name], *extra]
    return {"code": str(code), **measure(command, out, _code_env(code))}


def run_bare(files: list[Path], out: Path) -> dict[str, object]:
    """The bare loop over ``files`` (decompressed first, outside the measure) in a process of
    its own, measured as a batch is."""
    import gzip

    shutil.rmtree(out, ignore_errors=True)
    (out / "pages").mkdir(parents=True)
    listing = out / "pages.txt"
    pages = []
    for file in files:
        page = out / "pages" / file.name.removesuffix(".gz")
        page.write_bytes(gzip.decompress(file.read_bytes()))
        pages.append(page)
    listing.write_text("".join(f"{page}\n" for page in pages), encoding="utf-8")
    command = [sys.executable, str(Path(__file__).resolve()), "--bare-child", str(listing),
               "--out", str(out)]
    return measure(command, out, _code_env(ROOT))


def run_one_browser(listing: Path, out: Path, code: Path) -> dict[str, object]:
    """The capture alone of the pages of ``listing`` (files, or URLs as ``url-*`` runs take them)
    in a process of its own, measured as a batch is."""
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    command = [sys.executable, str(Path(__file__).resolve()), "--one-browser-child", str(listing),
               "--out", str(out)]
    return {"code": str(code), **measure(command, out, _code_env(code))}


def one_browser(listing: Path, out: Path) -> None:
    """One wps :class:`~wps.capture.Browser` capturing each page in turn with the batch's
    capture defaults (no screenshot, as the default segmenter needs none; ``--allow-private
    --same-origin`` for URLs); writes ``OUT/summary.json``."""
    from dataclasses import replace

    from wps.capture import Browser, CaptureOptions, discard_screenshot
    from wps.errors import WpsError

    done = failed = 0
    options = replace(CaptureOptions(), allow_private=True, same_origin=True, screenshot=False)
    with Browser(options) as browser:
        for line in listing.read_text(encoding="utf-8").splitlines():
            try:
                discard_screenshot(browser.capture(line).screenshot)
                done += 1
            except WpsError:
                failed += 1
    (out / "summary.json").write_text(json.dumps({"done": done, "failed": failed}))


def bare_loop(listing: Path, out: Path) -> None:
    """One Chromium, one page reused for every file: ``goto`` (until ``load``), ``content()``,
    ``trafilatura.extract``; writes ``OUT/summary.json`` with the pages done and failed."""
    import trafilatura
    from playwright.sync_api import Error, sync_playwright

    from wps.capture import find_chromium

    done = failed = 0
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=find_chromium(None), headless=True,
            args=["--no-sandbox", "--disable-gpu", "--proxy-server=http://127.0.0.1:9",
                  "--proxy-bypass-list=<-loopback>", "--host-resolver-rules=MAP * ~NOTFOUND",
                  "--force-webrtc-ip-handling-policy=disable_non_proxied_udp"])
        page = browser.new_page()
        for line in listing.read_text(encoding="utf-8").splitlines():
            try:
                page.goto(Path(line).as_uri(), wait_until="load", timeout=30_000)
                trafilatura.extract(page.content())
                done += 1
            except Error:
                failed += 1
        browser.close()
    (out / "summary.json").write_text(json.dumps({"done": done, "failed": failed}))


def _code_env(code: Path) -> dict[str, str]:
    """The environment that runs ``wps`` from the tree ``code``: ``PYTHONSAFEPATH`` keeps
    ``python -m wps`` from putting the current folder, perhaps another tree, first on the path
    (every ``--code`` run used to import the tree the script was started in)."""
    return {**os.environ, "PYTHONPATH": str(code), "PYTHONSAFEPATH": "1"}


def measure(command: list[str], out: Path, env: dict[str, str]) -> dict[str, object]:
    """Run ``command`` and measure it: wall and CPU time of its process tree, peak memory, load;
    pages done and stages from ``OUT/summary.json``."""
    load_before = os.getloadavg()[0]
    cpu_before = _children_cpu()
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True, env=env)
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
    CPU time each of them used (last sample per process: a lower bound, by process kind).

    The sampler must not slow what it measures. Reading every process's ``smaps_rollup`` walks
    its page tables in the kernel: 65 ms of CPU (140 ms wall) a sweep over a batch's ~40
    processes, measured with the batch running. At a sweep each 0.5 s that was an eighth of one
    of this machine's two cores, and a batch, with four times the bare loop's processes, paid
    most of it: the same ``local-defaults`` run took 15.2-16.3 s sampled and 14.6-14.9 s
    unsampled. So the thread runs at the lowest priority, CPU times (a cheap ``/proc/PID/stat``
    read) are sampled each :data:`CPU_EVERY_S` and PSS each :data:`PSS_EVERY_S`: the peak may
    miss a short spike between two PSS sweeps."""

    CPU_EVERY_S = 0.5
    PSS_EVERY_S = 2.0

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.peak_mb = 0.0
        self._cpu: dict[int, tuple[str, float]] = {}
        self._finished = threading.Event()

    def run(self) -> None:
        with contextlib.suppress(OSError):  # Linux: a thread's own niceness, by its id
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
        ticks, pss_every = 0, round(self.PSS_EVERY_S / self.CPU_EVERY_S)
        while not self._finished.wait(self.CPU_EVERY_S):
            tree = _tree(self.pid)
            if ticks % pss_every == 0:
                self.peak_mb = max(self.peak_mb, sum(map(_pss_kb, tree)) / 1024)
            ticks += 1
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


class PageServers:
    """The benchmark's pages, decompressed, served over HTTP from ``hosts`` loopback addresses
    (127.0.0.1, 127.0.0.2, ...: different sites to a browser); :attr:`urls` takes the hosts in
    turn. A path that is no page is a 404."""

    def __init__(self, files: list[Path], hosts: int) -> None:
        self.files = {f"/{file.name.removesuffix('.gz')}": file for file in files}
        self.hosts = [f"127.0.0.{number}" for number in range(1, hosts + 1)]
        self.servers: list[object] = []
        self.urls: list[str] = []

    def __enter__(self) -> PageServers:
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        files = self.files

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                import gzip

                file = files.get(self.path.split("?", 1)[0])
                if file is None:
                    self.send_error(404)
                    return
                body = gzip.decompress(file.read_bytes())
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        for host in self.hosts:
            server = ThreadingHTTPServer((host, 0), Handler)
            server.daemon_threads = True
            threading.Thread(target=server.serve_forever, daemon=True).start()
            self.servers.append(server)
        ports = [server.server_address[1] for server in self.servers]  # type: ignore[attr-defined]
        self.urls = [f"http://{self.hosts[n % len(ports)]}:{ports[n % len(ports)]}{path}"
                     for n, path in enumerate(self.files)]
        return self

    def __exit__(self, *exc_info: object) -> None:
        for server in self.servers:
            server.shutdown()  # type: ignore[attr-defined]
            server.server_close()  # type: ignore[attr-defined]


def _uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


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
