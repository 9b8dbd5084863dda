"""C4 no-punct and Gopher rules on texts whose verdict is worked out by hand."""

from __future__ import annotations

from wps.filters import TextUnit
from wps.filters.c4 import C4NoPunct, c4_kept_lines, count_sentences
from wps.filters.gopher import (GopherQuality, GopherRepetition, LinesWithoutPunctuation,
                                MedianWordLength, RepeatedSequence, split_words)

PROSE = (
    "The committee met on Tuesday to discuss the budget for the coming year. Members agreed that "
    "the library should have longer opening hours. They also voted to repair the roof of the old "
    "school with money from the reserve fund. A final decision on the new bus line was postponed "
    "until the spring, when more data on the number of passengers will be available to them. "
    "Residents who wish to comment can write to the council before the end of the month."
)


def u(text: str) -> TextUnit:
    return TextUnit(text)


def test_count_sentences() -> None:
    assert count_sentences("One. Two! Three? Four") == 4
    assert count_sentences("He said \"stop.\" Then left.") == 2
    assert count_sentences("") == 0


def test_c4_drops_lines_and_whole_texts_like_datatrove() -> None:
    text = "\n".join([
        "Home",                                              # no terminal punctuation
        "Read more...",                                      # ellipsis
        "Too short.",                                        # fewer than 3 words
        "Please enable JavaScript to view the comments.",    # javascript
        "This site uses cookies to improve your visit.",     # policy
        "The mayor opened the new bridge on Monday [1].",    # kept, citation stripped
    ])
    kept, reason = c4_kept_lines(text)
    assert reason is None
    assert kept == ["The mayor opened the new bridge on Monday ."]
    assert c4_kept_lines("Lorem ipsum dolor sit amet.")[1] == "lorem_ipsum"
    assert c4_kept_lines("function f() { return 1; } is code.")[1] == "curly_bracket"
    assert C4NoPunct(min_sentences=5)(u(PROSE)).keep  # five sentences on one line
    assert C4NoPunct(min_sentences=6)(u(PROSE)).reason == "too_few_sentences"
    assert C4NoPunct()(u("Lorem ipsum dolor sit amet.")).reason == "lorem_ipsum"


def test_gopher_quality_passes_prose_and_names_each_failure() -> None:
    rule = GopherQuality()
    assert rule(u(PROSE)).keep
    assert rule(u("the cat sat on the mat.")).reason == "gopher_short_doc"
    assert GopherQuality(min_doc_words=5)(u("a b c d e f the and")).reason == \
        "gopher_below_avg_threshold"
    assert GopherQuality(min_doc_words=3)(
        u("internationalisation characterisation institutionalisation")).reason == \
        "gopher_above_avg_threshold"
    hashes = "#news #sport #music #today #photo " * 10 + PROSE
    assert rule(u(hashes)).reason == "gopher_too_many_hashes"
    bullets = "\n".join(f"- item number {i} of the shopping list with things" for i in range(60))
    assert rule(u(bullets)).reason == "gopher_too_many_bullets"
    numbers = " ".join(str(i) for i in range(200)) + " the and the cat"
    assert rule(u(numbers)).reason in {"gopher_below_avg_threshold", "gopher_below_alpha_threshold"}
    no_stop = ("Apples oranges bananas pears grapes melons cherries lemons limes plums " * 6)
    assert rule(u(no_stop)).reason == "gopher_enough_stop_words"


def test_gopher_repetition_reasons() -> None:
    rule = GopherRepetition()
    assert rule(u(PROSE)).keep
    repeated_paragraphs = "\n\n".join(["Subscribe to our newsletter today."] * 4 + [PROSE])
    assert rule(u(repeated_paragraphs)).reason == "dup_para_frac"
    # 9 lines, 3 of them repeats: 3/9 > 0.30 (paragraph checks see one paragraph).
    repeated_lines = "\n".join(["Click here to read the full story now."] * 4 + PROSE.split(". "))
    assert rule(u(repeated_lines)).reason == "dup_line_frac"
    # 2 of 7 lines repeat (0.29 ≤ 0.30) but they hold 2 × 200 of about 930 characters (> 0.20).
    long_line = "Our newsroom staff " + "x" * 181
    char_heavy = "\n".join([long_line] * 3 + PROSE.split(". ")[:4])
    assert rule(u(char_heavy)).reason == "dup_line_char_frac"
    chant = PROSE + " " + "buy now " * 40
    assert rule(u(chant)).reason == "top_2_gram"


def test_optional_dolma_rules() -> None:
    assert MedianWordLength()(u(PROSE)).keep
    assert MedianWordLength()(u("a bb c dd e ff")).reason == "median_word_length_below"
    lines = "Home\nNews\nSport\nA real sentence here."
    assert LinesWithoutPunctuation(0.5)(u(lines)).reason == "lines_without_punctuation"
    assert LinesWithoutPunctuation(0.5)(u(PROSE)).keep
    assert RepeatedSequence(max_repeats=100)(u("spam " * 101)).reason == "repeated_sequence"
    assert RepeatedSequence(max_repeats=100)(u("spam " * 100)).keep


def test_split_words_separates_punctuation() -> None:
    assert split_words("Don't stop, e.g. now!") == ["Don't", "stop", ",", "e.g", ".", "now", "!"]


def test_remaining_gopher_quality_reasons() -> None:
    assert GopherQuality(max_doc_words=10)(u(PROSE)).reason == "gopher_long_doc"
    # 20 "..." against ~100 tokens: ratio 0.2 > 0.1 (no hashes, so the hash check passes).
    assert GopherQuality()(u(PROSE + " ..." * 20)).reason == "gopher_too_many_ellipsis"
    # 5 of 5 lines end in "…" (> 30 %), while 5 "…" per ~80 tokens stays under 0.1.
    trailing = "\n".join(line.rstrip(".") + "…" for line in PROSE.split(". "))
    assert GopherQuality()(u(trailing)).reason == "gopher_too_many_end_ellipsis"


def test_remaining_gopher_repetition_reasons() -> None:
    # Paragraphs A, A, B, C: 1 of 4 repeated (0.25 ≤ 0.30) but A is most of the text.
    long_paragraph = PROSE
    text = "\n\n".join([long_paragraph, long_paragraph, "Short one.", "Another one."])
    assert GopherRepetition()(u(text)).reason == "dup_para_char_frac"
    only_three = GopherRepetition(top_n_grams=((3, 0.18),), dup_n_grams=())
    assert only_three(u(PROSE + " " + "see you soon " * 12)).reason == "top_3_gram"
    # A 200-character passage said twice on one line: repeated 5-grams hold > 15 % of the chars.
    repeated = PROSE + " " + PROSE[:200]
    no_top = GopherRepetition(top_n_grams=())
    assert no_top(u(repeated)).reason == "duplicated_5_n_grams"
    assert no_top(u(PROSE)).keep
