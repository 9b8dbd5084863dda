"""Binoculars AI-text score (Hans et al., ICML 2024), computed exactly as ahans30/Binoculars does.

There is no usable PyPI package (``pip install binoculars`` is an unrelated project), so the scorer
is rewritten here on ``transformers`` (text-and-filters.md §5). The reference code's details matter
because the published thresholds were chosen with them:

* log-perplexity uses the **performer**'s logits (shifted, weighted by the shifted attention mask);
* cross-perplexity is the observer's softmax against the performer's log-softmax at **every**
  position, not shifted, averaged over positions whose id is not the pad id; pad = eos when the
  tokenizer has none, so a literal EOS token in the text is masked too;
* only the first ``max_tokens`` (512) tokens are scored; ``score < threshold`` means AI-generated.

Deviations: batches are padded on the right whatever the tokenizer's default, so a text's score does
not depend on its batch neighbours (the reference uses the tokenizer's side; Falcon's is right
already); and with ``whole_text`` (what ``wps binoculars`` does by default) a text longer than
``max_tokens`` is scored in consecutive windows of ``max_tokens`` tokens, each perplexity pooled
over all their tokens, so the rest of a long article is judged too (one window: the reference's
score).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Sequence

from ..errors import MissingDependencyError, ModelError, UsageError

__all__ = ["THRESHOLDS", "BinocularsResult", "BinocularsScorer", "binoculars_parts",
           "binoculars_scores"]

THRESHOLDS: dict[str, float] = {
    "accuracy": 0.9015310749276843,  # F1-optimal, Falcon-7B / Falcon-7B-instruct, bf16
    "low-fpr": 0.8536432310785527,  # 0.01 % false-positive rate (the reference default)
}
Mode = Literal["low-fpr", "accuracy"]


@dataclass(slots=True)
class BinocularsResult:
    """Score of one text; ``score`` and ``prediction`` are ``None`` when it was skipped."""

    score: float | None
    prediction: str | None
    """``"ai"`` (score below the threshold) or ``"human"``."""
    n_tokens: int
    """Tokens scored (after truncation)."""
    truncated: bool
    skipped_reason: str | None = None
    windows: int = 1
    """Windows of ``max_tokens`` tokens the text was scored in (``whole_text``)."""
    min_window_score: float | None = None
    """With several windows, the lowest window's own score (the most AI-like stretch: a text
    that is partly generated can pass as a whole)."""


def _import_torch() -> Any:
    try:
        import torch
        import transformers  # noqa: F401
    except ImportError as err:
        raise MissingDependencyError(
            f"Binoculars needs torch and transformers ({err.name} is missing):"
            " pip install 'wps[detect]'"
        ) from None
    return torch


def binoculars_scores(
    observer_logits: Any,
    performer_logits: Any,
    input_ids: Any,
    attention_mask: Any,
    pad_token_id: int,
) -> Any:
    """Per-text score ``ppl / x_ppl`` from the two models' logits (batch, length, vocabulary)."""
    log_perplexity, _, cross_perplexity, _ = binoculars_parts(
        observer_logits, performer_logits, input_ids, attention_mask, pad_token_id)
    # the reference divides after moving both to float32 numpy arrays; bf16 division would round
    return log_perplexity / cross_perplexity


def binoculars_parts(
    observer_logits: Any,
    performer_logits: Any,
    input_ids: Any,
    attention_mask: Any,
    pad_token_id: int,
) -> tuple[Any, Any, Any, Any]:
    """Per text: the performer's log-perplexity and the number of tokens it is the mean of, the
    observer→performer cross-perplexity and its number of tokens (as float32, the means taken
    in the models' dtype as the reference takes them; the counts let windows of one text be
    pooled)."""
    import torch.nn.functional as functional

    vocabulary = performer_logits.shape[-1]
    labels = input_ids[:, 1:]
    shifted_mask = attention_mask[:, 1:]
    token_loss = functional.cross_entropy(
        performer_logits[:, :-1].transpose(1, 2), labels, reduction="none"
    )
    observer_probabilities = observer_logits.softmax(-1).view(-1, vocabulary)
    cross_entropy = functional.cross_entropy(
        performer_logits.reshape(-1, vocabulary), observer_probabilities, reduction="none"
    ).view(input_ids.shape)
    not_pad = input_ids != pad_token_id  # counted as integers, exact in any model dtype
    loss_count, cross_count = shifted_mask.sum(1), not_pad.sum(1)
    return ((token_loss * shifted_mask).sum(1) / loss_count).float(), loss_count, \
        ((cross_entropy * not_pad).sum(1) / cross_count).float(), cross_count


class BinocularsScorer:
    """Observer and performer causal LMs loaded from local folders, scoring texts in batches."""

    def __init__(
        self,
        observer_path: str | Path,
        performer_path: str | Path,
        *,
        mode: Mode = "low-fpr",
        max_tokens: int = 512,
        batch_size: int = 4,
        device: str = "auto",
        dtype: str = "auto",
        min_tokens: int = 2,
        trust_remote_code: bool = False,
        whole_text: bool = False,
    ) -> None:
        """``whole_text``: score a text longer than ``max_tokens`` in consecutive windows of
        ``max_tokens`` tokens and pool them into one score (the two perplexities' sums over
        every window, so one window is the reference's score); without it, as the reference,
        only its first ``max_tokens`` tokens."""
        if mode not in THRESHOLDS:
            raise UsageError(f"unknown Binoculars mode {mode!r}; choose from {sorted(THRESHOLDS)}")
        if max_tokens < 2 or batch_size < 1 or min_tokens < 2:
            raise UsageError(
                "Binoculars needs max_tokens >= 2, min_tokens >= 2 and batch_size >= 1"
            )
        torch = _import_torch()
        self.observer_path = str(observer_path)
        self.performer_path = str(performer_path)
        self.mode: Mode = mode
        self.max_tokens = max_tokens
        self.whole_text = whole_text
        self.batch_size = batch_size
        self.min_tokens = min_tokens
        self.device = (
            ("cuda" if torch.cuda.is_available() else "cpu") if device == "auto" else device
        )
        try:
            torch.device(self.device)
        except RuntimeError:
            raise UsageError(f"unknown device {device!r}; use auto, cpu, cuda or cuda:N") from None
        if self.device.startswith("cuda") and not torch.cuda.is_available():
            raise UsageError(f"device {self.device!r} requested but CUDA is not available")
        self.dtype = _resolve_dtype(torch, dtype, self.device)
        self.tokenizer = _load_tokenizer(self.observer_path)
        _check_same_vocabulary(self.tokenizer, self.observer_path, self.performer_path)
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        if self.tokenizer.pad_token_id is None:
            raise ModelError(f"{self.observer_path}: tokenizer has neither a pad nor an eos token")
        self.tokenizer.padding_side = "right"
        self._prefix, self._suffix = _special_tokens(self.tokenizer)
        if len(self._prefix) + len(self._suffix) >= max_tokens:
            raise UsageError(f"max_tokens {max_tokens} leaves no room beside the tokenizer's "
                             "special tokens")
        self.observer = _load_model(self.observer_path, self.dtype, self.device, trust_remote_code)
        self.performer = _load_model(
            self.performer_path, self.dtype, self.device, trust_remote_code
        )
        if (
            self.observer.get_output_embeddings().weight.shape[0]
            != self.performer.get_output_embeddings().weight.shape[0]
        ):
            raise ModelError(
                f"{self.observer_path} and {self.performer_path}: vocabulary sizes differ"
            )

    @property
    def threshold(self) -> float:
        return THRESHOLDS[self.mode]

    def change_mode(self, mode: Mode) -> None:
        if mode not in THRESHOLDS:
            raise UsageError(f"unknown Binoculars mode {mode!r}; choose from {sorted(THRESHOLDS)}")
        self.mode = mode

    def score_texts(self, texts: Sequence[str]) -> list[BinocularsResult]:
        """One result per text, in input order; windows are sorted by token count before
        batching so batches need little padding."""
        torch = _import_torch()
        results: list[BinocularsResult] = []
        windows: list[tuple[list[int], int]] = []  # token ids, index of the text
        for index, text in enumerate(texts):
            if not text.strip():
                results.append(BinocularsResult(None, None, 0, False, "empty"))
                continue
            ids = self.tokenizer(text, add_special_tokens=False, truncation=False,
                                 verbose=False)["input_ids"]
            own = self._windows(ids)
            scored = sum(len(window) for window in own)
            truncated = scored - len(own) * self._specials < len(ids)
            if scored < self.min_tokens:
                results.append(BinocularsResult(None, None, scored, False, "too_few_tokens"))
                continue
            results.append(BinocularsResult(None, None, scored, truncated, None, len(own)))
            windows += [(window, index) for window in own]
        parts: dict[int, list[tuple[float, float, float, float]]] = {}
        order = sorted(range(len(windows)), key=lambda w: len(windows[w][0]))
        with torch.inference_mode():
            for start in range(0, len(order), self.batch_size):
                batch = [windows[w] for w in order[start : start + self.batch_size]]
                for (_, index), part in zip(batch, self._score_batch([ids for ids, _ in batch])):
                    parts.setdefault(index, []).append(part)
        for index, text_parts in parts.items():
            result = results[index]
            score = _pooled(text_parts)
            if score != score:  # NaN: every token is the pad/eos token
                result.skipped_reason = "only_padding_tokens"
                continue
            result.score = score
            result.prediction = "ai" if score < self.threshold else "human"
            if len(text_parts) > 1:
                result.min_window_score = min(
                    _divided(loss, cross) for loss, loss_count, cross, cross_count in text_parts
                    if loss_count and cross_count and loss == loss and cross == cross)
        return results

    @property
    def _specials(self) -> int:
        return len(self._prefix) + len(self._suffix)

    def _windows(self, ids: list[int]) -> list[list[int]]:
        """The windows a text's token ids are scored in, each with the tokenizer's special
        tokens around it: the first ``max_tokens`` tokens, or (``whole_text``) all of them, in
        consecutive windows."""
        room = self.max_tokens - self._specials
        starts = range(0, len(ids), room) if self.whole_text else range(1)
        return [[*self._prefix, *ids[start : start + room], *self._suffix] for start in starts]

    def _score_batch(self, batch: list[list[int]]) -> list[tuple[float, float, float, float]]:
        """The perplexities' parts of each window (:func:`binoculars_parts`), padded on the
        right to the longest."""
        torch = _import_torch()
        length = max(len(ids) for ids in batch)
        pad = self.tokenizer.pad_token_id
        input_ids = torch.tensor([ids + [pad] * (length - len(ids)) for ids in batch],
                                 device=self.device)
        attention_mask = torch.tensor([[1] * len(ids) + [0] * (length - len(ids))
                                       for ids in batch], device=self.device)
        observer_logits = self.observer(input_ids=input_ids, attention_mask=attention_mask).logits
        performer_logits = self.performer(input_ids=input_ids,
                                          attention_mask=attention_mask).logits
        parts = binoculars_parts(observer_logits, performer_logits, input_ids, attention_mask,
                                 pad)
        columns = [part.double().cpu().tolist() for part in parts]
        return [tuple(float(value) for value in row) for row in zip(*columns)]


def _pooled(parts: list[tuple[float, float, float, float]]) -> float:
    """One score from the windows of a text: each perplexity's mean over all their tokens (one
    window: its own score); NaN where no token counts."""
    if len(parts) == 1:
        loss, _, cross, _ = parts[0]
        return _divided(loss, cross)
    loss_count = sum(part[1] for part in parts)
    cross_count = sum(part[3] for part in parts)
    if not loss_count or not cross_count:
        return float("nan")
    loss = sum(part[0] * part[1] for part in parts if part[1]) / loss_count
    cross = sum(part[2] * part[3] for part in parts if part[3]) / cross_count
    return _divided(loss, cross)


def _divided(numerator: float, denominator: float) -> float:
    """``numerator / denominator`` as torch divides: a zero denominator gives inf (or NaN)."""
    if denominator:
        return numerator / denominator
    return math.copysign(math.inf, numerator) if numerator else math.nan


def _special_tokens(tokenizer: Any) -> tuple[list[int], list[int]]:
    """The ids the tokenizer puts before and after a text of its own (a BOS token, ...): found
    by tokenizing a word with and without them."""
    plain = tokenizer("river", add_special_tokens=False)["input_ids"]
    full = tokenizer("river")["input_ids"]
    for start in range(len(full) - len(plain) + 1):
        if full[start : start + len(plain)] == plain:
            return full[:start], full[start + len(plain):]
    return [], []


def _resolve_dtype(torch: Any, dtype: str, device: str) -> Any:
    if dtype == "auto":
        cuda_bf16 = device.startswith("cuda") and torch.cuda.is_bf16_supported()
        return torch.bfloat16 if cuda_bf16 else torch.float32
    choices = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}
    if dtype not in choices:
        raise UsageError(f"unknown dtype {dtype!r}; choose from auto, {', '.join(choices)}")
    return choices[dtype]


def _require_folder(path: str) -> None:
    if not Path(path).is_dir():
        raise ModelError(f"{path}: model folder does not exist (models load from local paths only)")


def _load_tokenizer(path: str) -> Any:
    from transformers import AutoTokenizer

    _require_folder(path)
    try:
        return AutoTokenizer.from_pretrained(path, local_files_only=True)
    except (OSError, ValueError, KeyError) as err:
        raise ModelError(f"{path}: cannot load tokenizer ({_first_line(err)})") from None


def _load_model(path: str, dtype: Any, device: str, trust_remote_code: bool) -> Any:
    from transformers import AutoModelForCausalLM
    from transformers.utils import logging as transformers_logging

    _require_folder(path)
    transformers_logging.disable_progress_bar()  # stderr stays wps's own one-line report
    try:
        model = AutoModelForCausalLM.from_pretrained(
            path, local_files_only=True, dtype=dtype, trust_remote_code=trust_remote_code
        )
    except (OSError, ValueError, KeyError) as err:
        raise ModelError(f"{path}: cannot load causal LM ({_first_line(err)})") from None
    return model.to(device).eval()


def _check_same_vocabulary(
    observer_tokenizer: Any, observer_path: str, performer_path: str
) -> None:
    """Binoculars compares two models' distributions token by token: vocabularies must match."""
    _require_folder(performer_path)
    try:
        performer_tokenizer = _load_tokenizer(performer_path)
    except ModelError:
        return  # no tokenizer beside the performer: the model's vocabulary size is checked later
    if performer_tokenizer.get_vocab() != observer_tokenizer.get_vocab():
        raise ModelError(
            f"{observer_path} and {performer_path}: tokenizers have different vocabularies"
        )


def _first_line(err: BaseException) -> str:
    return (str(err).strip().splitlines() or [type(err).__name__])[0]
