"""The non-article dev set (``../shared/nonarticle-dev``) run through wps and scored by its check.py.

The article benchmark only says whether article bodies survive; this set also labels what must
*not* reach the detector (navigation, login forms, spec fields, score tables, forum chrome) and
whether forum posts arrive one per segment. Every page goes through the pipeline users run
(:func:`wps.segment_to_directory`, one shared :class:`~wps.capture.Browser`), so
``OUT/<name>/segments.jsonl`` is exactly what ``wps segment --out`` writes; the data set's own
``check.py`` scores the folder, and its JSON becomes ``eval/results/nonarticle*.{md,json}``.

Reruns are cheap: a page whose outputs were made with the same options and the same wps source is
reused; otherwise it is re-segmented from its saved capture (``OUT/<name>/capture``), and only a
page without a capture (or ``fresh=True``) is rendered again.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from ..errors import DatasetError, InputFileError, UsageError, WpsError
from ..files import check_output_folder, prepare_output_folder, write_text_atomic
from ..pipeline import PipelineOptions

__all__ = ["Dataset", "PageRun", "RunSettings", "aggregate", "load_dataset", "merge_markdown",
           "render_section", "run_check", "run_nonarticle_benchmark", "select_pages",
           "total_rows"]

STATE_FILE = "benchmark-state.json"
REPORT_FILE = "check-report.json"
SEGMENTS_FILE = "segments.jsonl"
CAPTURE_DIR = "capture"
NONARTICLE_TYPES = ("index", "login", "table")
"""Page types whose kept text should be near zero (check.py sums their kept characters)."""
TYPE_ORDER = ("forum-thread", "index", "login", "product", "table", "homepage", "article")
PAGE_FIELDS = ("prose", "prose_found", "not_prose", "leaks", "kept_chars")
FORUM_FIELDS = ("posts", "posts_scorable", "posts_whole", "posts_whole_kept", "segments_mixing",
                "posts_alone")
"""check.py's per-page numbers summed into totals (forum ones only on pages with posts)."""
_LABEL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_WPS_ROOT = Path(__file__).resolve().parent.parent


# ------------------------------------------------------------------------------------ data set
@dataclass(slots=True)
class Dataset:
    root: Path
    labels: dict[str, dict[str, Any]]
    pages: dict[str, Path]

    @property
    def check_script(self) -> Path:
        return self.root / "check.py"

    def page_type(self, name: str) -> str:
        return str(self.labels[name].get("type", "?"))


def load_dataset(data: str | Path) -> Dataset:
    """The labels and page files of a nonarticle-dev folder; anything missing is a DatasetError
    before a browser starts."""
    root = Path(data)
    if not root.is_dir():
        raise DatasetError(f"{root}: no such dataset folder")
    for needed in ("labels.json", "check.py", "pages"):
        if not (root / needed).exists():
            raise DatasetError(f"{root}: not a nonarticle-dev folder (no {needed})")
    try:
        labels = json.loads((root / "labels.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise DatasetError(f"{root / 'labels.json'}: unreadable ({err})") from None
    if not isinstance(labels, dict) or not labels:
        raise DatasetError(f"{root / 'labels.json'}: expected a non-empty JSON object")
    pages = {name: root / "pages" / f"{name}.html.gz" for name in sorted(labels)}
    absent = [name for name, path in pages.items() if not path.is_file()]
    if absent:
        raise DatasetError(f"{root}: no pages/{absent[0]}.html.gz ({len(absent)} page(s) missing)")
    return Dataset(root, labels, pages)


def select_pages(dataset: Dataset, wanted: Iterable[str] | None) -> list[str]:
    """The pages to run, in the data set's order; an unknown name is a usage error."""
    if not wanted:
        return list(dataset.pages)
    wanted = [name.strip() for name in wanted if name.strip()]
    unknown = [name for name in wanted if name not in dataset.pages]
    if unknown:
        raise UsageError(f"--pages: unknown page {unknown[0]!r} (see {dataset.root}/README.md)")
    return [name for name in dataset.pages if name in set(wanted)]


# ----------------------------------------------------------------------------------- pages
@dataclass(slots=True)
class PageRun:
    """What happened to one page in the latest run that touched it."""

    name: str
    mode: str
    """``rendered``, ``from-capture`` (re-segmented), ``reused`` (earlier output) or ``failed``."""
    seconds: float | None = None
    """Wall time of :func:`wps.segment_to_directory` (render included when rendered)."""
    render_s: float | None = None
    """The capture's own ``total_s`` (rendering), when the page was rendered."""
    key: str = ""
    error_class: str = ""
    error: str = ""
    exit_code: int | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PageRun:
        return cls(**{key: data[key] for key in cls.__dataclass_fields__ if key in data})


def code_fingerprint(root: Path = _WPS_ROOT) -> str:
    """A hash of wps's own source: outputs made by other code are not reused as this run's."""
    digest = hashlib.sha1()
    for path in sorted(root.rglob("*")):
        if path.suffix in (".py", ".toml", ".js") and "__pycache__" not in path.parts:
            digest.update(str(path.relative_to(root)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def prepared_options(options: PipelineOptions) -> PipelineOptions:
    """Fail fast on an unknown segmenter or a bad config, and resolve the config once so that
    its content (not its path) keys the reuse of outputs."""
    from ..config import resolve_config

    options.build_segmenter()
    return replace(options, config=resolve_config(options.config, options.extractor))


def run_key(options: PipelineOptions) -> str:
    return f"{options.output_key()}-{code_fingerprint()}"


def load_state(out: Path) -> dict[str, PageRun]:
    path = out / STATE_FILE
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return {name: PageRun.from_json(item) for name, item in data.items()}
    except (OSError, ValueError, TypeError, AttributeError):
        return {}  # a damaged state only costs re-segmenting


def save_state(out: Path, state: dict[str, PageRun]) -> None:
    data = {name: asdict(run) for name, run in sorted(state.items())}
    write_text_atomic(out / STATE_FILE, json.dumps(data, ensure_ascii=False, indent=1))


def plan_page(name: str, out: Path, key: str, previous: PageRun | None, *, fresh: bool,
              captures: Path | None) -> tuple[str, Path | None]:
    """How to make this page's output: (``reused`` | ``from-capture`` | ``rendered``, source)."""
    page_out = out / name
    if captures is not None:
        if fresh or not _is_current(page_out, key, previous):
            return "from-capture", captures / name / CAPTURE_DIR
        return "reused", None
    if fresh:
        return "rendered", None
    if _is_current(page_out, key, previous):
        return "reused", None
    if (page_out / CAPTURE_DIR / "capture.json").is_file():
        return "from-capture", page_out / CAPTURE_DIR
    return "rendered", None


def _is_current(page_out: Path, key: str, previous: PageRun | None) -> bool:
    return ((page_out / SEGMENTS_FILE).is_file() and previous is not None
            and previous.mode != "failed" and previous.key == key)


def process_page(name: str, page_file: Path, out: Path, options: PipelineOptions, key: str,
                 mode: str, source: Path | None, browser: Any) -> PageRun:
    """Run one page through :func:`wps.segment_to_directory`; a failure is recorded, not raised."""
    from ..pipeline import segment_to_directory

    page_out = out / name
    started = time.perf_counter()
    try:
        if mode == "from-capture":
            if source is None or not (source / "capture.json").is_file():
                raise InputFileError(f"{source}: no capture to re-segment (render it first)")
            result = segment_to_directory(source, page_out, options)
        else:
            result = segment_to_directory(page_file, page_out, options, browser=browser)
    except WpsError as err:
        return _failed(name, page_out, err, err.exit_code)
    except Exception as err:  # noqa: BLE001 - a bug on one page must not lose the others
        return _failed(name, page_out, err, 1)
    seconds = round(time.perf_counter() - started, 3)
    render_s = result.capture.timings.get("total_s") if mode == "rendered" else None
    return PageRun(name, mode, seconds, render_s, key)


def _failed(name: str, page_out: Path, err: BaseException, code: int) -> PageRun:
    """Record the failure and remove a stale ``segments.jsonl``, so check.py does not score an
    older run's output as this one's (the capture stays for the next try)."""
    (page_out / SEGMENTS_FILE).unlink(missing_ok=True)
    lines = str(err).strip().splitlines()
    return PageRun(name, "failed", error_class=type(err).__name__,
                   error=lines[0] if lines else repr(err), exit_code=code)


def run_pages(dataset: Dataset, names: list[str], out: Path, options: PipelineOptions, *,
              fresh: bool = False, captures: Path | None = None,
              progress: bool = True) -> dict[str, PageRun]:
    """Make every selected page's output with one shared browser (started only when a page needs
    rendering); the state file is saved after each page, so an interrupted run resumes."""
    key = run_key(options)
    state = load_state(out)
    browser = None
    try:
        for name in _progress(names, progress):
            mode, source = plan_page(name, out, key, state.get(name), fresh=fresh,
                                     captures=captures)
            if mode == "reused":
                state[name] = replace(state[name], mode="reused")
                continue
            if mode == "rendered" and browser is None:
                from ..capture import Browser

                browser = Browser(restart_every=20)
            state[name] = process_page(name, dataset.pages[name], out, options, key, mode,
                                       source, browser)
            save_state(out, state)
    finally:
        if browser is not None:
            browser.close()
    save_state(out, state)
    return {name: state[name] for name in names}


def _progress(items: list[str], enabled: bool) -> Iterable[str]:
    if not enabled:
        return items
    from tqdm import tqdm

    return tqdm(items, desc="nonarticle", unit="page")


# ----------------------------------------------------------------------------------- scoring
def run_check(dataset: Dataset, out: Path) -> dict[str, Any]:
    """The data set's own scorer, run as its README says; its JSON report."""
    report_path = out / REPORT_FILE
    command = [sys.executable, str(dataset.check_script), str(out), "--json", str(report_path),
               "--quiet"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900, check=False)
    if done.returncode != 0 or not report_path.is_file():
        lines = (done.stderr or done.stdout).strip().splitlines()
        cause = lines[-1] if lines else f"exit status {done.returncode}"
        raise InputFileError(f"{dataset.check_script}: failed on {out} ({cause})")
    return json.loads(report_path.read_text(encoding="utf-8"))


def add_posts_alone(dataset: Dataset, out: Path, report: dict[str, Any]) -> None:
    """Add ``posts_alone`` to each forum page of check.py's report: posts whole in a kept
    segment that holds no other post (the issue's "each kept as a segment of its own"), by
    check.py's own matching (its word 3-grams, coverage thresholds and quote removal)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("nonarticle_check", dataset.check_script)
    assert spec is not None and spec.loader is not None
    check = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(check)
    for name, entry in report["pages"].items():
        posts = dataset.labels.get(name, {}).get("posts")
        path = out / name / "segments.jsonl"
        if not posts or entry.get("missing") or not path.is_file():
            continue
        bodies = check.post_bodies(check.parse_page(dataset.root / "pages" / f"{name}.html.gz"),
                                   posts)
        entry["posts_alone"] = count_posts_alone(check, bodies, check.load_segments(path))


def count_posts_alone(check: Any, bodies: list[str], segments: list[dict[str, Any]]) -> int:
    def grams(text: str, n: int = 3) -> set[tuple[str, ...]]:
        found: set[tuple[str, ...]] = set()
        for piece in text.split(check.GAP):
            w = check.words(piece)
            found |= {tuple(w[i:i + n]) for i in range(len(w) - n + 1)} if len(w) >= n \
                else ({tuple(w)} if w else set())
        return found

    body_grams = [grams(body, min(3, len(check.words(body)))) for body in bodies]
    seg_words = [check.words(check.norm(s.get("text") or "")) for s in segments]
    seg_grams: dict[int, list[set[tuple[str, ...]]]] = {}

    def grams_of_segments(n: int) -> list[set[tuple[str, ...]]]:
        """Every segment's word n-grams, built once per n (as check.py's forum_stats does)."""
        if n not in seg_grams:
            seg_grams[n] = [check.ngrams(w) if n == 3 else
                            {tuple(w[k:k + n]) for k in range(len(w) - n + 1)}
                            for w in seg_words]
        return seg_grams[n]

    count: dict[tuple[str, ...], int] = {}
    for g in body_grams:
        for x in g:
            count[x] = count.get(x, 0) + 1
    distinct = [{x for x in g if count[x] == 1} for g in body_grams]
    alone = 0
    for i, g in enumerate(body_grams):
        if not g:
            continue
        n = min(3, len(check.words(bodies[i])))
        for j, sg in enumerate(grams_of_segments(n)):
            if not segments[j].get("kept") or len(g & sg) / len(g) < check.WHOLE_COVERAGE:
                continue
            sg3 = grams_of_segments(3)[j]
            others = sum(1 for k, d in enumerate(distinct) if k != i
                         and len(d) >= check.MIX_MIN_NGRAMS
                         and len(d & sg3) / len(d) >= check.MIX_COVERAGE)
            if not others:
                alone += 1
                break
    return alone


def aggregate(entries: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """check.py's per-page numbers summed over ``entries`` (the same sums check.py's total
    makes, restricted to the pages of this run)."""
    total = dict.fromkeys(("pages", "scored", *PAGE_FIELDS, "forum_pages", *FORUM_FIELDS,
                           "segments_forum"), 0)
    for entry in entries:
        total["pages"] += 1
        if entry.get("missing"):
            continue
        total["scored"] += 1
        for key in PAGE_FIELDS:
            total[key] += entry[key]
        if "posts" in entry:
            total["forum_pages"] += 1
            total["segments_forum"] += entry["segments"]
            for key in FORUM_FIELDS:
                total[key] += entry.get(key, 0)
            total["has_posts_alone"] = total.get("has_posts_alone", False) or \
                "posts_alone" in entry  # runs before the figure existed show "–"
    return total


def figures(dataset: Dataset, names: list[str], report: dict[str, Any],
            runs: dict[str, PageRun]) -> dict[str, Any]:
    """Totals, per-type sums, per-page rows, failures and timing of one run."""
    pages = {name: {**report["pages"].get(name, {"missing": True}),
                    "type": dataset.page_type(name), "run": asdict(runs[name])}
             for name in names}
    by_type = {kind: aggregate(pages[n] for n in names if dataset.page_type(n) == kind)
               for kind in _types(dataset, names)}
    totals = aggregate(pages.values())
    totals["kept_chars_nonarticle"] = sum(by_type.get(kind, {}).get("kept_chars", 0)
                                          for kind in NONARTICLE_TYPES)
    totals["nonarticle_pages"] = sum(by_type.get(kind, {}).get("scored", 0)
                                     for kind in NONARTICLE_TYPES)
    failed = [asdict(run) for run in runs.values() if run.mode == "failed"]
    totals["prose_on_failed_pages"] = sum(len(dataset.labels[run["name"]].get("prose", []))
                                          for run in failed)
    return {"totals": totals, "by_type": by_type, "pages": pages, "failed": failed,
            "timing": timing(runs.values())}


def _types(dataset: Dataset, names: list[str]) -> list[str]:
    present = {dataset.page_type(name) for name in names}
    return [kind for kind in TYPE_ORDER if kind in present] + sorted(present - set(TYPE_ORDER))


def timing(runs: Iterable[PageRun]) -> dict[str, Any]:
    """Median seconds per page, by how the page was made (the last measurement of each)."""
    runs = list(runs)
    rendered = [r.seconds for r in runs if r.render_s is not None and r.seconds is not None]
    renders = [r.render_s for r in runs if r.render_s is not None]
    segmented = [r.seconds for r in runs if r.render_s is None and r.seconds is not None]
    return {
        "median_page_s": _median(rendered),
        "median_render_s": _median(renders),
        "median_from_capture_s": _median(segmented),
        "pages_timed_rendered": len(rendered),
        "pages_timed_from_capture": len(segmented),
        "modes": {mode: sum(r.mode == mode for r in runs)
                  for mode in ("rendered", "from-capture", "reused", "failed")},
    }


def _median(values: list[float]) -> float | None:
    return round(statistics.median(values), 2) if values else None


# ----------------------------------------------------------------------------------- report
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


# ------------------------------------------------------------------------------------ driver
@dataclass(slots=True)
class RunSettings:
    """Where things go and what the run is called (everything but the pipeline options)."""

    data: Path
    out: Path
    label: str
    results_dir: Path
    pages: list[str] | None = None
    fresh: bool = False
    captures: Path | None = None
    command: str = ""
    config_name: str | None = None
    progress: bool = True


def run_nonarticle_benchmark(settings: RunSettings, options: PipelineOptions) -> dict[str, Any]:
    """Render/segment the selected pages, score them with check.py, write the label's results."""
    if not _LABEL.match(settings.label):
        raise UsageError(f"--label {settings.label!r}: use letters, digits, '.', '_', '-'")
    dataset = load_dataset(settings.data)
    names = select_pages(dataset, settings.pages)
    options = prepared_options(options)
    check_output_folder(settings.results_dir)
    out = prepare_output_folder(settings.out)
    if settings.captures is not None and not settings.captures.is_dir():
        raise InputFileError(f"{settings.captures}: no such folder of page outputs "
                             "(--from-captures)")
    runs = run_pages(dataset, names, out, options, fresh=settings.fresh,
                     captures=settings.captures, progress=settings.progress)
    report = run_check(dataset, out)
    add_posts_alone(dataset, out, report)
    result = figures(dataset, names, report, runs)
    result["run"] = {
        "label": settings.label, "command": settings.command,
        "date": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": git_commit(), "code_fingerprint": code_fingerprint(),
        "data": str(settings.data), "out": str(settings.out),
        "from_captures": None if settings.captures is None else str(settings.captures),
        "segmenter": options.segmenter, "segmenter_options": options.segmenter_options,
        "config": settings.config_name, "pages": len(names),
        "check_total": report.get("total", {}),
    }
    write_results(settings.results_dir, settings.label, result)
    return result

