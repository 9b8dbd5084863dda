"""The results of the non-article dev set: ``nonarticle-<label>.json`` and the label's section
of ``nonarticle.md`` (the other labels' sections kept, the comparison table rebuilt)."""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..files import prepare_output_folder, write_text_atomic

__all__ = ["git_commit", "merge_markdown", "render_section", "total_rows", "write_results"]

_WPS_ROOT = Path(__file__).resolve().parent.parent


def _ratio(found: int, total: int) -> str:
    return f"{found}/{total}" if total else "–"


def total_rows(t: dict[str, Any], time_info: dict[str, Any]) -> list[tuple[str, str]]:
    """(figure, value) rows of the totals table; also the comparison table's rows."""
    return [
        ("pages scored", f"{t['scored']}/{t['pages']}"),
        ("prose strings kept", _ratio(t["prose_found"], t["prose"])),
        ("non-prose strings leaked", _ratio(t["leaks"], t["not_prose"])),
        ("kept chars on index/login/table pages",
         f"{t['kept_chars_nonarticle']} ({t['nonarticle_pages']} pages)"),
        ("posts whole in one segment", _ratio(t["posts_whole"], t["posts_scorable"])),
        ("… of those in a kept segment", _ratio(t["posts_whole_kept"], t["posts_whole"])),
        ("posts kept as a segment of their own",
         _ratio(t["posts_alone"], t["posts_scorable"]) if t.get("has_posts_alone") else "–"),
        ("posts judged as a detector unit of their own",
         _ratio(t["posts_alone_units"], t["posts_scorable"])
         if t.get("has_posts_alone_units") else "–"),
        ("segments mixing 2+ posts", _ratio(t["segments_mixing"], t["segments_forum"])),
        ("median s/page (rendered)", _seconds(time_info["median_page_s"])),
        ("median s/page (from capture)", _seconds(time_info["median_from_capture_s"])),
    ]


def _seconds(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def _table(header: list[str], rows: Iterable[Iterable[Any]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return lines


def render_section(label: str, result: dict[str, Any]) -> str:
    """One label's markdown section, between markers that :func:`merge_markdown` finds."""
    t, run = result["totals"], result["run"]
    lines = [f"<!-- section: {label} -->", f"## {label}", "",
             f"Command (from the repository root), {run['date']}, wps {run['commit']}:", "",
             "```", run["command"], "```", "",
             (f"Segmenter `{run['segmenter']}` {json.dumps(run['segmenter_options'])}, config "
              f"`{run['config'] or 'defaults'}`; outputs in `{run['out']}`."), ""]
    lines += _table(["figure", "value"], total_rows(t, result["timing"]))
    if t["prose_on_failed_pages"]:
        lines.append(f"\n{t['prose_on_failed_pages']} prose strings lie on failed pages and "
                     "are not in N.")
    lines += ["", "By page type:", ""]
    lines += _table(["type", "pages", "prose kept", "leaked", "kept chars", "whole/posts (kept)",
                     "mixing/segs"], (_type_row(kind, s) for kind, s in result["by_type"].items()))
    lines += ["", "By page (modes: rendered, from-capture, reused):", ""]
    lines += _table(["page", "type", "prose", "leaks", "kept ch", "kept/segs", "whole/posts",
                     "mix/segs", "s", "mode"],
                    (_page_row(name, page) for name, page in result["pages"].items()))
    lines += ["", "Failed pages: " + (", ".join(
        f"`{f['name']}` ({f['error_class']}, exit {f['exit_code']}: {f['error']})"
        for f in result["failed"]) or "none") + ".", f"<!-- /section: {label} -->"]
    return "\n".join(lines) + "\n"


def _type_row(kind: str, s: dict[str, Any]) -> list[str]:
    posts = (f"{s['posts_whole']}/{s['posts_scorable']} ({s['posts_whole_kept']})"
             if s["forum_pages"] else "–")
    mixing = _ratio(s["segments_mixing"], s["segments_forum"]) if s["forum_pages"] else "–"
    return [kind, f"{s['scored']}/{s['pages']}", _ratio(s["prose_found"], s["prose"]),
            _ratio(s["leaks"], s["not_prose"]), str(s["kept_chars"]), posts, mixing]


def _page_row(name: str, page: dict[str, Any]) -> list[str]:
    run = page["run"]
    if page.get("missing"):
        return [f"`{name}`", page["type"], "missing", "", "", "", "", "", "", run["mode"]]
    posts = "posts" in page
    return [f"`{name}`", page["type"], _ratio(page["prose_found"], page["prose"]),
            _ratio(page["leaks"], page["not_prose"]), str(page["kept_chars"]),
            f"{page['kept_segments']}/{page['segments']}",
            f"{page['posts_whole']}/{page['posts_scorable']} ({page['posts_whole_kept']})"
            if posts else "", f"{page['segments_mixing']}/{page['segments']}" if posts else "",
            _seconds(run["seconds"]), run["mode"]]


HEADER = """# Non-article dev set (nonarticle-dev)

`scripts/benchmark_nonarticle.py` renders the 40 labelled pages of `../shared/nonarticle-dev`
through `wps.segment_to_directory` (one shared Chromium, offline) and scores the output folder
with the data set's own `check.py`. Figures, all from check.py's JSON:

- **prose strings kept**: labelled prose sentences found in the kept `main_text` (higher is better);
- **non-prose strings leaked**: labelled navigation / form / spec / table / forum-chrome strings
  found in the kept `main_text` (lower is better);
- **kept chars on index/login/table pages**: should be near 0;
- **posts whole in one segment**: posts whose body (quotes removed) lies wholly (≥ 0.9 of its
  word 3-grams) in one segment, and how many of those segments are kept;
- **segments mixing 2+ posts**: segments holding ≥ 0.5 of two posts' distinctive 3-grams.

N counts the strings of scored pages only; failed pages are listed in each section.
Seconds are wall time of `segment_to_directory` per page (render, segmentation, main text,
filters, outputs on this machine); "from capture" re-segments a saved capture without rendering.
Each section below is one run label; a rerun replaces only its own label's section.
"""


def comparison(results: dict[str, dict[str, Any]]) -> str:
    """The labels side by side (figures of each label's JSON)."""
    if len(results) < 2:
        return ""
    labels = list(results)
    rows = [total_rows(results[label]["totals"], results[label]["timing"]) for label in labels]
    table = _table(["figure", *labels],
                   ([name, *(r[i][1] for r in rows)] for i, (name, _) in enumerate(rows[0])))
    return "## Comparison\n\n" + "\n".join(table) + "\n"


_SECTION = re.compile(r"<!-- section: (?P<label>[^ ]+) -->\n.*?<!-- /section: (?P=label) -->\n?",
                      re.DOTALL)


def merge_markdown(existing: str, label: str, section: str,
                   results: dict[str, dict[str, Any]] | None = None) -> str:
    """The report with ``label``'s section replaced (or appended); other labels' sections are
    kept as they were, and the comparison table is rebuilt from ``results``."""
    sections = {m.group("label"): m.group(0).rstrip("\n") + "\n"
                for m in _SECTION.finditer(existing)}
    sections[label] = section
    table = comparison({name: results[name] for name in sections if name in (results or {})})
    parts = [HEADER, table, *sections.values()]
    return "\n".join(part for part in parts if part)


def load_results(results_dir: Path) -> dict[str, dict[str, Any]]:
    """Every ``nonarticle-<label>.json`` beside the report, by label."""
    loaded: dict[str, dict[str, Any]] = {}
    for path in sorted(results_dir.glob("nonarticle-*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            loaded[data["run"]["label"]] = data
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return loaded


def write_results(results_dir: Path, label: str, result: dict[str, Any]) -> Path:
    """``nonarticle-<label>.json`` and this label's section of ``nonarticle.md``."""
    results_dir = prepare_output_folder(results_dir)
    write_text_atomic(results_dir / f"nonarticle-{label}.json",
                      json.dumps(result, ensure_ascii=False, indent=1) + "\n")
    report = results_dir / "nonarticle.md"
    existing = report.read_text(encoding="utf-8") if report.is_file() else ""
    text = merge_markdown(existing, label, render_section(label, result),
                          load_results(results_dir))
    write_text_atomic(report, text)
    return report


def git_commit() -> str:
    """The checkout's commit, marked when tracked files differ from it."""
    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=_WPS_ROOT.parent, capture_output=True,
                              text=True, timeout=30, check=False)
        return done.stdout.strip() if done.returncode == 0 else ""

    commit = git("rev-parse", "--short", "HEAD") or "unknown"
    return commit + (" + uncommitted changes" if git("status", "--porcelain",
                                                     "--untracked-files=no") else "")
