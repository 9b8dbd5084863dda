"""Which candidate blocks form the article body (the ``article`` extractor).

Every candidate block (:func:`wps.article_body.blocks.extract_runs`) gets the packaged model's
probability of being body text; blocks at or above the model's threshold are the body. One guard
keeps a wrong model decision from emptying a page: when the chosen blocks hold less than
:data:`FALLBACK_SHARE` of the words the default trafilatura run found, the body is the default
run's blocks (the decision found no body where trafilatura found one).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from .blocks import FEATURES, Block, block_features, extract_runs
from .model import BlockModel, load_block_model

__all__ = ["ArticleBody", "article_body", "choose_blocks", "FALLBACK_SHARE"]

FALLBACK_SHARE = 0.3
_IN_DEFAULT = FEATURES.index("in_default")


@dataclass(slots=True)
class ArticleBody:
    """The chosen blocks of one page and how they were chosen."""

    blocks: list[Block] = field(default_factory=list)
    probabilities: list[float] = field(default_factory=list)
    """Per candidate block (all of them, in order)."""
    candidates: int = 0
    fallback: bool = False
    """True when the default run's blocks replaced an (almost) empty decision."""


def choose_blocks(rows: Sequence[Sequence[float]], probabilities: Sequence[float],
                  counts: Sequence[int], threshold: float) -> tuple[list[int], bool]:
    """Indices of the body blocks, and whether the fallback to the default run was taken."""
    chosen = [i for i, p in enumerate(probabilities) if p >= threshold]
    in_default = [i for i, row in enumerate(rows) if row[_IN_DEFAULT] >= 0.5]
    default_words = sum(counts[i] for i in in_default)
    kept_words = sum(counts[i] for i in chosen if rows[i][_IN_DEFAULT] >= 0.5)
    if default_words and kept_words < FALLBACK_SHARE * default_words:
        return in_default, True
    return chosen, False


def article_body(html: str, url: str | None = None,
                 model: BlockModel | None = None) -> ArticleBody:
    """The article body of ``html`` as blocks in reading order."""
    model = model or load_block_model()
    runs = extract_runs(html, url)
    if not runs.blocks:
        return ArticleBody()
    rows = block_features(runs)
    probabilities = model.probabilities(rows)
    chosen, fallback = choose_blocks(rows, probabilities,
                                     [len(b.tokens) for b in runs.blocks], model.threshold)
    return ArticleBody([runs.blocks[i] for i in chosen], probabilities, len(runs.blocks),
                       fallback)
