"""Language identification: the windowed scanner walk gives py3langid's own scores."""

from __future__ import annotations

import random

import numpy as np
import pytest

from wps import lang

py3langid = pytest.importorskip("py3langid.langid")


def _deepest_state(identifier) -> int:
    """Breadth-first over the scanner's transitions: how many bytes reach its deepest state."""
    moves = np.asarray(identifier.tk_nextmove)
    rows = np.asarray(identifier._rowbase, dtype=np.int64)
    seen = np.zeros(rows.size, dtype=bool)
    seen[0] = True
    frontier, depth = np.array([0]), 0
    while True:
        reached = moves[(rows[frontier][:, None] + np.arange(256)).ravel()]
        frontier = np.unique(reached[~seen[reached]])
        if not frontier.size:
            return depth
        seen[frontier] = True
        depth += 1


def test_no_scanner_state_lies_deeper_than_the_window():
    assert _deepest_state(lang._identifier()) <= lang.DEEPEST_STATE


def _texts() -> list[str]:
    """Short and long texts of several scripts, sentences and random characters."""
    rng = random.Random(7)
    prose = ["The committee met on Tuesday and agreed to delay the vote until the spring. ",
             "Der Ausschuss hat am Dienstag beschlossen, die Abstimmung zu verschieben. ",
             "Комитет собрался во вторник и решил отложить голосование до весны. ",
             "委員会は火曜日に会合を開き、投票を春まで延期することに合意した。",
             "اجتمعت اللجنة يوم الثلاثاء ووافقت على تأجيل التصويت حتى الربيع. "]
    texts = []
    for sentence in prose:
        for repeat in (1, 6, 40):
            texts.append(sentence * repeat)
    texts.append("".join(prose) * 5)
    for _ in range(60):
        blocks = [(32, 127), (0x400, 0x4FF), (0x4E00, 0x4FFF), (0x600, 0x6FF), (0xE00, 0xE7F)]
        texts.append("".join(chr(rng.randrange(*rng.choice(blocks)))
                             for _ in range(rng.randrange(300, 3000))))
    return texts


def test_windowed_walk_scores_as_py3langid_does():
    own = py3langid.LanguageIdentifier.from_model_file(py3langid.MODEL_FILE, norm_probs=True)
    windowed = lang._identifier()
    assert type(windowed) is not type(own)
    for text in _texts():
        data = own._encode(text)
        assert windowed._raw_score(data).tobytes() == own._raw_score(data).tobytes()
        assert windowed.classify(text) == own.classify(text)
