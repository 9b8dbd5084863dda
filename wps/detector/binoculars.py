"""Binoculars AI-text score (Hans et al., ICML 2024), computed exactly as ahans30/Binoculars does.

There is no usable PyPI package (``pip install binoculars`` is an unrelated project), so the scorer
is rewritten here on ``transformers`` (text-and-filters.md §5). The reference code's details matter
because the published thresholds were chosen with them:

* log-perplexity uses the **performer**'s logits (shifted, weighted by the shifted attention mask);
* cross-perplexity is the observer's softmax against the performer's log-softmax at **every**
  position, not shifted, averaged over positions whose id is not the pad id; pad = eos when the
  tokenizer has none, so a literal EOS token in the text is masked too;
* only the first ``max_tokens`` (512) tokens are scored; ``score < threshold`` means AI-generated.

Deviation: batches are padded on the right whatever the tokenizer's default, so a text's score does
not depend on its batch neighbours (the reference uses the tokenizer's side; Falcon's is right
already).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Sequence

from ..errors import MissingDependencyError, ModelError, UsageError

__all__ = ["THRESHOLDS", "BinocularsResult", "BinocularsScorer", "binoculars_scores"]

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
    import torch.nn.functional as functional

    vocabulary = performer_logits.shape[-1]
    labels = input_ids[:, 1:]
    shifted_mask = attention_mask[:, 1:]
    token_loss = functional.cross_entropy(
        performer_logits[:, :-1].transpose(1, 2), labels, reduction="none"
    )
    log_perplexity = (token_loss * shifted_mask).sum(1) / shifted_mask.sum(1)
    observer_probabilities = observer_logits.softmax(-1).view(-1, vocabulary)
    cross_entropy = functional.cross_entropy(
        performer_logits.reshape(-1, vocabulary), observer_probabilities, reduction="none"
    ).view(input_ids.shape)
    not_pad = input_ids != pad_token_id  # counted as integers, exact in any model dtype
    cross_perplexity = (cross_entropy * not_pad).sum(1) / not_pad.sum(1)
    # the reference divides after moving both to float32 numpy arrays; bf16 division would round
    return log_perplexity.float() / cross_perplexity.float()


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
    ) -> None:
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
        """One result per text, in input order; texts are sorted by token count before batching so
        batches need little padding."""
        torch = _import_torch()
        results: list[BinocularsResult] = []
        lengths: list[tuple[int, int]] = []
        for index, text in enumerate(texts):
            full = 0
            if text.strip():
                full = len(self.tokenizer(text, truncation=False, verbose=False)["input_ids"])
            scored = min(full, self.max_tokens)
            if not text.strip():
                results.append(BinocularsResult(None, None, 0, False, "empty"))
            elif scored < self.min_tokens:
                results.append(BinocularsResult(None, None, scored, False, "too_few_tokens"))
            else:
                lengths.append((scored, index))
                results.append(BinocularsResult(None, None, scored, full > self.max_tokens))
        order = [index for _, index in sorted(lengths)]
        with torch.inference_mode():
            for start in range(0, len(order), self.batch_size):
                batch = order[start : start + self.batch_size]
                scores = self._score_batch([texts[i] for i in batch])
                for index, score in zip(batch, scores):
                    result = results[index]
                    if score != score:  # NaN: every token is the pad/eos token
                        result.skipped_reason = "only_padding_tokens"
                        continue
                    result.score = score
                    result.prediction = "ai" if score < self.threshold else "human"
        return results

    def _score_batch(self, batch: list[str]) -> list[float]:
        encodings = self.tokenizer(
            batch,
            return_tensors="pt",
            padding="longest" if len(batch) > 1 else False,
            truncation=True,
            max_length=self.max_tokens,
            return_token_type_ids=False,
        ).to(self.device)
        observer_logits = self.observer(**encodings).logits
        performer_logits = self.performer(**encodings).logits
        scores = binoculars_scores(
            observer_logits,
            performer_logits,
            encodings["input_ids"],
            encodings["attention_mask"],
            self.tokenizer.pad_token_id,
        )
        return [float(value) for value in scores.float().cpu().tolist()]


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
