"""Boilerplate-tail removal: a noise-sentence classifier and the boundary that cuts the tail.

Off by default: the stage runs only when a trained model folder is given (``wps train-noise``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from ..errors import UsageError
from ..model import Segment
from .boundary import NoiseTail, boundary_index, boundary_scores, cut_noise_tail, split_chunks
from .classifier import NoiseClassifier, TrainingReport, load_labelled_jsonl

__all__ = [
    "NoiseTailCutter",
    "NoiseClassifier",
    "TrainingReport",
    "load_labelled_jsonl",
    "NoiseTail",
    "boundary_index",
    "boundary_scores",
    "cut_noise_tail",
    "split_chunks",
]


class NoiseTailCutter:
    """Pipeline stage: cuts the noise tail off each segment's ``text`` and ``main_text``.

    The removed part goes to ``Segment.noise_tail`` (removed text, chunk counts), so nothing is
    lost; ``stats["noise_tail_chars"]`` holds how many characters of ``text`` were cut.
    """

    def __init__(
        self, model: str | Path | NoiseClassifier, fields: Sequence[str] = ("text", "main_text")
    ) -> None:
        self.classifier = (
            model if isinstance(model, NoiseClassifier) else NoiseClassifier.load_cached(model)
        )
        unknown = set(fields) - {"text", "main_text"}
        if unknown:
            raise UsageError(f"noise tail fields must be text/main_text, not {sorted(unknown)}")
        self.fields = tuple(fields)

    def process(self, segments: list[Segment]) -> None:
        for segment in segments:
            report: dict[str, object] = {}
            for name in self.fields:
                text = getattr(segment, name)
                if not text.strip():
                    continue
                tail = cut_noise_tail(text, self.classifier.noise_probabilities)
                report[name] = {
                    "removed": tail.removed,
                    "chunks": tail.chunks,
                    "kept_chunks": tail.kept_chunks,
                }
                if name == "text":
                    segment.stats["noise_tail_chars"] = float(len(text) - len(tail.kept))
                setattr(segment, name, tail.kept)
            if report:
                segment.noise_tail = report
