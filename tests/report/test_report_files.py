"""report.html without a browser: what the builders write, `wps report` on good and bad folders,
label placement, and a batch folder with broken and failed pages."""

from __future__ import annotations

import json
import re
from html import unescape
from html.parser import HTMLParser

from wps.cli import main
from wps.errors import InputFileError
from wps.model import Node, PageCapture, Segment, Segmentation
from wps.output import write_page_outputs
from wps.report.batch import read_batch_rows
from wps.report.labels import place_labels
from wps.report.page import REPORT_FILE, PageFacts, page_report_html

HOSTILE = 'Say </script><script>document.title="pwned"</script> and <!-- "quoted" & \'so\''


class _Elements(HTMLParser):
    """Counts start tags and collects the attributes of segment boxes."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: dict[str, int] = {}
        self.segments: list[dict[str, str | None]] = []

    def handle_starttag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
        attributes = dict(attrs)
        if "data-segment-id" in attributes:
            self.segments.append(attributes)


def _elements(html: str) -> _Elements:
    parser = _Elements()
    parser.feed(html)
    return parser


def _page(tmp_path, name="page", texts=("Hello there", HOSTILE)):
    """A page output folder written by wps.output from a small capture (no browser needed)."""
    nodes = [Node(0, None, "BODY", "/HTML[1]/BODY[1]", (0, 0, 400, 300))]
    segments = []
    for index, text in enumerate(texts):
        top = 20 + 80 * index
        nodes.append(Node(len(nodes), 0, "P", f"/HTML[1]/BODY[1]/P[{index + 1}]",
                          (10, top, 300, top + 40)))
        nodes.append(Node(len(nodes), len(nodes) - 1, "#text",
                          f"/HTML[1]/BODY[1]/P[{index + 1}]/text()[1]", (12, top + 2, 280, top + 30),
                          text=text))
        segment = Segment.from_box(str(index), (10, top, 300, top + 40),
                                   [len(nodes) - 2, len(nodes) - 1])
        segment.text = text
        segment.main_text = text if index == 0 else ""
        segment.kept = index == 0
        segment.reasons = [] if index == 0 else ["no_main_text", "too_few_tokens"]
        segment.stats = {"tokens": float(len(text.split())), "link_share": 0.0}
        segments.append(segment)
    capture = PageCapture(url=f"https://example.org/{name}", width=400, height=300, nodes=nodes,
                          page_id=name, title=f"A <b>{name}</b>")
    out = tmp_path / name
    write_page_outputs(capture, Segmentation(name, "dom-cohesion", 400, 300, segments), out,
                       main_text={"extractor": "trafilatura", "blocks": 2, "page_kept": True,
                                  "page_reasons": [],
                                  "unaligned": [{"kind": "p", "tag": "p", "text": HOSTILE}]})
    return out


def test_page_report_has_one_box_per_line_and_page_text_stays_text(tmp_path):
    out = _page(tmp_path)
    lines = [json.loads(line) for line in (out / "segments.jsonl").read_text().splitlines()]
    html = (out / REPORT_FILE).read_text(encoding="utf-8")
    elements = _elements(html)
    assert [box["data-segment-id"] for box in elements.segments] == [
        line["segment_id"] for line in lines]  # equal areas: list order
    for box, line in zip(elements.segments, lines):
        assert box["data-kept"] == str(line["kept"]).lower()
        assert box["data-reasons"].split() == line["reasons"]
    assert elements.tags["script"] == 2 and elements.tags.get("b") is None
    unplaced = html.split('<details class="unplaced">')[1].split("</details>")[0]
    assert HOSTILE not in unplaced and HOSTILE in unescape(unplaced)  # unplaced main text
    data = html.split('<script type="application/json" id="segment-data">')[1]
    data = data.split("</script>")[0]
    assert "<" not in data
    assert [item["text"] for item in json.loads(data)] == [line["text"] for line in lines]
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", html)  # nothing to fetch


def test_report_refers_to_the_screenshot_beside_it_or_draws_on_a_blank_page():
    facts = PageFacts("https://example.org/", "t", 300, 200, "capture/screenshot.png")
    with_image = _elements(page_report_html(facts, [], None))
    assert with_image.tags.get("img") == 1
    blank = PageFacts("https://example.org/", "t", 300, 200, None)
    assert _elements(page_report_html(blank, [], None)).tags.get("img") is None


def test_odd_numbers_in_a_line_do_not_break_the_report():
    record = {"segment_id": "x:0", "text": "a", "kept": False, "reasons": ["r"],
              "bbox": [0, float("inf"), 5, 5], "stats": {"score": float("nan")}}
    html = page_report_html(PageFacts("u", "t", 100, 100, None), [record], None)
    data = html.split('id="segment-data">')[1].split("</script>")[0]
    assert json.loads(data)[0]["stats"] == {"score": None}


def test_wps_report_rebuilds_a_page_report_and_refuses_other_folders(tmp_path, capsys):
    out = _page(tmp_path)
    (out / REPORT_FILE).unlink()
    assert main(["report", str(out)]) == 0
    assert capsys.readouterr().out.strip() == str(out / REPORT_FILE)
    rebuilt = (out / REPORT_FILE).read_text(encoding="utf-8")
    assert len(_elements(rebuilt).segments) == 2

    other = tmp_path / "documents"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    for folder in (other, tmp_path / "missing", other / "notes.txt"):
        assert main(["report", str(folder)]) == InputFileError.exit_code
        err = capsys.readouterr().err
        assert err.startswith(f"wps: error: {folder}: ") and err.count("\n") == 1, err
    assert sorted(p.name for p in other.iterdir()) == ["notes.txt"]

    with open(out / "segments.jsonl", "a", encoding="utf-8") as handle:
        handle.write('{"text": "x", "kept": "yes"}\n')
    assert main(["report", str(out)]) == InputFileError.exit_code
    assert "'kept' must be true or false" in capsys.readouterr().err
    assert (out / REPORT_FILE).read_text(encoding="utf-8") == rebuilt  # old report kept
    assert not [p for p in out.iterdir() if p.name.startswith(".")]


def test_batch_report_tolerates_broken_and_failed_pages(tmp_path, capsys):
    batch = tmp_path / "batch"
    good, broken = _page(batch, "good"), _page(batch, "broken")
    (broken / "segments.jsonl").write_text("not json\n", encoding="utf-8")
    (batch / ".done").mkdir()
    (batch / ".done" / "good").write_text(json.dumps({"url": "https://example.org/good",
                                                      "seconds": 1.25}))
    (batch / ".done" / "broken").write_text("{odd")
    failures = [{"url": "https://example.org/gone", "error": "HttpStatusError",
                 "message": "https://example.org/gone: HTTP 404", "exit_code": 13}]
    (batch / "failures.jsonl").write_text(
        "\n".join([json.dumps(failures[0]), "[1, 2]", "junk"]) + "\n", encoding="utf-8")
    assert main(["report", str(batch)]) == 0
    rows = {row.key or row.url: row for row in read_batch_rows(batch)}
    assert rows["good"].kept == 1 and rows["good"].dropped == 1 and rows["good"].seconds == 1.25
    assert rows["broken"].failure.startswith("output not readable")
    assert rows["https://example.org/gone"].failure.startswith("HttpStatusError (exit 13)")
    html = (batch / REPORT_FILE).read_text(encoding="utf-8")
    page_rows = [line for line in html.split("<tr ") if line.startswith("data-page-id")]
    assert len(page_rows) == 3
    assert 'href="good/report.html"' in html and (good / REPORT_FILE).is_file()
    chart = _elements(html)
    assert chart.tags["svg"] == 1 and chart.tags["rect"] == 2  # no_main_text, too_few_tokens


def test_batch_file_names_are_the_runners():
    from wps.report import batch as report_batch
    from wps.runner import batch as runner_batch

    assert report_batch.DONE_FOLDER == runner_batch.DONE_FOLDER
    assert report_batch.FAILURES_FILE == runner_batch.FAILURES_FILE
    assert report_batch.SUMMARY_FILE == runner_batch.SUMMARY_FILE


def test_labels_go_beside_segments_off_the_text_and_each_other():
    texts = [(10, 10, 190, 40), (10, 60, 190, 90)]
    segments = [(5, 5, 195, 45), (5, 55, 195, 95)]
    places = place_labels(segments, [(30, 12)] * 2, texts, (0, 0, 300, 120))
    rectangles = [(x, y, x + 30, y + 12) for x, y in places]
    for left, top, right, bottom in rectangles:
        assert 0 <= left and right <= 300 and 0 <= top and bottom <= 120
        assert all(right <= a or left >= c or bottom <= b or top >= d for a, b, c, d in texts)
    (a0, b0, c0, d0), (a1, b1, c1, d1) = rectangles
    assert c0 <= a1 or c1 <= a0 or d0 <= b1 or d1 <= b0


def test_a_label_with_no_free_place_covers_the_least_text():
    texts = [(0, 0, 100, 70)]  # above the segment all text, below it some
    places = place_labels([(10, 40, 90, 60)], [(20, 10)], texts, (0, 0, 100, 100))
    assert places == [(10, 63)]
