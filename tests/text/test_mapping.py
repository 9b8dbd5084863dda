"""Alignment of extracted blocks onto text nodes, on captures built by hand."""

from __future__ import annotations

import random
import unicodedata

import pytest

from wps.text.extract import MainBlock, MainText
from wps.text.mapping import align_main_text, build_text_stream, normalise, normalise_all


def main(*texts: str) -> MainText:
    return MainText("test", [MainBlock("main", "p", text) for text in texts])


def test_normalise_removes_whitespace_and_keeps_offsets() -> None:
    text, offsets = normalise("A  “Quote”\u00ad—x")
    assert text == 'a"quote"-x'
    assert offsets.tolist() == [0, 3, 4, 5, 6, 7, 8, 9, 11, 12]
    folded, offsets = normalise("Straße ﬁne")  # ß → ss and the ligature → fi change lengths
    assert folded == "strassefine"
    assert offsets.tolist() == [0, 1, 2, 3, 4, 4, 5, 7, 7, 8, 9]


def _normalised_char_by_char(text: str) -> tuple[str, list[int]]:
    """What :func:`normalise` means, the slow way: each character NFKC-normalised, case-folded,
    quotes and dashes unified, whitespace and invisible characters dropped."""
    kept, offsets = [], []
    for position, char in enumerate(text):
        for mapped in unicodedata.normalize("NFKC", char).casefold():
            mapped = {"\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2014": "-"}.get(mapped, mapped)
            if not mapped.isspace() and mapped not in "\u00ad\u200b\u200c\u200d\u2060\ufeff":
                kept.append(mapped)
                offsets.append(position)
    return "".join(kept), offsets


@pytest.mark.parametrize("text", [
    "no\u00a0break\u202fspaces and a ﬁ ligature: one to one, then one to two",
    "Straße\u00a0ǅ — composed e\u0301 and Ｆｕｌｌ width ㎏",
    "Русский\u00a0текст. Ελληνικά ΣΑΣ. עברית. العربية ﻻ ١٢٣. हिन्दी। ไทย 日本語。",
])
def test_every_path_of_normalise_means_the_same_as_character_by_character(text: str) -> None:
    # normalise takes whole-text shortcuts where each character maps to one; they must give
    # what the character-by-character definition gives, offsets included.
    random.seed(7)
    samples = [text] + ["".join(random.sample(text, len(text))) for _ in range(20)]
    for sample in samples:
        folded, offsets = normalise(sample)
        assert (folded, offsets.tolist()) == _normalised_char_by_char(sample)
    # a page's blocks normalised in one pass: each as if alone, offsets into its own text
    blocks = [sample[:cut] for sample, cut in zip(samples, range(0, 60, 3))] + [""]
    for block, (folded, offsets) in zip(blocks, normalise_all(blocks), strict=True):
        assert (folded, offsets.tolist()) == _normalised_char_by_char(block)


def test_stream_maps_compact_characters_to_nodes(make_capture) -> None:
    capture = make_capture(("BODY", [("P", ["Hello ", ("A", ["big"]), " world"])]))
    stream = build_text_stream(capture)
    assert stream.compact == "hellobigworld"
    assert [capture.nodes[int(stream.node_ids[o])].text for o in stream.owner[[0, 5, 8]]] == [
        "Hello ", "big", " world"]
    assert stream.offset[8] == 1  # "w" of " world"


def test_exact_blocks_in_and_out_of_order_cover_their_nodes(make_capture) -> None:
    capture = make_capture(("BODY", [
        ("DIV", [("A", ["Home"]), ("A", ["News"])]),
        ("P", ["First paragraph of the story, ", ("A", ["with a link"]), "."]),
        ("P", ["Second paragraph."]),
    ]))
    alignment = align_main_text(capture, main("Second paragraph.",
                                              "First paragraph of the story, with a link."))
    assert [m.match for m in alignment.matches] == ["exact", "exact"]
    spans = alignment.node_spans()
    texts = {capture.nodes[node].text: value for node, value in spans.items()}
    assert "Home" not in texts and "News" not in texts
    assert [s[:2] for s in texts["with a link"]] == [(0, 11)]
    assert [s[:2] for s in texts["Second paragraph."]] == [(0, 17)]
    # The trailing space is not covered.
    assert [s[:2] for s in texts["First paragraph of the story, "]] == [(0, 29)]


def test_fuzzy_anchor_and_unaligned_blocks(make_capture) -> None:
    sentence = ("The river rose by two metres overnight and the old bridge was closed to traffic "
                "while engineers inspected its pillars for damage. Residents were asked to use "
                "the ferry until further notice.")
    capture = make_capture(("BODY", [("P", [sentence]), ("P", ["Short tail text here."])]))
    changed = sentence.replace("closed to traffic", "shut to traffic")  # edit inside the block
    alignment = align_main_text(capture, main(changed, "Short tial text here.",
                                              "Text that is nowhere on the page at all."))
    kinds = [m.match for m in alignment.matches]
    assert kinds[0] == "anchor"
    assert kinds[1] == "fuzzy" and alignment.matches[1].score >= 88
    assert kinds[2] == "none"
    assert [b.text for b in alignment.unaligned] == ["Text that is nowhere on the page at all."]
    assert alignment.covered.sum() == len(normalise(sentence)[0]) + len("shorttailtexthere.")


def test_fuzzy_block_before_the_cursor_is_found_on_the_whole_page(make_capture) -> None:
    first = "Tickets for the harbour festival go on sale on Friday morning."
    middle = "A long middle paragraph about something else entirely. " * 6
    last = "The last paragraph comes first in the extracted text."
    capture = make_capture(("BODY", [("P", [first]), ("P", [middle]), ("P", [last])]))
    alignment = align_main_text(capture, main(last, first.replace("Friday", "Fridya")))
    assert [m.match for m in alignment.matches] == ["exact", "fuzzy"]
    fuzzy = alignment.matches[1]
    assert fuzzy.start == 0 and fuzzy.end >= len(normalise(first)[0]) - 2


def test_a_block_whose_inline_code_the_extractor_dropped_covers_its_whole_paragraph(
    make_capture,
) -> None:
    # trafilatura leaves out inline <code> at times: "These are , and ." The fuzzy window is as
    # long as the block, so without fitting its ends it starts and ends inside words.
    before = "The earlier paragraph ends with a call to fetch() as discussed below."
    after = "The Headers interface is a simple multi-map of names to values."
    capture = make_capture(("BODY", [
        ("P", [before]),
        ("P", ["Fetch introduces 3 interfaces. These are ", ("CODE", ["Headers"]), ", ",
               ("CODE", ["Request"]), " and ", ("CODE", ["Response"]),
               ". They map directly to the underlying HTTP concepts, but have certain "
               "visibility filters in place for privacy and security reasons, such as "
               "supporting CORS rules and ensuring cookies aren't readable by third parties."]),
        ("P", [after]),
    ]))
    dropped = ("Fetch introduces 3 interfaces. These are , and . They map directly to the "
               "underlying HTTP concepts, but have certain visibility filters in place for "
               "privacy and security reasons, such as supporting CORS rules and ensuring "
               "cookies aren't readable by third parties.")
    alignment = align_main_text(capture, main(dropped))
    match = alignment.matches[0]
    assert match.match == "fuzzy"
    page = alignment.stream.compact
    assert page[match.start:match.end] == normalise(
        dropped.replace("are , and .", "are Headers, Request and Response."))[0]
