"""Noise-sentence classifier, boundary score and the train-noise command."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from wps.cli import main
from wps.errors import InputFileError, ModelError
from wps.model import Segment
from wps.noise_tail import (
    NoiseClassifier,
    NoiseTailCutter,
    boundary_index,
    boundary_scores,
    cut_noise_tail,
    load_labelled_jsonl,
    split_chunks,
)

pytest.importorskip("sklearn")

SUBJECTS = [
    "The council",
    "Researchers",
    "The river authority",
    "Local bakers",
    "The museum",
    "Volunteers",
    "The new library",
    "Farmers in the valley",
    "The school board",
]
VERBS = ["approved", "studied", "reported on", "celebrated", "debated", "measured", "restored"]
OBJECTS = [
    "the winter budget",
    "the flood defences",
    "a rare manuscript",
    "the harvest figures",
    "the old bridge",
    "water quality in the lake",
    "the opening hours",
]
NOISE = [
    "Share this article on Facebook",
    "Copyright 2026 Daily News Group. All rights reserved.",
    "Click here to subscribe to our newsletter",
    "Related stories",
    "Follow us on Twitter",
    "Read more",
    "Advertisement",
    "Sign up for breaking news alerts",
    "Privacy policy",
    "Terms of use",
    "Comments are closed.",
    "Share on WhatsApp",
    "Back to top",
]


def _content(rng: random.Random) -> str:
    subject, verb, thing = rng.choice(SUBJECTS), rng.choice(VERBS), rng.choice(OBJECTS)
    return f"{subject} {verb} {thing} on {rng.choice(['Monday', 'Friday', 'the weekend'])}."


def _training_file(path: Path, count: int = 300) -> Path:
    rng = random.Random(7)
    lines = []
    for index in range(count):
        if index % 3 == 0:
            lines.append({"text": rng.choice(NOISE), "label": rng.choice([1, "noise"])})
        else:
            lines.append({"text": _content(rng), "label": rng.choice([0, "content"])})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("noise")
    texts, labels = load_labelled_jsonl(_training_file(folder / "train.jsonl"))
    classifier, report = NoiseClassifier.train(
        texts, labels, hidden_units=32, max_iterations=300, held_out_fraction=0.25
    )
    assert report.examples == 300 and report.noise_examples == 100
    assert report.scores["f1"] > 0.9
    return classifier.save(folder / "model")


def test_split_chunks_at_lines_sentences_and_ideographic_spaces() -> None:
    text = 'First sentence. "Quoted!" Third?\nFourth line\u3000fifth\n\n  \nsixth'
    assert [text[a:b] for a, b in split_chunks(text)] == [
        "First sentence.",
        '"Quoted!"',
        "Third?",
        "Fourth line",
        "fifth",
        "sixth",
    ]
    assert split_chunks("  \n ") == []


def test_boundary_scores_by_hand() -> None:
    # p = [0, 1]; weights 1/(1+d):
    # i=0: right = (0*1 + 1*0.5)/1.5 = 1/3, left = 0 -> (1/3 + 1 + 0)/3 = 4/9
    # i=1: right = 1, left = 0 -> (1 + 1 + 1/2)/3 = 5/6
    # i=2: right = 0, left = (1*1 + 0*0.5)/1.5 = 2/3 -> (0 + 1/3 + 1)/3 = 4/9
    assert boundary_scores([0.0, 1.0]) == pytest.approx([4 / 9, 5 / 6, 4 / 9])
    assert boundary_index([0.0, 1.0]) == 1
    assert boundary_index([0.0, 0.0, 0.0]) == 3  # clean text: keep everything
    assert boundary_index([1.0, 1.0]) == 0  # all noise: keep nothing
    assert boundary_index([0.9, 0.0, 0.0, 0.0, 0.0, 0.1, 0.0, 0.8, 0.9]) == 7
    assert boundary_index([]) == 0


def test_cut_noise_tail_with_a_keyword_scorer() -> None:
    def scorer(chunks):
        return np.array(
            [1.0 if "share" in c.lower() or "copyright" in c.lower() else 0.0 for c in chunks]
        )

    text = "Rivers carve valleys. Water moves rock.\nShare this story\nCopyright 2026 Example."
    tail = cut_noise_tail(text, scorer)
    assert tail.kept == "Rivers carve valleys. Water moves rock."
    assert tail.removed == "Share this story\nCopyright 2026 Example."
    assert (tail.chunks, tail.kept_chunks) == (4, 2)


def test_trained_model_cuts_a_footer_tail(trained: Path) -> None:
    classifier = NoiseClassifier.load(trained)
    probabilities = classifier.noise_probabilities(
        ["Share this article on Facebook", "The museum restored the old bridge."]
    )
    assert probabilities[0] > 0.5 > probabilities[1]
    article = (
        "The council approved the winter budget on Monday. Volunteers restored the old bridge."
        " Researchers measured water quality in the lake."
    )
    segment = Segment(
        id="s0",
        polygons=[],
        text=article + "\nRelated stories\nFollow us on Twitter",
        main_text=article,
    )
    NoiseTailCutter(trained).process([segment])
    assert segment.text == article and segment.main_text == article
    assert segment.noise_tail["text"]["removed"] == "Related stories\nFollow us on Twitter"
    assert segment.stats["noise_tail_chars"] == len("\nRelated stories\nFollow us on Twitter")


def test_training_file_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "a", "label": 1}\n{"text": "b", "label": "maybe"}\n')
    with pytest.raises(InputFileError, match=r"bad.jsonl:2: label 'maybe'"):
        load_labelled_jsonl(bad)
    one_class = tmp_path / "one.jsonl"
    one_class.write_text('{"text": "a", "label": 1}\n')
    with pytest.raises(InputFileError, match="both"):
        load_labelled_jsonl(one_class)
    with pytest.raises(InputFileError, match="none.jsonl: no such file"):
        load_labelled_jsonl(tmp_path / "none.jsonl")
    with pytest.raises(ModelError, match="not a noise model"):
        NoiseClassifier.load(tmp_path)


def test_train_noise_command(tmp_path: Path, capsys) -> None:
    training = _training_file(tmp_path / "train.jsonl", count=120)
    code = main(
        [
            "train-noise",
            str(training),
            "--out",
            str(tmp_path / "model"),
            "--hidden-units",
            "8",
            "--max-iterations",
            "40",
        ]
    )
    assert code == 0
    assert "120 chunks (40 noise)" in capsys.readouterr().err
    metadata = json.loads((tmp_path / "model" / "metadata.json").read_text())
    assert metadata["format"] == "wps-noise/1" and metadata["examples"] == 120
    assert NoiseClassifier.load(tmp_path / "model").noise_probabilities(["Back to top"])[0] > 0.5
    assert main(["train-noise", str(tmp_path / "missing.jsonl"), "--out", str(tmp_path / "m")]) == 3


def test_pipeline_noise_step_on_a_webis_page(trained: Path, webis_page: Path) -> None:
    from wps.pipeline import segment

    plain = segment(webis_page).segmentation.segments
    cut = segment(webis_page, noise_model=trained).segmentation.segments
    with_text = [index for index, s in enumerate(plain) if s.text.strip()]
    assert with_text
    for index in with_text:
        report = cut[index].noise_tail["text"]
        assert plain[index].text.startswith(cut[index].text)
        assert len(cut[index].text) + cut[index].stats["noise_tail_chars"] == len(plain[index].text)
        assert report["kept_chunks"] <= report["chunks"]


def test_noise_stage_rejects_unknown_fields(trained: Path) -> None:
    from wps.errors import UsageError

    with pytest.raises(UsageError, match="fields"):
        NoiseTailCutter(trained, fields=("title",))


def test_cached_load_follows_the_model_file(trained: Path, tmp_path: Path) -> None:
    import shutil

    copy = Path(shutil.copytree(trained, tmp_path / "model"))
    first = NoiseClassifier.load_cached(copy)
    assert NoiseClassifier.load_cached(copy) is first
    first.save(copy)                     # rewritten model file: a fresh load
    assert NoiseClassifier.load_cached(copy) is not first
