"""Every reason code wps can give is explained (``wps/reasons.toml``), in the README's glossary
and as a tooltip in the page report."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from wps.decide.page import LITTLE_PROSE, LOGIN_FORM
from wps.decide.step import DECISION_REASONS
from wps.dedup import REASON_CHUNKS, REASON_MINHASH, REASON_SIMHASH
from wps.filters.rules import rule_names
from wps.lang import LANG_REASON
from wps.reasons import explain, glossary

ROOT = Path(__file__).resolve().parents[1]


def _codes_in_the_rules() -> set[str]:
    """The reason strings the filter rules return, read from their source (``{n}`` as 3)."""
    codes = set()
    for path in (ROOT / "wps" / "filters").glob("*.py"):
        source = path.read_text(encoding="utf-8")
        codes |= set(re.findall(r'RuleResult\(False, f?"([^"]+)"\)', source))
        codes |= set(re.findall(r'return \[\], "([a-z_]+)"', source))
    return {code.replace("{n}", "3") for code in codes}


CODES = sorted({*rule_names(), *_codes_in_the_rules(), *DECISION_REASONS, REASON_CHUNKS,
                REASON_MINHASH, REASON_SIMHASH, LANG_REASON, LITTLE_PROSE, LOGIN_FORM})


def test_the_rule_sources_were_read():
    assert {"link_share", "top_3_gram", "lorem_ipsum", "gopher_short_doc"} <= set(CODES)


@pytest.mark.parametrize("code", CODES)
def test_every_reason_is_explained(code):
    assert explain(code), f"{code}: not in wps/reasons.toml"


def test_the_readme_glossary_lists_every_entry():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    glossary_part = readme[readme.index("## Reason codes"):]
    for entries in glossary().values():
        for code, text in entries.items():
            assert f"`{code}`" in glossary_part and text in glossary_part, code


def test_the_page_report_explains_its_reasons():
    from wps.report.page import PageFacts, page_report_html

    record = {"id": "1", "segment_id": "d:0001", "order": 1, "bbox": [0, 0, 100, 20],
              "polygon": [[[0, 0], [100, 0], [100, 20], [0, 20], [0, 0]]], "text": "Home News",
              "main_text": "", "kept": False, "reasons": ["link_share"], "stats": {},
              "kind": "links"}
    html = page_report_html(PageFacts(url="https://a.example/", title="t", width=100,
                                      height=20, screenshot=None), [record], None)
    assert explain("link_share") in html
