"""The record between steps and the step interface: :class:`PageState` (one page on its way
through the steps), :class:`PipelineStep` (one ``run(page)`` each) and :func:`run_steps`.

A low module on its own, so that each stage's step class (``wps.posts.step``, ``wps.decide.step``,
``wps.lang``) imports only this and what lies below it; the concrete steps of the other stages
are in :mod:`wps.steps`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from .model import PageCapture, Segmentation

if TYPE_CHECKING:
    from .decide.page import PageVerdict
    from .posts.records import PostStructure
    from .text.stage import TextStageResult

__all__ = ["PageState", "PipelineStep", "run_steps"]


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

    @property
    def segments(self) -> list:
        assert self.segmentation is not None, "the segment step runs first"
        return self.segmentation.segments


class PipelineStep:
    """One stage of the page pipeline. ``name`` is what timings and timeout messages call it."""

    name: ClassVar[str] = "step"

    def run(self, page: PageState) -> None:
        raise NotImplementedError

    def warm_up(self) -> None:
        """Load what :meth:`run` would load on its first page (modules, models), outside any
        page's deadline."""


def run_steps(steps: list[PipelineStep], page: PageState, deadline: Any = None) -> PageState:
    """Run ``steps`` in order on ``page``; ``deadline`` (a :class:`wps.deadline.Deadline`) is
    told which step runs, for its timeout message, and checked between steps."""
    for step in steps:
        if deadline is not None:
            deadline.enter(step.name)
        step.run(page)
    return page
