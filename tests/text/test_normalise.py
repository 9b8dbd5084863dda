"""Segment text and main text are normalised as trafilatura normalises (NFC, no soft hyphens,
single spaces), so the detector tokenises what a reader sees."""

from __future__ import annotations

import unicodedata

from wps.model import Segment, Segmentation
from wps.page.reading import reading_text
from wps.pipeline import run_text_steps

DECOMPOSED = unicodedata.normalize("NFD", "Crème brûlée")
SENTENCE = ("The confec\u00adtioner’s " + DECOMPOSED + " was the talk of the town for weeks, "
            "and   people queued around the block every single morning to buy one.")


def test_segment_text_and_main_text_are_normalised(make_capture):
    paragraphs = [SENTENCE, "A second paragraph follows with enough words to be kept as "
                  "main text by the extractor, as articles usually have several."]
    html = "<html><body><article>" + "".join(f"<p>{p}</p>" for p in paragraphs) + \
        "</article></body></html>"
    capture = make_capture(("BODY", [("P", [paragraphs[0]]), ("P", [paragraphs[1]])]), html)
    node_ids = [node.id for node in capture.nodes]
    segment = Segment.from_box("s1", (0, 0, 1000, 100), node_ids)
    segment.text = reading_text(capture, node_ids)
    run_text_steps(capture, Segmentation("p", "test", 1000, 100, [segment]))
    expected = "The confectioner’s Crème brûlée was the talk of the town"
    for text in (segment.text, segment.main_text):
        assert expected in text
        assert "\u00ad" not in text and "  " not in text
        assert unicodedata.is_normalized("NFC", text)
