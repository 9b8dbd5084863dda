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
                'and "double" and \'single\' quotes & <!-- a comment -->, long enough to be read '
                'as prose: several sentences on baking bread in a wood-fired oven before dawn.')
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
    done = _wps("batch", str(listing), "--out", str(out), "--no-progress", *FAST)
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
def opened(chromium, report: Path):
    """``report`` in a fresh context; yields the page and what went wrong (console errors,
    page errors, dialogs, requests other than the report's own files)."""
    context = chromium.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("dialog", lambda dialog: (problems.append(f"dialog {dialog.message}"),
                                      dialog.dismiss()))
    page.on("request", lambda request: None if request.url.startswith("file:")
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
            assert cells.nth(1).get_attribute("data-value") == str(kept)
            assert cells.nth(2).get_attribute("data-value") == str(len(lines) - kept)
        assert "InputFileError" in page.locator("tr.failed").inner_text()
        assert page.locator("svg.chart g").count() == len(
            {reason for folder in folders for line in _lines(folder) for reason in line["reasons"]
             if not line["kept"]})

        heading = page.locator("th", has_text="Dropped segments")
        heading.locator("button").click()
        assert heading.get_attribute("aria-sort") == "ascending"
        values = [value or "-1" for value in page.locator("tbody tr td:nth-child(3)")
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
        assert problems == []
