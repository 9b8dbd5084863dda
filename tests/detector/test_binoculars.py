"""The Binoculars scorer against a direct recomputation of the reference formula."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from wps.errors import ModelError, UsageError

EOS = "<|endoftext|>"

TEXTS = [
    "the river was in the valley and the water is on the rock .",
    "bakers bread oven flour salt crust , the city library budget committee winter hours !",
    "water rock",
    "a of and to in is was for on with as by at from it this that be are river valley water rock"
    " slope land bakers bread oven",
]


def _direct_score(observer_path: Path, performer_path: Path, text: str) -> float:
    """ppl / x_ppl written out with plain torch ops, one text, no padding."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(observer_path)
    ids = tokenizer(text, return_tensors="pt")["input_ids"][:, :512]
    observer = AutoModelForCausalLM.from_pretrained(observer_path).eval()
    performer = AutoModelForCausalLM.from_pretrained(performer_path).eval()
    with torch.no_grad():
        observer_logits = observer(ids).logits[0].double()
        performer_logits = performer(ids).logits[0].double()
    performer_log_probabilities = torch.log_softmax(performer_logits, dim=-1)
    length = ids.shape[1]
    log_ppl = -sum(performer_log_probabilities[t - 1, ids[0, t]] for t in range(1, length))
    log_ppl = log_ppl / (length - 1)
    observer_probabilities = torch.softmax(observer_logits, dim=-1)
    keep = [t for t in range(length) if ids[0, t] != tokenizer.eos_token_id]
    x_ppl = sum(-(observer_probabilities[t] * performer_log_probabilities[t]).sum() for t in keep)
    x_ppl = x_ppl / len(keep)
    return float(log_ppl / x_ppl)


def test_score_equals_direct_formula(scorer, tiny_models) -> None:
    results = scorer.score_texts(TEXTS)
    for text, result in zip(TEXTS, results):
        expected = _direct_score(*tiny_models, text)
        assert result.score == pytest.approx(expected, rel=1e-4)
        assert result.prediction == ("ai" if expected < scorer.threshold else "human")
        assert result.n_tokens == len(text.split()) and not result.truncated
    assert len({round(r.score, 6) for r in results}) == len(TEXTS)


def test_batched_equals_single(scorer) -> None:
    batched = [r.score for r in scorer.score_texts(TEXTS)]
    single = [scorer.score_texts([text])[0].score for text in TEXTS]
    assert batched == pytest.approx(single, rel=1e-4)


def test_eos_inside_the_text_is_masked_like_the_reference(scorer, tiny_models) -> None:
    text = f"the river {EOS} the valley"
    result = scorer.score_texts([text])[0]
    assert result.score == pytest.approx(_direct_score(*tiny_models, text), rel=1e-4)
    only_eos = scorer.score_texts([f"{EOS} {EOS}"])[0]
    assert only_eos.score is None and only_eos.skipped_reason == "only_padding_tokens"


def test_empty_and_short_texts_are_skipped(scorer) -> None:
    empty, blank, one = scorer.score_texts(["", "   \n", "river"])
    assert (empty.skipped_reason, blank.skipped_reason) == ("empty", "empty")
    assert one.skipped_reason == "too_few_tokens" and one.score is None and one.n_tokens == 1


def test_long_texts_are_truncated_at_max_tokens(scorer, tiny_models) -> None:
    from wps.detector import BinocularsScorer

    long_text = " ".join(["the river and the valley"] * 130)  # 650 tokens
    result = scorer.score_texts([long_text])[0]
    assert result.truncated and result.n_tokens == 512
    first_512 = " ".join(long_text.split()[:512])
    assert result.score == pytest.approx(scorer.score_texts([first_512])[0].score, rel=1e-5)
    assert not scorer.score_texts([first_512])[0].truncated
    small = BinocularsScorer(*tiny_models, device="cpu", max_tokens=8)
    cut = small.score_texts([TEXTS[0]])[0]
    assert cut.truncated and cut.n_tokens == 8
    assert cut.score == pytest.approx(
        _direct_score(*tiny_models, " ".join(TEXTS[0].split()[:8])), rel=1e-4
    )


def _direct_parts(observer_path: Path, performer_path: Path,
                  ids: list[int]) -> tuple[float, int, float, int]:
    """One window's token-loss sum and count, cross-entropy sum and count, written out."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    eos = AutoTokenizer.from_pretrained(observer_path).eos_token_id
    tensor = torch.tensor([ids])
    with torch.no_grad():
        observer = AutoModelForCausalLM.from_pretrained(observer_path).eval()
        performer = AutoModelForCausalLM.from_pretrained(performer_path).eval()
        observer_probabilities = torch.softmax(observer(tensor).logits[0].double(), dim=-1)
        performer_log = torch.log_softmax(performer(tensor).logits[0].double(), dim=-1)
    loss = -sum(float(performer_log[t - 1, ids[t]]) for t in range(1, len(ids)))
    keep = [t for t in range(len(ids)) if ids[t] != eos]
    cross = sum(float(-(observer_probabilities[t] * performer_log[t]).sum()) for t in keep)
    return loss, len(ids) - 1, cross, len(keep)


def test_whole_text_pools_consecutive_windows(tiny_models) -> None:
    """With ``whole_text`` a text past ``max_tokens`` is scored in consecutive windows, pooled
    as each perplexity's mean over every window's tokens: no token goes unjudged, and a text
    that fits one window scores as the reference does."""
    from transformers import AutoTokenizer

    from wps.detector import BinocularsScorer

    whole = BinocularsScorer(*tiny_models, device="cpu", max_tokens=8, whole_text=True)
    first = BinocularsScorer(*tiny_models, device="cpu", max_tokens=8)
    text = TEXTS[3]
    ids = AutoTokenizer.from_pretrained(tiny_models[0])(text)["input_ids"]
    windows = [ids[start:start + 8] for start in range(0, len(ids), 8)]
    parts = [_direct_parts(*tiny_models, window) for window in windows]
    expected = (sum(p[0] for p in parts) / sum(p[1] for p in parts)) / (
        sum(p[2] for p in parts) / sum(p[3] for p in parts))
    result = whole.score_texts([text])[0]
    assert len(windows) == 4 and result.windows == 4
    assert result.n_tokens == len(ids) and not result.truncated
    assert result.score == pytest.approx(expected, rel=1e-4)
    lowest = min((p[0] / p[1]) / (p[2] / p[3]) for p in parts)
    assert result.min_window_score == pytest.approx(lowest, rel=1e-4)
    assert first.score_texts([text])[0].score != pytest.approx(expected, rel=1e-4)
    short = TEXTS[2]
    assert whole.score_texts([short])[0].score == first.score_texts([short])[0].score


def test_modes_and_bad_paths(tiny_models, tmp_path: Path) -> None:
    from wps.detector import THRESHOLDS, BinocularsScorer

    observer, performer = tiny_models
    scorer = BinocularsScorer(observer, performer, device="cpu", mode="accuracy")
    assert scorer.threshold == THRESHOLDS["accuracy"] == 0.9015310749276843
    scorer.change_mode("low-fpr")
    assert scorer.threshold == 0.8536432310785527
    with pytest.raises(UsageError, match="mode"):
        BinocularsScorer(observer, performer, mode="fast")  # type: ignore[arg-type]
    with pytest.raises(ModelError, match="nowhere"):
        BinocularsScorer(tmp_path / "nowhere", performer, device="cpu")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ModelError, match="empty"):
        BinocularsScorer(observer, tmp_path / "empty", device="cpu")
    assert math.isfinite(scorer.score_texts([TEXTS[0]])[0].score)


def test_bfloat16_scores_follow_float32(scorer, tiny_models) -> None:
    from wps.detector import BinocularsScorer

    half = BinocularsScorer(*tiny_models, device="cpu", dtype="bfloat16", batch_size=3)
    full = [r.score for r in scorer.score_texts(TEXTS)]
    assert [r.score for r in half.score_texts(TEXTS)] == pytest.approx(full, rel=0.05)


def test_mismatched_vocabularies_and_missing_cuda(tiny_models, tmp_path: Path) -> None:
    import torch
    from tiny_lm import build_model
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    from wps.detector import BinocularsScorer

    core = Tokenizer(models.WordLevel(vocab={"[UNK]": 0, EOS: 1, "other": 2}, unk_token="[UNK]"))
    core.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    other = tmp_path / "other"
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=core, unk_token="[UNK]", eos_token=EOS)
    tokenizer.save_pretrained(other)
    build_model(other, 3, 3)
    with pytest.raises(ModelError, match="different vocabularies"):
        BinocularsScorer(tiny_models[0], other, device="cpu")
    if not torch.cuda.is_available():
        with pytest.raises(UsageError, match="CUDA"):
            BinocularsScorer(*tiny_models, device="cuda")


def test_pooled_windows_weigh_each_perplexity_by_its_tokens() -> None:
    from wps.detector.binoculars import _pooled

    assert _pooled([(2.0, 3, 4.0, 4)]) == 0.5  # one window: its own ratio
    # two windows: (2*3 + 1*1) / 4 over (4*4 + 2*2) / 6
    assert _pooled([(2.0, 3, 4.0, 4), (1.0, 1, 2.0, 2)]) == pytest.approx((7 / 4) / (20 / 6))
    assert _pooled([(1.0, 3, 0.0, 3)]) == math.inf  # as torch divides, no ZeroDivisionError
    assert math.isnan(_pooled([(0.0, 0, 0.0, 0), (0.0, 0, 0.0, 0)]))
