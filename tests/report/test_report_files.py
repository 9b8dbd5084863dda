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


def test_batch_report_shows_the_seconds_per_page_of_each_stage(tmp_path):
    batch = tmp_path / "batch"
    _page(batch, "good")
    (batch / "summary.json").write_text(json.dumps(
        {"total": 2, "done": 2, "skipped": 0, "failed": 0, "seconds": 3.0,
         "stage_seconds": {"navigate_s": 1.5, "after_capture_s": 0.5}}), encoding="utf-8")
    assert main(["report", str(batch)]) == 0
    html = (batch / REPORT_FILE).read_text(encoding="utf-8")
    assert "Seconds per page by stage" in html and "navigate 0.75, after_capture 0.25" in html


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


SCRIPTED = '</script><script>window.pwned=1</script><img src=x onerror="window.pwned=2">'
"""Markup that would run if it reached the report unescaped."""
SAFE_TAGS = {"html", "head", "meta", "title", "style", "body", "header", "h1", "dl", "dt", "dd",
             "code", "span", "details", "summary", "ol", "li", "div", "aside", "form",
             "fieldset", "legend", "label", "input", "select", "option", "p", "ul", "section",
             "h2", "button", "main", "script", "img", "table", "thead", "tbody", "tfoot", "tr",
             "th", "td", "a", "svg", "g", "text", "rect"}


def _hostile_page_html() -> str:
    record = {"segment_id": SCRIPTED, "text": SCRIPTED, "main_text": SCRIPTED, "kept": False,
              "reasons": [SCRIPTED, "no_main_text"], "kind": SCRIPTED, "bbox": [0, 0, 50, 20],
              "stats": {SCRIPTED: 1.0}, SCRIPTED: SCRIPTED}
    main_text = {"extractor": SCRIPTED, "blocks": 1, "page_kept": False,
                 "page_reasons": [SCRIPTED], "unaligned": [{"text": SCRIPTED}, SCRIPTED]}
    return page_report_html(PageFacts(f"https://example.org/?q={SCRIPTED}", SCRIPTED, 100, 100,
                                      None), [record], main_text)


def _assert_inert(html: str, scripts: int) -> None:
    """Only the report's own elements, no event handler attribute, the page's markup never raw
    outside the script data (where ``tojson`` escaped it)."""
    elements = list(_StartTags(html))
    tags = [tag for tag, _ in elements]
    assert set(tags) <= SAFE_TAGS and tags.count("script") == scripts
    assert "img" not in tags  # no screenshot here, and no image from the page text
    assert not [name for _, attrs in elements for name in attrs if name.startswith("on")]
    assert SCRIPTED not in html and "window.pwned" in unescape(html)


def test_markup_in_every_field_of_a_page_stays_text():
    html = _hostile_page_html()
    _assert_inert(html, scripts=2)
    data = html.split('<script type="application/json" id="segment-data">')[1]
    assert json.loads(data.split("</script>")[0])[0]["text"] == SCRIPTED


def test_markup_in_a_batch_folder_stays_text():
    from wps.report.batch import PageRow, batch_report_html

    rows = [PageRow(key=SCRIPTED, url=SCRIPTED, segments=2, kept=1, failure=SCRIPTED,
                    has_report=True, main_text={"page_kept": True, "page_reasons": [SCRIPTED]}),
            PageRow(key="", url=SCRIPTED, failure=SCRIPTED)]
    rows[0].drop_reasons[SCRIPTED] += 1
    html = batch_report_html(SCRIPTED, rows, {"total": SCRIPTED, "seconds": 1.5})
    _assert_inert(html, scripts=1)
    assert 'href="%3C/script%3E' in html  # the folder name is a quoted path in the link


def _capture_with_screenshot(tmp_path, size, boxes):
    """A capture of a page of ``size`` whose screenshot is a noise image of ``size`` (Pillow),
    one segment per box."""
    import numpy as np
    from PIL import Image

    width, height = size
    shot = tmp_path / "shot.png"
    noise = np.random.default_rng(0).integers(0, 256, (height, width, 3), dtype=np.uint8)
    Image.fromarray(noise).save(shot)
    nodes = [Node(0, None, "BODY", "/HTML[1]/BODY[1]", (0, 0, width, height))]
    segments = []
    for index, box in enumerate(boxes):
        segment = Segment.from_box(str(index), box)
        segment.text, segment.kept, segment.reasons = f"segment {index}", True, []
        segments.append(segment)
    capture = PageCapture(url="https://example.org/", width=width, height=height, nodes=nodes,
                          page_id="p", screenshot=shot)
    return capture, Segmentation("p", "dom-cohesion", width, height, segments)


def _img_src(html: str) -> str:
    return next(attrs["src"] for tag, attrs in _StartTags(html) if tag == "img")


class _StartTags(HTMLParser):
    def __init__(self, html: str) -> None:
        super().__init__()
        self.found: list[tuple[str, dict]] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, dict(attrs)))

    def __iter__(self):
        return iter(self.found)


def test_segments_below_the_screenshot_are_marked(tmp_path):
    capture, segmentation = _capture_with_screenshot(
        tmp_path, (200, 100), [(10, 10, 190, 60), (10, 80, 190, 130), (10, 150, 190, 190)])
    out = write_page_outputs(capture, segmentation, tmp_path / "out", overlay=False)
    html = (out / REPORT_FILE).read_text(encoding="utf-8")
    classes = {attrs["data-segment-id"]: attrs["class"].split() for tag, attrs in _StartTags(html)
               if "data-segment-id" in attrs}
    below = {key for key, names in classes.items() if "beyond" in names}
    lines = [json.loads(line) for line in (out / "segments.jsonl").read_text().splitlines()]
    assert below == {line["segment_id"] for line in lines
                     if line["bbox"][1] >= 100}  # only the one wholly below 100 px
    assert len(below) == 1
    band = next(attrs for tag, attrs in _StartTags(html) if "no-shot" in attrs.get("class", ""))
    assert "top:100px" in band["style"] and "height:90px" in band["style"]
    assert "below the screenshot" in next(attrs["aria-label"] for tag, attrs in _StartTags(html)
                                          if "beyond" in attrs.get("class", ""))


def test_screenshot_embedded_as_a_data_url(tmp_path, capsys):
    from base64 import b64decode
    from io import BytesIO

    from PIL import Image

    capture, segmentation = _capture_with_screenshot(tmp_path, (120, 80), [(0, 0, 60, 40)])
    original = capture.screenshot.read_bytes()
    out = write_page_outputs(capture, segmentation, tmp_path / "alone", overlay=False,
                             capture_folder=False, embed_screenshot=True)
    assert not (out / "capture").exists()
    src = _img_src((out / REPORT_FILE).read_text(encoding="utf-8"))
    assert src.startswith("data:image/png;base64,")
    assert b64decode(src.split(",", 1)[1]) == original  # small: as it is

    beside = write_page_outputs(capture, segmentation, tmp_path / "beside", overlay=False)
    assert _img_src((beside / REPORT_FILE).read_text()) == "capture/screenshot.png"
    assert main(["report", "--embed-screenshot", str(beside)]) == 0
    capsys.readouterr()
    assert _img_src((beside / REPORT_FILE).read_text()).startswith("data:image/png;base64,")

    for size, kind in (((700, 700), "webp"), ((40, 17000), "jpeg")):  # large: lossy
        capture, segmentation = _capture_with_screenshot(tmp_path, size, [(0, 0, 10, 10)])
        out = write_page_outputs(capture, segmentation, tmp_path / kind, overlay=False,
                                 capture_folder=False, embed_screenshot=True)
        src = _img_src((out / REPORT_FILE).read_text(encoding="utf-8"))
        assert src.startswith(f"data:image/{kind};base64,")
        data = b64decode(src.split(",", 1)[1])
        assert len(data) < capture.screenshot.stat().st_size
        with Image.open(BytesIO(data)) as image:
            assert image.size == size


def test_embedding_is_a_pipeline_option(tmp_path, capsys):
    from wps.pipeline import PipelineOptions, segment_to_directory
    from wps.runner.batch import _checked_pipeline

    capture, _ = _capture_with_screenshot(tmp_path, (120, 80), [])
    capture.nodes.append(Node(1, 0, "P", "/HTML[1]/BODY[1]/P[1]", (5, 5, 100, 30)))
    capture.nodes.append(Node(2, 1, "#text", "/HTML[1]/BODY[1]/P[1]/text()[1]", (5, 5, 90, 25),
                              text="Hello"))
    capture.html = "<html><body><p>Hello</p></body></html>"
    out = segment_to_directory(capture, tmp_path / "api", text=False,
                               embed_screenshot=True).output_dir
    assert _img_src((out / REPORT_FILE).read_text()).startswith("data:image/png;base64,")
    # a batch without --images takes the screenshot only for a segmenter or report that uses it
    assert _checked_pipeline(PipelineOptions(embed_screenshot=True), False).capture_options \
        .screenshot
    assert not _checked_pipeline(PipelineOptions(), False).capture_options.screenshot
    assert main(["segment", "x.html", "--format", "json", "--embed-screenshot"]) == 2
    assert "--embed-screenshot" in capsys.readouterr().err


def test_kind_colours_are_fixed_and_unlike_the_decision_colours():
    import math

    from wps.decide.kinds import KIND_RULES
    from wps.decide.step import PART_REASONS
    from wps.report.page import KIND_COLOURS, OTHER_KIND_COLOURS
    from wps.report.render import asset

    def chips(kinds):
        records = [{"text": kind, "kind": kind, "bbox": [0, 10 * i, 10, 10]}
                   for i, kind in enumerate(kinds)]
        html = page_report_html(PageFacts("u", "t", 100, 100, None), records, None)
        return {attrs["data-kind"]: attrs["style"] for tag, attrs in _StartTags(html)
                if "chip" in attrs.get("class", "")}

    named = [kind for kind, _ in KIND_RULES] + list(PART_REASONS) + ["prose", "post",
                                                                    "boilerplate"]
    assert set(named) <= set(KIND_COLOURS)  # every kind the decision step names
    assert chips(named) == chips(list(reversed(named)))  # not by order of appearance
    assert chips(["zz-new"])["zz-new"] == chips(["table", "zz-new"])["zz-new"]
    assert len(set(KIND_COLOURS.values())) == len(KIND_COLOURS)
    css = str(asset("report.css"))
    decisions = [re.search(rf"--{name}: (#[0-9a-f]{{6}})", css).group(1)
                 for name in ("kept", "dropped")]

    def rgb(colour):
        return [int(colour[i:i + 2], 16) for i in (1, 3, 5)]

    for colour in [*KIND_COLOURS.values(), *OTHER_KIND_COLOURS]:
        assert min(math.dist(rgb(colour), rgb(d)) for d in decisions) > 90, colour
