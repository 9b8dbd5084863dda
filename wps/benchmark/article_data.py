"""The article-extraction benchmark's data and metric: its pages and gold bodies, and the scoring
of its ``evaluate.py`` as its README describes (case-sensitive ``\\w+`` tokens, multisets of 4-token
shingles, per-page normalised tp/fp/fn, macro precision and recall, F1 of the two means).

Apart from :mod:`wps.benchmark.articles` (the run) so that the article-body model's training
(:mod:`wps.benchmark.article_training`) reads the same pages and metric without importing the run, which
fits that model per fold.
"""

from __future__ import annotations

import gzip
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InputFileError
from ..files import read_json
from ..page.markup import parse_document

__all__ = ["Score", "tokens", "shingles", "page_counts", "score_predictions", "load_benchmark",
           "read_html", "without_scripts"]

_TOKEN = re.compile(r"\w+", re.IGNORECASE | re.UNICODE)
SHINGLE = 4


@dataclass(slots=True)
class Score:
    precision: float
    recall: float
    f1: float
    accuracy: float
    pages: int

    def to_json(self) -> dict[str, float | int]:
        return {"precision": round(self.precision, 4), "recall": round(self.recall, 4),
                "f1": round(self.f1, 4), "accuracy": round(self.accuracy, 4),
                "pages": self.pages}


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text or "")


def shingles(text: str, n: int = SHINGLE) -> Counter[tuple[str, ...]]:
    """Multiset of ``n``-token shingles; fewer than ``n`` tokens give one shingle of them all."""
    words = tokens(text)
    if not words:
        return Counter()
    if len(words) < n:
        return Counter([tuple(words)])
    return Counter(tuple(words[i:i + n]) for i in range(len(words) - n + 1))


def page_counts(truth: str, prediction: str) -> tuple[float, float, float]:
    """Normalised (tp, fp, fn) of one page: each page weighs the same."""
    expected, predicted = shingles(truth), shingles(prediction)
    tp = fp = fn = 0
    for key in expected.keys() | predicted.keys():
        true_count, predicted_count = expected[key], predicted[key]
        tp += min(true_count, predicted_count)
        fp += max(0, predicted_count - true_count)
        fn += max(0, true_count - predicted_count)
    total = tp + fp + fn
    if total > 0:
        return tp / total, fp / total, fn / total
    return 0.0, 0.0, 0.0


def score_predictions(truth: dict[str, dict[str, Any]],
                      predictions: dict[str, dict[str, Any]]) -> Score:
    """The benchmark's precision, recall, F1 and accuracy over the ground truth's pages."""
    if "output" in predictions and isinstance(predictions.get("output"), dict):
        predictions = predictions["output"]
    precisions: list[float] = []
    recalls: list[float] = []
    exact = 0
    for key, item in truth.items():
        if key not in predictions:
            raise InputFileError(f"predictions: no entry for page {key}")
        true_text = item.get("articleBody") or ""
        predicted_text = predictions[key].get("articleBody") or ""
        tp, fp, fn = page_counts(true_text, predicted_text)
        if tp + fp > 0:
            precisions.append(1.0 if fp == 0 and fn == 0 else tp / (tp + fp))
        if tp + fn > 0:
            recalls.append(1.0 if fp == 0 and fn == 0 else tp / (tp + fn))
        exact += tokens(true_text) == tokens(predicted_text)
    precision = sum(precisions) / len(precisions) if precisions else 0.0
    recall = sum(recalls) / len(recalls) if recalls else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return Score(precision, recall, f1, exact / len(truth) if truth else 0.0, len(truth))


def load_benchmark(data: str | Path) -> tuple[dict[str, dict[str, Any]], dict[str, Path]]:
    """Ground truth and the HTML file of each page of a folder in the benchmark's layout."""
    data = Path(data)
    truth = read_json(data / "ground-truth.json", "ground truth",
                      missing=f"{data}: no ground-truth.json (not a benchmark folder)")
    files: dict[str, Path] = {}
    for key in truth:
        path = data / "html" / f"{key}.html.gz"
        if not path.is_file():
            raise InputFileError(f"{data}: page {key} has no html/{key}.html.gz")
        files[key] = path
    return truth, files


def read_html(path: Path) -> str:
    """The page's text: UTF-8 where it is valid UTF-8, else in the encoding trafilatura's
    ``decode_file`` finds (a page saved as ISO-8859-1, as one of nonarticle-dev's is, came out
    with U+FFFD for every umlaut, and its posts no longer matched their labels)."""
    from trafilatura.utils import decode_file

    with gzip.open(path, "rb") as handle:
        return decode_file(handle.read())


def without_scripts(html: str) -> str:
    """``html`` with its scripts removed and declared as UTF-8.

    The benchmark's pages were saved by a browser with JavaScript disabled; their scripts, run
    again from a local file, navigate some pages away (ad-block recovery redirects) or blank
    them. Removing them renders the page as it was fetched.
    """
    import lxml.html

    root = parse_document(html)
    if root is None:
        return html
    for element in list(root.iter("script")):
        element.drop_tree()  # keeps the tail text
    for meta in list(root.iter("meta")):
        if meta.get("charset") or (meta.get("http-equiv") or "").lower() == "content-type":
            meta.drop_tree()
    head = root.find("head")
    if head is None:
        head = lxml.html.Element("head")
        root.insert(0, head)
    head.insert(0, lxml.html.Element("meta", charset="utf-8"))
    return "<!DOCTYPE html>\n" + lxml.html.tostring(root, encoding="unicode")
