"""Non-article rules on units whose answer is known by hand."""

from __future__ import annotations

from wps.filters import TextUnit, apply_rules, build_rule, evaluate_rules
from wps.filters.base import count_tokens
from wps.filters.non_article import (LargeBlockShare, LinkCodeShare, ListTableShare, LongBlock,
                                     MainTextOverlap, MinLength)
from wps.model import Segment


def unit(text: str = "word " * 10, **stats: float) -> TextUnit:
    return TextUnit(text, dict(stats))


def test_min_length_counts_whitespace_tokens() -> None:
    rule = MinLength(min_tokens=5)
    assert rule(unit("one two three four five")).keep
    assert rule(unit("one two three four")).reason == "too_few_tokens"
    assert MinLength(min_tokens=0, min_chars=10)(unit("short")).reason == "too_few_chars"


def test_cjk_characters_count_as_tokens() -> None:
    assert count_tokens("漫長的五一假期") == 7
    assert count_tokens("Stadia 和 xCloud 遊戲") == 5  # 2 words + 3 characters
    assert count_tokens("plain  english words") == 3
    assert MinLength(min_tokens=5)(unit("在漫長的五一假期中")).keep


def test_link_and_code_share_use_the_stricter_side_of_the_threshold() -> None:
    rule = LinkCodeShare(max_share=0.2)
    assert rule(unit(link_share=0.2, code_share=0.0)).keep  # "more than 20 %" drops
    assert rule(unit(link_share=0.21)).reason == "link_share"
    assert rule(unit(code_share=0.5)).reason == "code_share"


def test_long_block_needs_a_block_over_the_limit() -> None:
    rule = LongBlock(min_chars=250)
    assert rule(unit(largest_block=251)).keep
    assert rule(unit(largest_block=250)).reason == "no_long_block"


def test_large_block_share_and_list_table_share() -> None:
    assert LargeBlockShare(0.75)(unit(large_block_share=0.75)).keep
    assert LargeBlockShare(0.75)(unit(large_block_share=0.7)).reason == "large_block_share"
    assert ListTableShare(0.2)(unit(list_table_share=0.2)).keep
    assert ListTableShare(0.2)(unit(list_table_share=0.3)).reason == "list_table_share"


def test_main_text_overlap_drops_units_without_main_text() -> None:
    rule = MainTextOverlap(min_overlap=0.1)
    assert rule(unit("some text", main_text_overlap=0.5)).keep
    assert rule(unit("some text", main_text_overlap=0.05)).reason == "no_main_text"
    assert rule(unit("", main_text_overlap=1.0)).reason == "no_main_text"


def test_apply_rules_keeps_every_reason_and_counts_them() -> None:
    good = Segment.from_box("a", (0, 0, 10, 10))
    good.main_text = "word " * 300
    good.stats = {"main_text_overlap": 1.0, "link_share": 0.0, "largest_block": 1500}
    bad = Segment.from_box("b", (0, 10, 10, 20))
    bad.main_text = "Home News Sport"
    bad.stats = {"main_text_overlap": 1.0, "link_share": 0.9, "largest_block": 15}
    rules = [build_rule("min_length", min_tokens=200), build_rule("link_code_share"),
             build_rule("long_block")]
    counts = apply_rules([good, bad], rules)
    assert good.kept and good.reasons == []
    assert not bad.kept
    assert bad.reasons == ["too_few_tokens", "link_share", "no_long_block"]
    assert counts["kept"] == 1 and counts["dropped"] == 1 and counts["dropped_link_share"] == 1
    assert evaluate_rules(unit("x " * 300, link_share=0.0, largest_block=300), rules) == []
