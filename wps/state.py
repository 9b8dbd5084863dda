"""The record between steps and the step interface: :class:`PageState` (one page on its way
through the steps), :class:`PipelineStep` (one ``run(page)`` each) and :func:`run_steps`.

A low module on its own, so that each stage's step class (``wps.posts.step``, ``wps.decide.step``,
``wps.lang``) imports only this and what lies below it; the concrete steps of the other stages
are in :mod:`wps.steps`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, ClassVar

from .errors import UsageError
from .model import PageCapture, Segmentation

if TYPE_CHECKING:
    from .decide.page import PageVerdict
    from .posts.records import PostStructure
    from .records import SegmentLine
    from .text.stage import TextStageResult

__all__ = ["PageState", "PipelineStep", "check_order", "run_steps"]


@dataclass(slots=True)
class PageState:
    """One page on its way through the steps; each step fills its part."""

    capture: PageCapture
    segmentation: Segmentation | None = None
    segmented: Segmentation | None = None
    """The segmenter's own segmentation, as annotators draw a page (a post with its replies is
    one segment): what ``segmentation.json`` holds, before the posts step cuts posts into body,
    chrome and quote pieces for the detector."""
    text: TextStageResult | None = None
    """The main-text step's page report (``None`` without that step)."""
    posts: PostStructure | None = None
    """The posts step's records and parts (``None`` without that step)."""
    verdict: PageVerdict | None = None
    """The decision step's page verdict (``None`` without that step)."""

    @classmethod
    def from_records(cls, lines: Sequence[SegmentLine]) -> PageState:
        """A page read back from the lines of its ``segments.jsonl`` (:mod:`wps.records`): the
        lines' own segments, so that writing the lines back writes what steps changed, and what
        the lines say of the capture (address, page id, whether it finished loading); no DOM
        nodes and no text report, so only steps that need neither run on it."""
        place = lines[0].context.fields if lines else {}
        capture = PageCapture(url=str(place.get("url", "")), width=0, height=0, nodes=[],
                              page_id=str(place.get("page_id", "")),
                              incomplete=place.get("incomplete") is True)
        segmentation = Segmentation(capture.page_id, str(place.get("segmenter", "")), 0, 0,
                                    [line.segment for line in lines])
        return cls(capture, segmentation)

    @property
    def segments(self) -> list:
        assert self.segmentation is not None, "the segment step runs first"
        return self.segmentation.segments


class PipelineStep:
    """One stage of the page pipeline. ``name`` is what timings and timeout messages call it;
    ``needs``, ``adds`` and ``drops`` are its contract with the other steps."""

    name: ClassVar[str] = "step"
    needs: ClassVar[tuple[str, ...]] = ()
    """The :class:`PageState` parts it reads, which the page holds or an earlier step adds."""
    adds: ClassVar[tuple[str, ...]] = ()
    """The :class:`PageState` parts and :class:`~wps.model.Segment` fields it fills."""
    drops: ClassVar[tuple[str, ...]] = ()
    """The reason codes it drops segments with (``wps/reasons.toml``): this step owns them, so
    ``wps filter`` keeps those of the steps after the filters."""

    def run(self, page: PageState) -> None:
        raise NotImplementedError

    def warm_up(self) -> None:
        """Load what :meth:`run` would load on its first page (modules, models), outside any
        page's deadline."""


def check_order(steps: Sequence[PipelineStep], page: PageState | None = None) -> None:
    """Refuse steps put in an order where one needs a part of the page that neither ``page``
    holds nor an earlier step adds (steps put together by hand, through the Python API)."""
    have = {"capture"}
    if page is not None:
        have |= {part.name for part in fields(page) if getattr(page, part.name) is not None}
    for step in steps:
        missing = [part for part in step.needs if part not in have]
        if missing:
            order = " -> ".join(each.name for each in steps)
            raise UsageError(f"the {step.name} step needs the page's {' and '.join(missing)}, "
                             f"which no step before it adds (steps: {order})")
        have.update(step.adds)


def run_steps(steps: list[PipelineStep], page: PageState, deadline: Any = None) -> PageState:
    """Run ``steps`` in order on ``page`` (:func:`check_order` first); ``deadline`` (a
    :class:`wps.deadline.Deadline`) is told which step runs, for its timeout message, and
    checked between steps."""
    check_order(steps, page)
    for step in steps:
        if deadline is not None:
            deadline.enter(step.name)
        step.run(page)
    return page
