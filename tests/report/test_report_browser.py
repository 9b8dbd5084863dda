"""report.html in Chromium: the bundled forum example's page report, a page whose text is
markup, and the report of a three-page batch, each opened from file:// in a fresh context."""

from __future__ import annotations

import json
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

from wps.capture import find_chromium

pytestmark = [pytest.mark.browser, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
FORUM = REPO / "datasets" / "examples" / "forum.html"
HOSTILE_TEXT = ('This paragraph quotes </script><script>document.title="pwned";alert(1)</script> '
                'and <img src=x onerror="alert(3)"> and "double" and \'single\' quotes & <!-- a '
                'comment -->, long enough to be read as prose: several sentences on baking bread '
                'in a wood-fired oven before dawn.')
HOSTILE = f"""<!doctype html><html><head><meta charset="utf-8">
<title>Evil "title" </script><script>alert(2)</script></title></head><body>
<h1>&lt;script&gt;alert("heading")&lt;/script&gt;</h1>
<p>{HOSTILE_TEXT.replace('&', '&amp;').replace('<', '&lt;').replace('>', '&gt;')}</p>
<ul><li><a href="#a">Home</a></li><li><a href="#b">About</a></li></ul></body></html>"""
TABLE = """<!doctype html><html><head><meta charset="utf-8"><title>Opening hours</title></head>
<body><h1>Opening hours</h1><table><tr><td>Monday</td><td>8-18</td></tr>
<tr><td>Tuesday</td><td>8-18</td></tr></table>
<p>We bake every morning and sell until the shelves are empty; orders for parties are taken
three weeks ahead at the counter or by telephone.</p></body></html>"""
FAST = ["--settle", "0", "--scroll-steps", "1", "--timeout", "60"]


def _wps(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "wps", *args], capture_output=True, text=True,
                          check=False, timeout=300)


def _lines(folder: Path) -> list[dict]:
    return [json.loads(line) for line in
            (folder / "segments.jsonl").read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def forum_folder(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("segment") / "forum"
    done = _wps("segment", str(FORUM), "--out", str(out), *FAST)
    assert done.returncode == 0, done.stderr
    return out


@pytest.fixture(scope="module")
def batch_folder(tmp_path_factory) -> Path:
    pages = tmp_path_factory.mktemp("pages")
    (pages / "hostile.html").write_text(HOSTILE, encoding="utf-8")
    (pages / "table.html").write_text(TABLE, encoding="utf-8")
    listing = pages / "pages.txt"
    listing.write_text("\n".join([str(FORUM), str(pages / "hostile.html"),
                                  str(pages / "table.html"), str(pages / "missing.html")]) + "\n",
                       encoding="utf-8")
    out = tmp_path_factory.mktemp("batch") / "out"
    done = _wps("batch", str(listing), "--out", str(out), "--no-progress", "--embed-screenshot",
                "--reports", *FAST)  # page reports are opt-in in a batch
    assert done.returncode == 9, done.stderr  # the missing page failed
    assert (out / "report.html").is_file()  # written by wps batch as the run ends
    return out


@pytest.fixture(scope="module")
def chromium(forum_folder, batch_folder):  # the outputs first: one Playwright at a time
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=find_chromium())
        yield browser
        browser.close()


@contextmanager
def opened(chromium, report: Path, width: int = 1400, height: int = 900):
    """``report`` in a fresh context; yields the page and what went wrong (console errors,
    page errors, dialogs, requests other than the report's own files and ``data:`` URLs)."""
    context = chromium.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("dialog", lambda dialog: (problems.append(f"dialog {dialog.message}"),
                                      dialog.dismiss()))
    page.on("request", lambda request: None if request.url.startswith(("file:", "data:"))
            else problems.append(f"request {request.url}"))
    try:
        page.goto(report.as_uri())
        yield page, problems
    finally:
        context.close()


def _check_segments(page, lines: list[dict]) -> None:
    """One box per line, showing its decision and reasons; its list entry says the same."""
    assert page.locator("[data-segment-id]").count() == len(lines)
    for index, line in enumerate(lines):
        box = page.locator(f'[data-segment-id="{line["segment_id"]}"]')
        assert box.count() == 1
        word = "kept" if line["kept"] else "dropped"
        assert box.get_attribute("data-kept") == str(line["kept"]).lower()
        label = box.get_attribute("aria-label")
        assert f", {word}" in label and all(reason in label for reason in line["reasons"])
        item = page.locator(f'.item[data-index="{index}"]').inner_text()
        assert word in item and all(reason in item for reason in line["reasons"])


def _click_shows(page, line: dict) -> None:
    page.locator(f'[data-segment-id="{line["segment_id"]}"]').click()
    detail = page.locator("#detail")
    assert detail.locator("pre.text").text_content() == (line["text"] or "(no text)")
    assert detail.locator("ul.reasons li").all_text_contents() == line["reasons"]
    assert ("kept" if line["kept"] else "dropped") in detail.locator("h2").inner_text()


def test_forum_page_report(chromium, forum_folder):
    lines = _lines(forum_folder)
    dropped = [line for line in lines if not line["kept"]]
    assert dropped and len(dropped) < len(lines)
    with opened(chromium, forum_folder / "report.html") as (page, problems):
        assert page.evaluate("document.querySelector('#stage img').naturalWidth") > 0
        _check_segments(page, lines)
        assert page.locator(".item .unit").all_text_contents() == [  # each post judged alone
            line["unit"] for line in lines if line["kept"]]
        _click_shows(page, dropped[0])
        _click_shows(page, next(line for line in lines if line["kept"]))

        page.keyboard.press("Escape")
        for key, expected in (("j", 0), ("j", 1), ("k", 0)):
            page.keyboard.press(key)
            current = page.locator('.item[aria-current="true"]')
            assert current.get_attribute("data-index") == str(expected)
            assert page.locator("#detail pre.text").text_content() == (
                lines[expected]["text"] or "(no text)")

        page.check('input[name="decision"][value="dropped"]')
        assert page.locator("[data-segment-id]:visible").count() == len(dropped)
        reason = dropped[-1]["reasons"][-1]
        page.select_option("#reason-filter", reason)
        assert page.locator("[data-segment-id]:visible").count() == sum(
            reason in line["reasons"] for line in dropped)
        assert page.locator(".items li:visible").count() == sum(
            reason in line["reasons"] for line in dropped)
        assert problems == []


def test_page_text_that_is_markup_stays_text(chromium, batch_folder):
    folder = next(path.parent for path in batch_folder.glob("*/segments.jsonl")
                  if "hostile" in _lines(path.parent)[0]["url"])
    lines = _lines(folder)
    hostile = next(line for line in lines if "</script>" in line["text"])
    with opened(chromium, folder / "report.html") as (page, problems):
        assert page.locator("script").count() == 2
        assert "pwned" not in page.title()
        assert page.locator("h1").inner_text().startswith('Evil "title" </script><script>')
        _check_segments(page, lines)
        _click_shows(page, hostile)
        assert problems == []


def test_batch_report(chromium, batch_folder):
    folders = sorted(path.parent for path in batch_folder.glob("*/segments.jsonl"))
    assert len(folders) == 3
    with opened(chromium, batch_folder / "report.html") as (page, problems):
        rows = page.locator("tbody tr")
        assert rows.count() == 4
        for folder in folders:
            lines = _lines(folder)
            cells = page.locator(f'tr[data-page-id="{folder.name}"] td')
            kept = sum(line["kept"] for line in lines)
            units = len({line["unit"] for line in lines if line["kept"]})
            assert cells.nth(1).get_attribute("data-value") == str(kept)
            assert cells.nth(2).get_attribute("data-value") == str(units)
            assert cells.nth(3).get_attribute("data-value") == str(len(lines) - kept)
        assert "InputFileError" in page.locator("tr.failed").inner_text()
        assert page.locator("svg.chart g").count() == len(
            {reason for folder in folders for line in _lines(folder) for reason in line["reasons"]
             if not line["kept"]})

        heading = page.locator("th", has_text="Dropped segments")
        heading.locator("button").click()
        assert heading.get_attribute("aria-sort") == "ascending"
        values = [value or "-1" for value in page.locator("tbody tr td:nth-child(4)")
                  .evaluate_all("cells => cells.map(cell => cell.dataset.value)")]
        assert [float(v) for v in values] == sorted(float(v) for v in values)
        heading.locator("button").click()
        assert heading.get_attribute("aria-sort") == "descending"

        forum = next(folder for folder in folders
                     if _lines(folder)[0]["url"] == FORUM.resolve().as_uri())
        page.locator(f'tr[data-page-id="{forum.name}"] a').click()
        page.wait_for_url("**/report.html")
        assert page.url == (forum / "report.html").as_uri()
        assert page.locator("[data-segment-id]").count() == len(_lines(forum))
        # --embed-screenshot: the page report holds its screenshot, no capture/ beside it
        assert not (forum / "capture").exists()
        assert page.locator("#stage img").get_attribute("src").startswith("data:image/")
        assert page.evaluate("document.querySelector('#stage img').naturalWidth") > 0
        assert problems == []


def _report(folder: Path, name: str, records: list[dict], width: int = 600,
            height: int = 500) -> Path:
    """A report of ``records`` on a blank page, written with the builder (no capture)."""
    from wps.report.page import PageFacts, page_report_html

    path = folder / f"{name}.html"
    path.write_text(page_report_html(PageFacts("https://example.org/", name, width, height, None),
                                     records, None), encoding="utf-8")
    return path


def _selected(page) -> int:
    return int(page.locator('.item[aria-current="true"]').get_attribute("data-index"))


def test_list_follows_the_selection(chromium, forum_folder):
    lines = _lines(forum_folder)
    assert len(lines) > 12
    with opened(chromium, forum_folder / "report.html", 1366, 768) as (page, problems):
        for expected in range(12):
            page.keyboard.press("j")
            assert _selected(page) == expected
            item = page.locator('.item[aria-current="true"]').bounding_box()
            shown = page.locator("#items").bounding_box()
            assert shown["y"] <= item["y"] and item["y"] + item["height"] <= (
                shown["y"] + shown["height"] + 1), expected
        assert problems == []


def test_a_click_picks_the_innermost_box(chromium, tmp_path):
    records = [  # a post's dropped chrome around its kept body, as wps.posts makes them
        {"segment_id": "chrome", "text": "", "kept": False, "reasons": ["post_chrome"],
         "kind": "chrome", "bbox": [0, 0, 600, 400]},
        {"segment_id": "body", "text": "The body of the post.", "kept": True, "kind": "post",
         "bbox": [100, 100, 300, 150]},
        {"segment_id": "quote", "text": "A quote in the body.", "kept": False,
         "reasons": ["quoted"], "kind": "quote", "bbox": [120, 120, 100, 40]},
    ]
    with opened(chromium, _report(tmp_path, "posts", records), 1366, 768) as (page, problems):
        stage = page.locator("#stage").bounding_box()
        scale = stage["width"] / 600

        def at(x: float, y: float) -> tuple[float, float]:
            return stage["x"] + x * scale, stage["y"] + y * scale

        page.mouse.move(*at(30, 200))  # over the chrome's margin first
        page.mouse.move(*at(300, 220), steps=8)  # then into the middle of the body
        assert page.locator("#detail pre.text").text_content() == records[1]["text"]
        page.mouse.click(*at(300, 220))
        assert _selected(page) == 1
        page.mouse.click(*at(150, 140))
        assert _selected(page) == 2
        page.keyboard.press("Escape")
        page.keyboard.press("j")  # the chrome selected, drawn above the others
        assert _selected(page) == 0
        page.mouse.click(*at(300, 220))
        assert _selected(page) == 1
        page.mouse.click(*at(30, 200))
        assert _selected(page) == 0
        assert problems == []


def _chip_colours(page) -> dict[str, str]:
    return page.evaluate("""() => Object.fromEntries(Array.from(
        document.querySelectorAll('.legend .chip'),
        chip => [chip.textContent, getComputedStyle(chip).backgroundColor]))""")


def test_kind_colours_are_fixed_per_kind(chromium, tmp_path):
    kinds = ["prose", "table", "navigation", "heading", "post"]

    def records(order):
        return [{"segment_id": kind, "text": kind, "kind": kind, "kept": kind == "prose",
                 "bbox": [10, 10 + 60 * i, 200, 40]} for i, kind in enumerate(order)]

    colours = []
    for name, order in (("first", kinds), ("second", kinds[::-1])):
        with opened(chromium, _report(tmp_path, name, records(order))) as (page, problems):
            colours.append(_chip_colours(page))
            decided = page.evaluate("""() => ['.seg.kept', '.seg.dropped'].map(
                s => getComputedStyle(document.querySelector(s)).borderTopColor)""")
            assert not set(decided) & set(colours[-1].values())
            assert problems == []
    assert colours[0] == colours[1] and sorted(colours[0]) == sorted(kinds)
    assert len(set(colours[0].values())) == len(kinds)


def test_the_page_fits_at_1366_px(chromium, forum_folder, tmp_path):
    with opened(chromium, forum_folder / "report.html", 1366, 768) as (page, problems):
        sizes = page.evaluate("""() => ({
            stage: document.getElementById('stage').getBoundingClientRect().right,
            scroll: document.scrollingElement.scrollWidth, width: innerWidth})""")
        assert sizes["stage"] <= sizes["width"] and sizes["scroll"] <= sizes["width"]
        shown = page.locator("#items").bounding_box()
        rows = [box for box in (page.locator(".items > li").nth(i).bounding_box()
                                for i in range(8))
                if box["y"] + box["height"] <= shown["y"] + shown["height"]]
        assert len(rows) >= 6
        page.select_option("#zoom", "1")  # 100 %: the page scrolls sideways in its pane only
        assert page.evaluate("document.scrollingElement.scrollWidth") <= sizes["width"]
        assert problems == []
    untrimmed = " ".join(["A long main text before trimming, as the text step keeps it."] * 8)
    record = {"segment_id": "s", "text": "Some text.", "kept": True, "bbox": [0, 0, 300, 100],
              "main_text_untrimmed": untrimmed, "xpath": "/HTML[1]/BODY[1]/DIV[3]"}
    with opened(chromium, _report(tmp_path, "fields", [record]), 1366, 768) as (page, problems):
        page.keyboard.press("j")
        value, key, pane = page.evaluate("""(value) => {
            const detail = document.getElementById('detail');
            const leaf = (text) => Array.from(detail.querySelectorAll('*')).find(
                node => node.children.length === 0 && node.textContent === text);
            const box = (node) => { const r = node.getBoundingClientRect();
                                    return {left: r.left, right: r.right, width: r.width}; };
            return [box(leaf(value)), box(leaf('main_text_untrimmed')), box(detail)];
            }""", untrimmed)
        # below its name, not in a column beside it, and nearly as wide as the pane
        assert value["left"] < key["right"] and value["width"] >= 0.85 * pane["width"]
        assert problems == []


def test_markup_in_every_field_never_runs(chromium, tmp_path):
    scripted = ('</script><script>window.pwned=1</script><img src=x onerror="window.pwned=2">'
                '<!--')
    records = [{"segment_id": scripted, "text": scripted, "kept": False, "kind": scripted,
                "reasons": [scripted], "bbox": [10, 10, 200, 100], scripted: scripted}]
    path = tmp_path / "hostile.html"
    from wps.report.page import PageFacts, page_report_html

    path.write_text(page_report_html(PageFacts(f"https://example.org/{scripted}", scripted, 400,
                                               300, None), records,
                                     {"extractor": scripted, "page_kept": False,
                                      "page_reasons": [scripted], "unaligned": [scripted]}),
                    encoding="utf-8")
    with opened(chromium, path) as (page, problems):
        page.locator(".seg").click()
        page.locator(".item").hover()
        assert page.locator("#detail pre.text").text_content() == scripted
        assert page.locator("h1").inner_text() == scripted
        assert page.evaluate("window.pwned") is None
        assert page.locator("img").count() == 0 and page.locator("script").count() == 2
        assert problems == []
