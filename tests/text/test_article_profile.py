"""The article-body profile: its block decision (real trafilatura on real benchmark pages), the
packaged model, the fallback, profile selection, and `wps segment --profile article` end to end."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from wps.article_body.blocks import FEATURES, block_features, extract_runs, walk_blocks
from wps.article_body.body import article_body, choose_blocks
from wps.article_body.model import BlockModel, load_block_model, using_block_model
from wps.benchmark.articles import load_benchmark, page_counts, read_html, without_scripts
from wps.cli import main
from wps.config import load_config, profile_config
from wps.errors import UsageError
from wps.text.extract import ExtractOptions, extract_main_text

REPO = Path(__file__).resolve().parents[2]
CBS = "9a440270"  # cbssports article followed by a "latest" box of linked story teasers


def benchmark_page(folder: Path, prefix: str) -> tuple[str, str]:
    truth, files = load_benchmark(folder)
    key = next(k for k in truth if k.startswith(prefix))
    return without_scripts(read_html(files[key])), truth[key]["articleBody"]


def scores(truth: str, prediction: str) -> tuple[float, float]:
    tp, fp, fn = page_counts(truth, prediction)
    return tp / (tp + fp), tp / (tp + fn)


def test_loose_text_is_a_block_of_its_own() -> None:
    import trafilatura

    html = ("<html><body><article><h2>PS4 controller for $39.99</h2>The price of one of the "
            "controllers has dropped to Black Friday levels, and the Crystal is the best looking "
            "of them all.<p>A second paragraph of the deal, long enough to be kept as text by "
            "the extractor.</p></article></body></html>")
    body = trafilatura.bare_extraction(html, favor_recall=True, with_metadata=False).body
    blocks = walk_blocks(body)
    texts = [b.text for b in blocks]
    assert any(t.startswith("The price of one") for t in texts)  # a tail, not inside a leaf
    assert [b.kind for b in blocks][:1] == ["head"]


def test_the_three_runs_share_one_parse_and_each_sees_the_page_whole(
        article_benchmark: Path) -> None:
    # extract_runs parses a page once and hands the tree to trafilatura's three runs, which must
    # each work on a copy (trafilatura prunes and rewrites the tree it extracts from): a version
    # of trafilatura that works in place would hand the second run what the first left.
    import lxml.html
    import trafilatura
    from trafilatura.utils import load_html

    html, _ = benchmark_page(article_benchmark, CBS)
    tree = load_html(html)
    before = lxml.html.tostring(tree)
    alone = [trafilatura.bare_extraction(html, with_metadata=False, **settings).body
             for settings in ({"favor_recall": True}, {}, {"favor_precision": True})]
    shared = [trafilatura.bare_extraction(tree, with_metadata=False, **settings).body
              for settings in ({"favor_recall": True}, {}, {"favor_precision": True})]
    assert lxml.html.tostring(tree) == before
    assert [lxml.html.tostring(body) for body in shared] == \
        [lxml.html.tostring(body) for body in alone]


def test_article_body_drops_teasers_and_beats_trafilatura(article_benchmark: Path) -> None:
    html, gold = benchmark_page(article_benchmark, CBS)
    runs = extract_runs(html)
    assert runs.blocks and len(runs.elements) == len(runs.blocks)
    rows = block_features(runs)
    assert len(rows) == len(runs.blocks) and all(len(r) == len(FEATURES) for r in rows)
    text = extract_main_text(html, None, ExtractOptions(extractor="article")).text
    assert "Wales (Group E): Second appearance" in text
    assert "Pochettino fired by Tottenham" not in text  # a teaser after the body
    precision, recall = scores(gold, text)
    import trafilatura

    plain = trafilatura.extract(html, include_comments=False) or ""
    assert precision > scores(gold, plain)[0] and recall >= 0.95


def test_fallback_keeps_the_default_run_when_the_decision_keeps_nothing(
        article_benchmark: Path) -> None:
    html, _ = benchmark_page(article_benchmark, CBS)
    runs = extract_runs(html)
    rows = block_features(runs)
    counts = [len(b.tokens) for b in runs.blocks]
    chosen, fallback = choose_blocks(rows, [0.0] * len(rows), counts, 0.5)
    in_default = FEATURES.index("in_default")
    assert fallback and chosen == [i for i, r in enumerate(rows) if r[in_default] >= 0.5]
    chosen, fallback = choose_blocks(rows, [1.0] * len(rows), counts, 0.5)
    assert not fallback and chosen == list(range(len(rows)))
    # The same through the extractor: a model that never says "body" gives the default run.
    never = BlockModel(list(FEATURES), -30.0, 0.1, [], 0.5, {})
    with using_block_model(never):
        body = article_body(html)
    assert body.fallback and body.blocks
    assert load_block_model() is not never  # the packaged model is back


def test_packaged_model_evaluates_like_scikit_learn() -> None:
    sklearn = pytest.importorskip("sklearn.ensemble")
    model = load_block_model()
    assert model.features == list(FEATURES) and model.trees and model.threshold == 0.5
    assert model.meta["held_out"]["pooled"]["f1"] > 0.96
    rows = [[(i * 7 + j * 3) % 5 / 4 for j in range(4)] for i in range(200)]
    labels = [row[0] + row[1] > 0.9 for row in rows]
    fitted = sklearn.GradientBoostingClassifier(n_estimators=20, max_depth=2,
                                                random_state=0).fit(rows, labels)
    ours = BlockModel.from_sklearn(fitted, ["a", "b", "c", "d"], 0.5)
    again = BlockModel.from_json(json.loads(json.dumps(ours.to_json())))
    expected = fitted.predict_proba(rows)[:, 1]
    assert all(math.isclose(again.probability(row), p, abs_tol=1e-9)
               for row, p in zip(rows, expected, strict=True))


def test_a_pages_blocks_taken_together_get_each_its_own_probability() -> None:
    # The article extractor scores a page's blocks in one pass; each must get exactly what its
    # row alone gets, rows that sit on a split's threshold included (they go left).
    model = load_block_model()
    random = np.random.default_rng(7)
    rows = random.uniform(-1, 40, size=(300, len(model.features))).round(1).tolist()
    for tree in model.trees[:50]:
        for node, feature in enumerate(tree.feature):
            if tree.left[node] >= 0:
                row = list(rows[node % len(rows)])
                row[feature] = tree.threshold[node]
                rows.append(row)
    assert model.probabilities(rows) == [model.probability(row) for row in rows]
    assert model.probabilities([]) == []


def test_profiles_and_config_files(tmp_path: Path) -> None:
    detector, article = profile_config(), profile_config("article")
    assert detector["extract"]["extractor"] == "trafilatura"
    assert detector["extract"]["include_comments"] is True and detector["decide"]["enabled"]
    assert article["extract"] == {**detector["extract"], "extractor": "article",
                                  "include_comments": False}
    assert article["filters"]["segment"]["rules"] == ["main_text_overlap"]
    assert article["decide"]["enabled"] is False
    assert load_config()["profile"] == "detector"
    selected = load_config(REPO / "eval" / "articles.toml")
    assert selected["profile"] == "article" and selected["extract"] == article["extract"]
    overlay = tmp_path / "mine.toml"
    overlay.write_text('profile = "article"\n[filters.segment.main_text_overlap]\n'
                       'min_overlap = 0.1\n', encoding="utf-8")
    mine = load_config(overlay)
    assert mine["extract"]["extractor"] == "article"
    assert mine["filters"]["segment"]["main_text_overlap"]["min_overlap"] == 0.1
    with pytest.raises(UsageError, match="names profile 'article'"):
        load_config(overlay, "detector")
    with pytest.raises(UsageError, match="unknown profile"):
        load_config(None, "news")


@pytest.mark.browser
@pytest.mark.slow
def test_segment_cli_article_profile(article_benchmark: Path, tmp_path: Path, capsys) -> None:
    truth, files = load_benchmark(article_benchmark)
    key = next(k for k in truth if k.startswith(CBS))
    page = tmp_path / "page.html"
    page.write_text(without_scripts(read_html(files[key])), encoding="utf-8")
    out = tmp_path / "article"
    assert main(["segment", str(page), "--profile", "article", "--out", str(out)]) == 0
    report = json.loads((out / "main-text.json").read_text(encoding="utf-8"))
    assert report["extractor"] == "article" and report["aligned_share"] > 0.95
    records = [json.loads(line) for line in
               (out / "segments.jsonl").read_text(encoding="utf-8").splitlines()]
    kept = "\n".join(r["main_text"] for r in records if r["kept"])
    assert "Wales (Group E): Second appearance" in kept
    assert "Pochettino fired by Tottenham" not in kept
    assert all(r["reasons"] == ["no_main_text"] for r in records if not r["kept"])
    # no decision step, but the body is the article: its detector unit
    assert {r.get("unit") for r in records if r["kept"]} == {"article"}
