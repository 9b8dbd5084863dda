"""The language of each kept segment, and the ``--lang`` filter.

AI-text detectors are language-specific, so every kept segment's detector text
(:func:`wps.records.detector_text`) gets a ``lang`` (ISO 639-1 code, ``""`` where the text has no
letters) and ``lang_score`` (the identifier's normalised probability) on the segment, from
py3langid (a packaged model, nothing downloaded). With ``languages`` given, a kept segment in any
other language is dropped with the reason :data:`LANG_REASON`, as a filter rule drops one.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any

from .cached import cached_file, source_key
from .errors import UsageError
from .model import Segment
from .state import PageState, PipelineStep

__all__ = ["LANG_REASON", "LangStep", "identify", "parse_languages"]

LANG_REASON = "lang_not_allowed"
"""Reason code of a kept segment whose language is not among ``--lang``."""
UNKNOWN = ""
"""The language of a text without letters: nothing to identify."""


@lru_cache(maxsize=1)
def _identifier() -> Any:
    """py3langid's identifier with normalised probabilities, loaded once per process, from the
    model decompressed once into the cache (:mod:`wps.cached`; from the package, 0.45 s)."""
    try:
        from py3langid.langid import MODEL_DIR, MODEL_FILE, LanguageIdentifier
    except ImportError:
        raise UsageError("language identification needs py3langid: pip install py3langid==0.4.0"
                         ) from None
    identifier_class = _windowed(LanguageIdentifier)
    try:
        ptc, pc, classes, nextmove, row, output = _cached_model(MODEL_DIR / MODEL_FILE)
    except Exception:  # noqa: BLE001 - no cache here, or another layout: the package's own load
        return identifier_class.from_model_file(MODEL_FILE, norm_probs=True)
    return identifier_class(ptc, pc, classes, nextmove, output, norm_probs=True, tk_row=row)


DEEPEST_STATE = 6
"""Bytes from the start to the deepest state of py3langid's scanner (an Aho-Corasick automaton
over byte n-grams; checked against the packaged model by ``tests/test_lang.py``)."""
WINDOWED_FROM_BYTES = 400
"""Texts shorter than this are walked by py3langid's own loop, which is faster there."""


def _windowed(base: type) -> type:
    """``base`` (py3langid's identifier) with its scanner walk done over all bytes at once.

    The scanner's state after a byte is the longest suffix of the text so far that is a prefix of
    one of its n-grams: at most :data:`DEEPEST_STATE` bytes, so it is the state reached from the
    start over the last :data:`DEEPEST_STATE` bytes alone. That is :data:`DEEPEST_STATE` array
    lookups over the whole text instead of a Python loop over its bytes (the step's largest cost:
    0.37 ms a kept segment; twice as fast from 1,000 bytes up). The features come in the loop's
    order, first seen first, so the scores are the same to the bit."""
    import numpy as np

    class WindowedIdentifier(base):  # type: ignore[misc, valid-type]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._moves = np.asarray(self.tk_nextmove)
            self._rows = np.asarray(self._rowbase, dtype=np.int64)
            self._outputs = np.asarray(self.tk_output, dtype=np.int64)

        def _raw_score(self, text: bytes) -> Any:
            if len(text) < WINDOWED_FROM_BYTES:
                return super()._raw_score(text)
            codes = np.frombuffer(text, dtype=np.uint8)
            states = np.zeros(codes.size, dtype=np.int64)
            for back in range(min(DEEPEST_STATE, codes.size) - 1, -1, -1):
                states[back:] = self._moves[self._rows[states[back:]] + codes[:codes.size - back]]
            features = self._outputs[states]
            features = features[features >= 0]
            if not features.size:
                return super()._raw_score(b"")  # no features: py3langid's own fill
            found, first, counts = np.unique(features, return_index=True, return_counts=True)
            order = np.argsort(first, kind="stable")
            visits = dict(zip(found[order].tolist(), counts[order].tolist()))
            return self._sparse_score(visits, self.nb_ptc)

    return WindowedIdentifier


def _cached_model(packaged: Path) -> tuple[Any, ...]:
    """The model's tables as py3langid's ``load_model`` returns them, read from its decompressed
    copy in the cache (written from ``packaged``, the ``.npz.xz`` file, on first use)."""
    import lzma
    import shutil
    from importlib.metadata import version

    import numpy as np
    from py3langid.modelio import _to_array

    def decompress(stream: Any) -> None:
        with lzma.open(packaged) as source:
            shutil.copyfileobj(source, stream, length=1 << 20)

    path = cached_file("py3langid-model.npz", source_key(packaged, version("py3langid")),
                       decompress)
    if path is None:
        raise OSError("no cache")
    with np.load(path, allow_pickle=False) as data:
        return (data["ptc"], data["pc"], data["classes"].tolist(), _to_array(data["nextmove"]),
                _to_array(data["nextmove_row"]), data["out_feat"].tolist())


def identify(text: str) -> tuple[str, float]:
    """The language code of ``text`` and its probability; ``("", 0.0)`` for a text without
    letters (py3langid would guess one for digits or punctuation)."""
    if not any(char.isalpha() for char in text):
        return UNKNOWN, 0.0
    lang, probability = _identifier().classify(text)
    return str(lang), round(float(probability), 4)


def parse_languages(value: str | Iterable[str] | None) -> tuple[str, ...]:
    """``"en,de"`` (or a list) as a sorted tuple of lower-case codes; a code py3langid does not
    know is a :class:`UsageError` naming the known ones' count."""
    if value is None:
        return ()
    items = value.split(",") if isinstance(value, str) else list(value)
    codes = tuple(sorted({item.strip().lower() for item in items if item.strip()}))
    if isinstance(value, str) and value.strip() and not codes:
        raise UsageError(f"--lang {value!r}: no language code given (e.g. --lang en,de)")
    if not codes:
        return ()
    known = set(_identifier().nb_classes)
    unknown = [code for code in codes if code not in known]
    if unknown:
        raise UsageError(f"--lang: unknown language code(s) {unknown}; py3langid knows "
                         f"{len(known)} ISO 639-1 codes such as en, de, fr")
    return codes


class LangStep(PipelineStep):
    """Name the language of every kept segment; with ``languages``, drop the others."""

    name = "lang"
    needs = ("segmentation",)
    adds = ("lang", "lang_score", "kept", "reasons")
    drops = (LANG_REASON,)

    def __init__(self, languages: Iterable[str] = ()) -> None:
        self.languages = frozenset(parse_languages(languages))

    def warm_up(self) -> None:
        _identifier()

    def run(self, page: PageState) -> None:
        from .records import detector_text

        for segment in page.segments:
            if segment.kept:
                self.judge(segment, detector_text(segment))

    def judge(self, segment: Segment, text: str) -> None:
        lang, probability = identify(text)
        segment.lang = lang
        segment.lang_score = probability
        if self.languages and lang not in self.languages:
            segment.kept = False
            segment.reasons.append(LANG_REASON)
