"""What report.html adds to a page's output: building and writing it, per page (target ≤ 50 ms).

Pages: the Webis-WebSeg-20 sample (segmented and text-mapped without rendering), a generated
page of many elements, and two 16,000 px tall pages: 400 segments, and 2,000 segments of 8 px
(no free place for any label: the worst case of label placement). Each figure is the median of several runs of building the HTML
(label placement included) and writing it through the atomic writer; ``wps report`` on a saved
folder also reads the capture back, timed separately.

    .venv/bin/python scripts/bench_report.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

import wps
from wps.benchmark.synthetic import generated_capture
from wps.model import Node, PageCapture, Segment, Segmentation
from wps.records import segment_records
from wps.report.folders import write_page_report
from wps.report.page import page_facts_from_capture, page_report_html

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"


def timed(run, repeats: int) -> str:
    """Median wall-clock milliseconds of ``run``, and the median CPU time of this process
    (which other processes on a busy machine do not inflate)."""
    wall, cpu = [], []
    for _ in range(repeats):
        started, cpu_started = time.perf_counter(), time.process_time()
        run()
        wall.append(time.perf_counter() - started)
        cpu.append(time.process_time() - cpu_started)
    return (f"{statistics.median(wall) * 1000:.1f} ms "
            f"(CPU {statistics.median(cpu) * 1000:.1f} ms)")


def report_time(result, folder: Path, repeats: int) -> str:
    """Build and write the report of a segmented page, as ``wps.output`` does (into the page's
    staging folder, renamed into place with the other outputs)."""
    records = segment_records(result.capture, result.segmentation)
    main_text = result.main_text_report()

    def build_and_write() -> None:
        facts = page_facts_from_capture(result.capture, "capture/screenshot.png")
        (folder / "report.html").write_text(page_report_html(facts, records, main_text),
                                           encoding="utf-8")

    return timed(build_and_write, repeats)


def tall_page(segments: int, lines: int, height: int = 16000, seed: int = 1) -> wps.PageResult:
    """A page ``height`` px tall of ``segments`` stacked boxes (6 px apart), each holding
    ``lines`` lines of text."""
    rng = random.Random(seed)
    nodes = [Node(0, None, "BODY", "/HTML[1]/BODY[1]", (0, 0, 1366, height))]
    step = height / segments
    parts = []
    for index in range(segments):
        top = index * step
        left = rng.choice((0, 40, 300))
        box = (left, top, left + rng.randint(300, 1000), top + step - 6)
        element = len(nodes)
        nodes.append(Node(element, 0, "DIV", f"/HTML[1]/BODY[1]/DIV[{index + 1}]", box))
        members = [element]
        line_height = (box[3] - box[1] - 4) / lines
        for line in range(lines):
            line_top = box[1] + 2 + line * line_height
            nodes.append(Node(len(nodes), element, "#text", f"/x/text()[{line + 1}]",
                              (box[0] + 4, line_top, box[2] - 4, line_top + line_height * 0.8),
                              text="word " * rng.randint(2, 30)))
            members.append(len(nodes) - 1)
        segment = Segment.from_box(str(index), box, members)
        segment.text = " ".join(nodes[i].text for i in members[1:])
        segment.kept = rng.random() < 0.5
        segment.reasons = [] if segment.kept else rng.sample(
            ["no_main_text", "too_few_tokens", "link_share", "not_prose"], 2)
        segment.stats = {"tokens": float(len(segment.text.split())), "link_share": 0.1}
        parts.append(segment)
    capture = PageCapture(url="https://example.org/tall", width=1366, height=height,
                          nodes=nodes, page_id="tall", title="Tall page")
    return wps.PageResult(capture, Segmentation("tall", "synthetic", 1366, height, parts))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--webis", type=Path, default=SHARED / "webis-webseg-20-sample")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-report-") as temporary:
        folder = Path(temporary)
        for page in sorted(p for p in args.webis.iterdir() if (p / "dom.html").is_file()):
            result = wps.segment(page)
            print(f"webis {page.name}: {len(result.segmentation.segments)} segments, "
                  f"{len(result.capture.nodes)} nodes, {result.capture.height} px: "
                  f"{report_time(result, folder, args.repeats)}")

        generated = wps.segment(generated_capture(5000, seed=1))
        print(f"generated page: {len(generated.segmentation.segments)} segments, "
              f"{len(generated.capture.nodes)} nodes, {generated.capture.height} px: "
              f"{report_time(generated, folder, args.repeats)}")

        for name, segments, lines in (("tall page", 400, 5), ("dense tall page", 2000, 5)):
            tall = tall_page(segments, lines)
            print(f"{name}: {segments} segments, {len(tall.capture.nodes)} nodes, "
                  f"{tall.capture.height} px: {report_time(tall, folder, args.repeats)}")

        saved = folder / "saved"
        wps.segment_to_directory(args.webis / "000000", saved)
        print("wps report on the saved webis 000000 folder (capture read back): "
              f"{timed(lambda: write_page_report(saved), args.repeats)}")


if __name__ == "__main__":
    main()
