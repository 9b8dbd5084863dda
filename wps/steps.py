"""The page steps after capture, all of one shape: ``step.run(page)``.

As in datatrove's ``PipelineStep``, every stage is one class with one ``run`` signature and the
pipeline is an ordered list of steps (:func:`wps.pipeline.build_steps`), which ``wps.segment``,
``wps batch`` and the benchmarks all run. A step reads what earlier steps left on the
:class:`PageState` and adds its own part; it receives only its own config section, and never
reaches into another step. Adding a stage is one class here and one line in ``build_steps``.
The step interface itself (:class:`PageState`, :class:`PipelineStep`, :func:`run_steps`) lives
in :mod:`wps.state`, under every stage, so that a stage's own step class imports nothing above
it.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .reasons import glossary
from .state import PageState, PipelineStep, run_steps

if TYPE_CHECKING:
    from .segmenters import Segmenter

__all__ = [
    "DedupStep",
    "FilterStep",
    "MainTextStep",
    "NoiseTailStep",
    "PageState",
    "PipelineStep",
    "RefilterStep",
    "SegmentStep",
    "run_steps",
]


class SegmentStep(PipelineStep):
    """Split the page into segments with a registered segmenter."""

    name = "segmentation"
    adds = ("segmentation", "segmented")

    def __init__(self, segmenter: Segmenter) -> None:
        self.segmenter = segmenter

    def warm_up(self) -> None:
        warm_up = getattr(self.segmenter, "warm_up", None)  # optional: not in the interface
        if warm_up is not None:
            warm_up()

    def run(self, page: PageState) -> None:
        page.segmentation = self.segmenter.segment(page.capture)
        page.segmented = replace(page.segmentation, segments=list(page.segmentation.segments))


class MainTextStep(PipelineStep):
    """Extract the page's main text and give each segment its part and statistics
    (text-and-filters.md §1): segmentation happens after main-text extraction."""

    name = "main text"
    needs = ("segmentation",)
    adds = ("text", "main_text", "stats", "main_text_match", "unsegmented")

    def __init__(self, extract: dict[str, Any], text: dict[str, Any]) -> None:
        from .text.extract import ExtractOptions

        self.options = ExtractOptions.from_config(extract)
        self.add_unsegmented = bool(text.get("add_unsegmented", False))

    def warm_up(self) -> None:
        import trafilatura  # noqa: F401 - half a second of imports on a first page

        from .text import stage  # noqa: F401
        from .text.extract import load_justext_stoplist

        load_justext_stoplist()  # else built on the first page that falls back to jusText

    def run(self, page: PageState) -> None:
        from .text.stage import map_main_text

        assert page.segmentation is not None  # needs, checked by run_steps
        page.text = map_main_text(page.capture, page.segmentation, self.options,
                                  add_unsegmented=self.add_unsegmented)


class NoiseTailStep(PipelineStep):
    """Cut boilerplate tails off segment texts with a ``wps train-noise`` model (before the
    filters judge the texts)."""

    name = "noise tail"
    needs = ("text",)
    adds = ("noise_tail",)

    def __init__(self, model: str | Path) -> None:
        from .noise_tail import NoiseTailCutter

        self.cutter = NoiseTailCutter(model)

    def run(self, page: PageState) -> None:
        self.cutter.process(page.segments)


class FilterStep(PipelineStep):
    """Mark every segment kept or dropped by the segment rules and judge the page by the page
    rules (text-and-filters.md §2, §3); ``extract`` is needed for the favor_precision retry."""

    name = "filters"
    needs = ("segmentation", "text")
    adds = ("kept", "reasons", "page_reasons")
    drops = tuple(glossary()["filters"])

    def __init__(self, filters: dict[str, Any], extract: dict[str, Any]) -> None:
        from .filters import rules_from_config
        from .text.extract import ExtractOptions

        self.segment_rules = rules_from_config(filters["segment"])
        self.page_rules = rules_from_config(filters["page"])
        self.options = ExtractOptions.from_config(extract)

    def run(self, page: PageState) -> None:
        from .text.stage import filter_segments

        assert page.segmentation is not None and page.text is not None  # needs
        filter_segments(page.capture, page.segmentation, page.text, self.segment_rules,
                        self.page_rules, self.options)


class RefilterStep(PipelineStep):
    """The segment rules of :class:`FilterStep` again, on a page read back from its lines
    (:meth:`PageState.from_records`, ``wps filter``): the thresholds can change after the fact.

    Each segment's ``stats`` must hold what the rules read (``wps filter`` recomputes the text
    counts and checks the stored DOM shares first). A segment is judged by the main text the
    pipeline's filters judged (before the decision cut lines); the reasons of the steps after
    the filters stay, as the line cannot be judged again for them: the prose decision's and
    the language filter's come from the page's capture and the run's options, de-duplication's
    from the site's state. A segment the decision rescued is not dropped again for what its
    rescue overrode. Detector units follow the new keep flags
    (:func:`wps.decide.units.refresh_units`).
    """

    name = "refilter"
    needs = ("segmentation",)
    adds = ("kept", "reasons", "unit")
    drops = FilterStep.drops

    def __init__(self, filters: dict[str, Any]) -> None:
        from .decide import DecideStep
        from .filters import rules_from_config
        from .lang import LangStep

        self.segment_rules = rules_from_config(filters["segment"])
        self.reads = sorted({key for rule in self.segment_rules
                             for key in getattr(rule, "reads", ())})
        """The ``stats`` keys the enabled rules read."""
        self.carried = frozenset({*DecideStep.drops, *LangStep.drops, *DedupStep.drops})
        """The reason codes of the steps after the filters, which stay."""

    def run(self, page: PageState) -> None:
        from .decide.step import RESCUABLE
        from .decide.units import refresh_units
        from .filters import apply_rules

        segments = page.segments
        trimmed = [segment.main_text for segment in segments]
        for segment in segments:
            if segment.main_text_untrimmed is not None:
                segment.main_text = segment.main_text_untrimmed
        carried = [[r for r in segment.reasons if r in self.carried] for segment in segments]
        apply_rules(segments, self.segment_rules)
        for segment, main_text, reasons in zip(segments, trimmed, carried):
            segment.main_text = main_text
            overrides = segment.rescue_overrides
            if segment.main_text_rescued and overrides is None:
                # written before the overrides were: rescued text judged
                segment.reasons = [r for r in segment.reasons if r not in RESCUABLE]
            elif overrides is not None and set(segment.reasons) <= set(overrides):
                segment.reasons = []  # a rescue, or a line put back between writing
            segment.reasons += [r for r in reasons if r not in segment.reasons]
            segment.kept = not segment.reasons
        refresh_units(segments)


class DedupStep(PipelineStep):
    """Mark segments repeated from earlier pages of the same site (text-and-filters.md §4), with
    the ``[dedup]`` settings of the run's config."""

    name = "dedup"
    needs = ("segmentation",)
    adds = ("kept", "reasons", "dup", "simhash")
    drops = tuple(glossary()["dedup"])

    def __init__(self, dedup: dict[str, Any], db: str | Path) -> None:
        from .dedup import DedupSettings

        self.settings = DedupSettings.from_config(dedup)
        self.db = db

    def run(self, page: PageState) -> None:
        from .dedup import Deduplicator

        with Deduplicator(self.db, self.settings) as deduplicator:
            deduplicator.process(page.capture.url, page.segments)
