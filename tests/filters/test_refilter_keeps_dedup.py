"""``wps filter`` re-applies the filter rules but keeps the de-duplication verdicts (QA pass)."""

from __future__ import annotations

import json

from wps.cli import main


def test_refilter_keeps_dedup_reasons(tmp_path):
    text = ("The starter doubled on day three, then slowed down. Feed it twice a day and keep "
            "it somewhere warm, and it will come back within a week or so.")
    stats = {"main_text_overlap": 1.0, "link_share": 0.0, "code_share": 0.0,
             "list_table_share": 0.0, "tokens": 30.0, "chars": float(len(text))}
    lines = [
        {"id": "0", "text": text, "main_text": text, "stats": stats, "kept": False,
         "reasons": ["dup_chunk_share", "near_duplicate_simhash"]},
        {"id": "1", "text": "Log in", "main_text": "", "stats": stats, "kept": True,
         "reasons": []},
        {"id": "2", "text": text, "main_text": text, "stats": stats, "kept": False,
         "reasons": ["too_few_tokens"]},
    ]
    source = tmp_path / "segments.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    assert main(["filter", str(source), "--out", str(tmp_path / "out.jsonl")]) == 0
    out = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert out[0]["kept"] is False
    assert out[0]["reasons"] == ["dup_chunk_share", "near_duplicate_simhash"]
    assert out[1]["kept"] is False and "no_main_text" in out[1]["reasons"]
    assert out[2]["kept"] is True and out[2]["reasons"] == []  # a filter reason is recomputed


def test_refilter_keeps_every_decision_reason_and_judges_the_untrimmed_text(tmp_path):
    text = ("The starter doubled on day three, then slowed down. Feed it twice a day and keep "
            "it somewhere warm, and it will come back within a week or so.")
    stats = {"main_text_overlap": 1.0, "link_share": 0.0, "code_share": 0.0,
             "list_table_share": 0.0, "tokens": 30.0, "chars": float(len(text))}
    lines = [{"id": str(n), "text": text, "main_text": text, "stats": stats, "kept": False,
              "reasons": [reason]}
             for n, reason in enumerate(("quoted", "post_chrome", "non_article_page"))]
    lines.append({"id": "3", "text": text, "main_text": "Thanks!", "stats": stats, "kept": True,
                  "reasons": [], "lines_trimmed": 1, "main_text_untrimmed": text})
    source = tmp_path / "segments.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    assert main(["filter", str(source), "--out", str(tmp_path / "out.jsonl")]) == 0
    out = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert [line["reasons"] for line in out[:3]] == [["quoted"], ["post_chrome"],
                                                     ["non_article_page"]]
    assert not any(line["kept"] for line in out[:3])
    # judged by the text the pipeline's filters saw (enough tokens), the detector's text kept
    assert out[3]["kept"] is True and out[3]["main_text"] == "Thanks!"


def test_refilter_keeps_the_language_filters_verdict(tmp_path):
    """A segment that ``--lang`` dropped stays dropped: the filters do not own that reason."""
    text = ("The starter doubled on day three, then slowed down. Feed it twice a day and keep "
            "it somewhere warm, and it will come back within a week or so.")
    stats = {"main_text_overlap": 1.0, "link_share": 0.0, "code_share": 0.0,
             "list_table_share": 0.0, "tokens": 30.0, "chars": float(len(text))}
    line = {"id": "0", "text": text, "main_text": text, "stats": stats, "kept": False,
            "reasons": ["lang_not_allowed"], "lang": "en"}
    source = tmp_path / "segments.jsonl"
    source.write_text(json.dumps(line) + "\n", encoding="utf-8")
    assert main(["filter", str(source), "--out", str(tmp_path / "out.jsonl")]) == 0
    [out] = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert out["kept"] is False and out["reasons"] == ["lang_not_allowed"]


def test_refilter_sets_units_for_the_new_keep_flags(tmp_path):
    """A segment dropped now is in no detector unit; one kept now joins the article it stands
    inside, or its post's unit, or is judged alone: never with another writer's text."""
    text = ("The starter doubled on day three, then slowed down. Feed it twice a day and keep "
            "it somewhere warm, and it will come back within a week or so.")
    stats = {"main_text_overlap": 1.0, "link_share": 0.0, "code_share": 0.0,
             "list_table_share": 0.0, "tokens": 30.0, "chars": float(len(text))}

    def line(n, kept, unit, reasons=(), post=None, main=text):
        return {"id": str(n), "text": main, "main_text": main, "stats": stats, "kept": kept,
                "unit": unit, "reasons": list(reasons), "post_record": post}

    lines = [line(0, True, "article"),
             line(1, False, None, ["too_few_tokens"]),  # inside the article: kept now
             line(2, True, "article"),
             line(3, True, "prose-1", main="Log in"),  # dropped now: no main text of note
             line(4, True, "post-1", post="7"),
             line(5, False, None, ["too_few_tokens"], post="7"),  # the same post's
             line(6, False, None, ["too_few_tokens"], post="9"),  # another post's
             line(7, False, None, ["too_few_tokens"])]  # after the article: alone
    lines[3]["main_text"] = ""
    source = tmp_path / "segments.jsonl"
    source.write_text("".join(json.dumps(each) + "\n" for each in lines), encoding="utf-8")
    assert main(["filter", str(source), "--out", str(tmp_path / "out.jsonl")]) == 0
    out = [json.loads(each) for each in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert [each["kept"] for each in out] == [True, True, True, False, True, True, True, True]
    assert [each.get("unit") for each in out] == ["article", "article", "article", None,
                                                 "post-1", "post-1", "post-2", "prose-2"]
