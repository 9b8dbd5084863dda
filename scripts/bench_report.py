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
    """A page ``height`` px tall of ``segments`` stacked boxes (up to 6 px apart), each holding
    ``lines`` lines of text."""
    rng = random.Random(seed)
    nodes = [Node(0, None, "BODY", "/HTML[1]/BODY[1]", (0, 0, 1366, height))]
    step = height / segments
    parts = []
    for index in range(segments):
        top = index * step
        left = rng.choice((0, 40, 300))
        box = (left, top, left + rng.randint(300, 1000), top + step - min(6.0, step / 4))
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


IN_PAGE_TIMES = """async (repeats) => {
  const frame = () => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
  const median = (values) => values.sort((a, b) => a - b)[values.length >> 1];
  const time = async (action) => {
    const runs = [];
    for (let n = 0; n < repeats; n++) {
      const t = performance.now(); action(n); await frame(); runs.push(performance.now() - t);
    }
    return median(runs);
  };
  const press = (key) => document.dispatchEvent(new KeyboardEvent("keydown", {key, bubbles: true}));
  const boxes = document.querySelectorAll(".seg");
  const radio = (value) => document.querySelector(`input[value=${value}]`).click();
  return {
    next: await time(() => press("j")),
    click: await time((n) => boxes[(n * 7919) % boxes.length].click()),
    filter: await time((n) => radio(n % 2 ? "all" : "dropped")),
  };
}"""


def browser_times(result: wps.PageResult, folder: Path) -> None:
    """Load the report of ``result`` (with a page-sized screenshot) in Chromium; time loading,
    then (median of 6) a j key, a click on a box and a filter change (dropped only, all), each
    up to the second frame after it."""
    from PIL import Image, ImageDraw
    from playwright.sync_api import sync_playwright

    from wps.capture import find_chromium

    capture = result.capture
    (folder / "capture").mkdir(parents=True)
    image = Image.new("RGB", (capture.width, capture.height), "white")
    draw = ImageDraw.Draw(image)
    for node in capture.nodes:
        if node.is_text:
            draw.rectangle(node.bbox, fill=(90, 90, 90))
    image.save(folder / "capture" / "screenshot.png")
    facts = page_facts_from_capture(capture, "capture/screenshot.png")
    records = segment_records(capture, result.segmentation)
    (folder / "report.html").write_text(page_report_html(facts, records, None), encoding="utf-8")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=find_chromium())
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        started = time.perf_counter()
        page.goto((folder / "report.html").as_uri(), wait_until="load")
        loaded = (time.perf_counter() - started) * 1000
        times = page.evaluate(IN_PAGE_TIMES, 6)
        browser.close()
    print(f"  in Chromium, {len(records)} segments, {capture.height} px: load {loaded:.0f} ms, "
          + ", ".join(f"{name} {value:.0f} ms" for name, value in times.items())
          + " (medians)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--webis", type=Path, default=SHARED / "webis-webseg-20-sample")
    parser.add_argument("--browser", action="store_true",
                        help="also time the tall pages' reports in Chromium (file://)")
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

        if args.browser:
            browser_times(tall_page(400, 5), folder / "tall")
            browser_times(tall_page(2000, 5), folder / "dense")

        saved = folder / "saved"
        wps.segment_to_directory(args.webis / "000000", saved)
        print("wps report on the saved webis 000000 folder (capture read back): "
              f"{timed(lambda: write_page_report(saved), args.repeats)}")


if __name__ == "__main__":
    main()
