"""The detector-input benchmark's run: the three public sets loaded with their captures (reused
from a captures folder or the render cache, rendered once otherwise), scored by
:mod:`.detector`, written to ``eval/results/detector-<label>.json`` and ``detector.md``."""

from __future__ import annotations

import datetime as _dt
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..files import write_text_atomic
from ..model import PageCapture
from .article_data import load_benchmark, read_html
from .detector import (
    ALL_SETS_ROW,
    FOLDS,
    GRID,
    DevPage,
    DevSet,
    article_site,
    cross_validate_labels,
    cross_validate_reference,
    nonarticle_site,
    prepare_pages,
    readability_site,
)
from .detector_fit import FIT_GRID, CandidateScores, cross_validate_all_sets
from .nonarticle_data import load_dataset

__all__ = ["DetectorSettings", "render_markdown", "run_detector_benchmark"]

SET_NAMES = ("readability-dev", "article-benchmark", "nonarticle-dev")


@dataclass(slots=True)
class DetectorSettings:
    readability: Path | None
    articles: Path | None
    nonarticle: Path | None
    cache: Path
    """Render cache: ``cache/<set>/<page>/capture.json`` (rendered once, scripts removed)."""
    work: Path
    """Scratch folder for check.py's inputs."""
    results: Path
    label: str
    captures: list[Path]
    """Folders searched first for ``<page>/capture.json`` or ``<page>/capture/capture.json``."""
    segmenter: str = "dom-cohesion"
    folds: int = FOLDS
    progress: bool = True
    command: str = ""


def load_sets(settings: DetectorSettings) -> list[DevSet]:
    sets = []
    if settings.readability is not None:
        root = settings.readability
        names = sorted(p.name[:-len(".html.gz")] for p in (root / "pages").glob("*.html.gz"))
        files = {name: root / "pages" / f"{name}.html.gz" for name in names}
        gold = {name: (root / "expected" / f"{name}.txt").read_text(encoding="utf-8")
                for name in names}
        sets.append(DevSet("readability-dev", _pages(files, gold, settings, "readability-dev"),
                           readability_site, "reference", root))
    if settings.articles is not None:
        truth, files = load_benchmark(settings.articles)
        gold = {key: truth[key].get("articleBody") or "" for key in files}
        sets.append(DevSet("article-benchmark", _pages(files, gold, settings, "articles"),
                           article_site, "reference", Path(settings.articles)))
    if settings.nonarticle is not None:
        root = settings.nonarticle
        labels = json.loads((root / "labels.json").read_text(encoding="utf-8"))
        files = {name: root / "pages" / f"{name}.html.gz" for name in sorted(labels)}
        sets.append(DevSet("nonarticle-dev", _pages(files, {}, settings, "nonarticle-dev"),
                           nonarticle_site, "labels", root))
    return sets


def _pages(files: dict[str, Path], gold: dict[str, str], settings: DetectorSettings,
           cache_name: str) -> list[DevPage]:
    """Each page with its capture: found in a captures folder, else from the render cache."""
    from .articles import cached_captures

    captures: dict[str, PageCapture | None] = {}
    errors: dict[str, str] = {}
    missing = {}
    index = capture_index(settings.captures)
    for name, path in files.items():
        found = index.get(name)
        if found is not None:
            captures[name] = PageCapture.load(found)
        else:
            missing[name] = path
    for name, capture, error in cached_captures(missing, settings.cache / cache_name,
                                                progress=settings.progress):
        captures[name], errors[name] = capture, error
    return [DevPage(name, captures.get(name), read_html(path), gold.get(name, ""),
                    error=errors.get(name, "")) for name, path in files.items()]


def capture_index(folders: list[Path]) -> dict[str, Path]:
    """Page name → capture folder, for every capture under ``folders`` (``<dir>/capture.json`` or
    ``<dir>/capture/capture.json``): named by its folder, and by the file its URL names
    (``.../pages/bbc-1.html.gz`` is ``bbc-1``), so captures saved under any id are found."""
    index: dict[str, Path] = {}
    for folder in folders:
        for capture_json in sorted([*folder.glob("*/capture.json"),
                                    *folder.glob("*/capture/capture.json")]):
            capture_dir = capture_json.parent
            page_dir = capture_dir.parent if capture_dir.name == "capture" else capture_dir
            index.setdefault(page_dir.name, capture_dir)
            url = _header_url(capture_json)
            if url:
                name = url.rsplit("/", 1)[-1]
                for suffix in (".gz", ".html", ".htm"):
                    name = name.removesuffix(suffix)
                index.setdefault(name, capture_dir)
    return index


_URL = re.compile(r'"url":\s*"([^"]*)"')


def _header_url(capture_json: Path) -> str:
    """The ``url`` near the start of a capture file (read without parsing the whole file)."""
    with open(capture_json, encoding="utf-8", errors="replace") as handle:
        found = _URL.search(handle.read(4096))
    return found.group(1) if found else ""


def run_detector_benchmark(settings: DetectorSettings) -> dict[str, Any]:
    """Score every set; write ``detector-<label>.json`` and regenerate ``detector.md``."""
    from ..config import load_config
    from ..decide.step import DecisionRules

    configs = {"detector": load_config(None, "detector"), "article": load_config(None, "article")}
    base = DecisionRules.from_config(configs["detector"]["decide"])
    result: dict[str, Any] = {
        "label": settings.label, "command": settings.command, "grid": GRID,
        "date": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": _commit(), "sets": {}}
    sets = load_sets(settings)
    for dev in sets:
        prepare_pages(dev.pages, configs, settings.segmenter, settings.progress)
        if dev.kind == "reference":
            scores = cross_validate_reference(dev, base, settings.folds)
        else:
            scores = cross_validate_labels(dev, base, settings.work / dev.name, settings.folds)
        scores["failed"] = {page.name: page.error for page in dev.pages if page.error}
        result["sets"][dev.name] = scores
    if len(sets) > 1:
        datasets = {dev.name: load_dataset(dev.root) for dev in sets if dev.kind == "labels"}
        joint = cross_validate_all_sets(
            sets, base, CandidateScores(sets, datasets, settings.work / "all-sets"),
            settings.folds)
        for name, row in joint.pop("sets").items():
            result["sets"][name][ALL_SETS_ROW] = row
        result["all_sets"] = {"grid": FIT_GRID, **joint}
    settings.results.mkdir(parents=True, exist_ok=True)
    write_text_atomic(settings.results / f"detector-{settings.label}.json",
                      json.dumps(result, ensure_ascii=False, indent=1))
    write_text_atomic(settings.results / "detector.md", render_markdown(settings.results))
    return result


def _commit() -> str:
    import subprocess

    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True, cwd=Path(__file__).resolve().parent, check=False)
    return done.stdout.strip()


def render_markdown(results: Path) -> str:
    """``detector.md`` from every ``detector-<label>.json`` in ``results``, oldest first."""
    runs = [json.loads(path.read_text(encoding="utf-8"))
            for path in results.glob("detector-*.json")]
    runs.sort(key=lambda run: run["date"])
    lines = [HEADER]
    for set_name in SET_NAMES:
        present = [run for run in runs if set_name in run["sets"]]
        if not present:
            continue
        lines += [f"## {set_name}", ""]
        if set_name == "nonarticle-dev":
            lines += [("| run | rows | prose kept | leaks | posts alone | posts alone in a unit "
                       "| kept chars on index/login/table pages |"),
                      "|---|---|---|---|---|---|---|"]
        else:
            lines += [("| run | rows | P | R | F1 | pages under 0.5 | recall, headings aside "
                       "| P / F1, posts aside | P / R / F1 by design | recall of one unit |"),
                      "|---|---|---|---|---|---|---|---|---|---|"]
        for run in present:
            scores = run["sets"][set_name]
            for row in ("detector (held out)", ALL_SETS_ROW, "detector (packaged defaults)",
                        "article", "trafilatura"):
                if row in scores:
                    lines.append(_row(run, row, scores[row], set_name))
        lines.append("")
        for run in present:
            scores = run["sets"][set_name]
            under = scores.get("detector (held out)", {}).get("under_half")
            lines.append(f"- {run['label']} ({run['date']}, wps {run['commit']}): thresholds "
                         f"chosen per fold: {_choices(scores['chosen'])}"
                         + (f"; detector pages under 0.5: "
                            f"{', '.join(n[:12] for n in under) or 'none'}"
                            if under is not None else "")
                         + (f"; failed pages: {scores['failed']}" if scores.get("failed")
                            else ""))
        lines.append("")
    fitted = [run for run in runs if "all_sets" in run]
    if fitted:
        lines += ["## Thresholds fitted on all sets at once", ""]
        for run in fitted:
            joint = run["all_sets"]
            lines.append(f"- {run['label']} ({run['date']}, wps {run['commit']}): per fold, on the "
                         f"other folds' pages of every set: {_choices(joint['chosen'])}; on every "
                         f"page: {_fields_text(joint['fitted'])} ({joint['evaluated']} "
                         "candidates decided)")
        lines.append("")
    for run in runs:
        lines.append(f"- `{run['label']}`: `{run['command']}`")
    return "\n".join(lines) + "\n"


def _choices(chosen: list[dict[str, Any]]) -> str:
    """``a=1, b=2`` ×3; ... : each distinct choice once, with how many folds made it."""
    counts: dict[str, int] = {}
    for choice in chosen:
        key = _fields_text(choice)
        counts[key] = counts.get(key, 0) + 1
    return "; ".join(f"{key} (×{count})" for key, count in counts.items())


def _fields_text(fields: dict[str, Any]) -> str:
    return ", ".join(f"{name}={value}" for name, value in fields.items())


def _row(run: dict[str, Any], row: str, s: dict[str, Any], set_name: str) -> str:
    if set_name == "nonarticle-dev":
        units = (f"{s['posts_alone_units']}/{s['posts']}" if "posts_alone_units" in s
                 else "–")  # runs before units existed have none
        return (f"| {run['label']} | {row} | {s['prose_found']}/{s['prose']} | "
                f"{s['leaks']}/{s['not_prose']} | {s.get('posts_alone', 0)}/{s['posts']} | "
                f"{units} | {s['kept_chars_nonarticle']} |")
    aside = s.get("posts_aside")  # runs before it was measured have none
    aside_cell = f"{aside['precision']:.3f} / {aside['f1']:.3f}" if aside else "–"
    design = s.get("by_design")  # likewise
    design_cell = ("–" if not design else
                   f"{design['precision']:.3f} / {design['recall']:.3f} / {design['f1']:.3f}")
    unit = s.get("unit_recall")  # detector rows since units exist
    return (f"| {run['label']} | {row} | {s['precision']:.3f} | {s['recall']:.3f} | "
            f"{s['f1']:.3f} | {len(s['under_half'])} | {s['body_recall']:.3f} | {aside_cell} | "
            f"{design_cell} | {'–' if unit is None else f'{unit:.3f}'} |")


HEADER = """# The detector's input on the public dev sets (held out by site)

Written by `scripts/benchmark_detector.py` (`wps/benchmark/detector.py`). What is scored is the
detector's input: the kept segments' `main_text` in file order. Per set: the detector profile
(the default) with the decision's thresholds chosen per fold on the other folds' pages
(`GroupKFold`-style folds over sites: readability-dev site = name without `-N`, nonarticle-dev
site = host part of the name, article benchmark: one page each), the detector profile with the
packaged thresholds (for reference), the detector profile "held out, all sets": seven thresholds
(`FIT_GRID` of `wps/benchmark/detector_fit.py`) fitted by coordinate ascent from the packaged
defaults on every set's pages at once, folds grouped by site across the sets, fitting the mean of
each set's own figure (readability-dev: page F1; article benchmark: page recall with headings
aside; nonarticle-dev: prose recall less leak rate less kept characters on pages without prose),
the article profile (`--profile article`; no thresholds
fitted here, but its block model was trained on the article benchmark's pages, so its article
benchmark row is in-sample) and trafilatura's default extraction of the same page file.

readability-dev and the article benchmark: macro precision, recall and F1 of 4-gram shingles
against the reference (the metric of `readability-dev/score.py`), pages with F1 under 0.5, and
recall against the reference with the lines that are the page's headings aside (from
`main-s15` on, aside on both sides: the kept text's heading lines too, since the detector keeps
an article's section headings in place, and a heading between two paragraphs would break the
reference's 4-grams across it); for the
detector rows also precision and F1 with the pieces of posts aside (comments and answers, which
the detector keeps by design, each on its own, and an article's reference text leaves out);
and "by design": every row against the reference without its heading lines and its lines that
stand in a `pre` or `code` block of the page (what the detector leaves out by design: a title
and headings alone are not prose, programs are not writing; from `main-s15` on, headings aside on
both sides), the detector rows with posts aside. Prose set in `pre`
(a plain-text document) is aside there too: the by-design figure does not measure it.
nonarticle-dev: its `check.py` (prose strings kept, non-prose strings leaked, posts whole in a
kept segment holding no other post, kept characters on index/login/table pages); trafilatura's
text counts as one kept segment per page.

Detector units (`wps/decide/units.py`): `wps binoculars` judges the kept pieces of a page's
article as one text, and each post as one. "Recall of one unit" is the macro recall of the
page's largest unit alone (what one verdict covers; before units, one segment was one verdict);
"posts alone in a unit" counts the posts whole in a unit that holds no other post.
"""
