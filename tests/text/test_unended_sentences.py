"""List items written as sentences without a full stop, and lead-ins ending with a colon, are
sentences; lists of names, ``Key: value`` fields and lines run together by ``<br>`` are not."""

from __future__ import annotations

import pytest

from wps.decide.lines import is_prose_line
from wps.text.sentences import sentence_share

SENTENCE_ITEMS = [
    "He is confident the new trade agreement will be passed by the parliament",
    "The city must keep its libraries open to have a say in the region",
    "With the inspector module you can do much more than profile the processor, for example:",
]
NOT_SENTENCES = [
    "Crested Butte, Gunnison, Montrose, Durango, Telluride, Grand Junction, and Fruita",
    "Users browsing this forum: No registered users and 1 guest at the moment here",
    " ".join(["You cannot post new topics in this forum"] * 5),
]


@pytest.mark.parametrize("text", SENTENCE_ITEMS)
def test_a_sentence_without_its_full_stop_is_a_sentence(text):
    assert sentence_share(text) > 0.9


@pytest.mark.parametrize("text", NOT_SENTENCES)
def test_names_fields_and_run_together_lines_are_not(text):
    assert sentence_share(text) == 0.0


def test_a_long_lead_in_is_a_prose_line_and_a_label_is_not():
    assert is_prose_line("Submitting some parameters to the server, it would look like this:")
    assert not is_prose_line("Our typical devices are these:")
