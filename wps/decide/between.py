"""Lines judged by where they stand: an article's section headings and its short sentences.

Line trimming cuts headings (:func:`wps.decide.lines.chrome_lines`); a segment that holds only a
heading, or only a sentence too short to be prose by its own text (a line of dialogue, "No
answer."), is dropped. Alone, neither is writing to judge; but between an article's paragraphs
both are its writer's, and the article reaches the detector as one text (its unit,
:mod:`wps.decide.units`), where they stand between the paragraphs as in the article.

So, on a page judged an article, inside the article's span (:func:`wps.decide.step._article_span`),
a line the extractor kept that is a heading (in ``h1``–``h6`` or set as one by its size, not a link
away (a permalink to itself is no link), not marked as chrome, not in a small form) or a short
sentence (one that ends a sentence, or a lead-in that introduces a quote, a list or a program with a
colon; alone in its segment or with headings, or cut from a kept one for being short, not as chrome)
stays where it stands after some of the article's kept writing and before :data:`MIN_OPENED_WORDS`
more of it, with at most one short dropped line or one program between it and the writing it opens
(a photo's credit, "Advertisement", the code a lead-in introduces) and no dropped line between
headings in a row. A heading opens the writing up to the next heading: short sentences placed inside
its section do not end what it opens. What does not stay: the article's title (before all its
writing), a heading that closes it ("Related stories": nothing of the article follows), headings
after a thread's posts (none of the article's writing since), a teaser's linked title, and headings
the extractor took as comments ("Comments", "Discuss this article"). A segment kept for such lines
alone carries the filter reasons it was kept over as ``rescue_overrides``, so ``wps filter`` keeps
it again.

Held out by site (``main-s14e`` → ``main-s15``, ``eval/results/detector.md``, with the small-form
and BEM changes beside it): readability-dev F1 .9312 → .9396, article benchmark F1 .933 → .940;
nonarticle-dev's figures stayed (1 leak of 267). Written looking at the lines readability-dev
loses; the 25 words and the comments and small-form guards after reading what it added on one
article-benchmark page (a newsletter box and teasers) and two nonarticle-dev pages. Lead-ins and
programs between (``main-s16``): written looking at readability-dev's lost lead-ins (a thread of
quoted tweets, a SQL tutorial); the three-word floor is a label's length, not fitted. Headings
that link to themselves (``main-s16b``: .9401 → .9406): written looking at one readability-dev
page (toc-missing), checked to change nothing else on the 201 dev pages.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ..model import PageCapture, Segment
from ..page.reading import reading_lines
from ..text.code import looks_like_code
from ..text.sentences import ends_sentence
from .features import word_count
from .lines import PageChrome, chrome_lines, headline_size, squeezed

__all__ = ["keep_lines_between_writing", "heading_lines"]

SHORT_REASONS = frozenset({"too_few_tokens", "too_few_chars", "no_long_block"})
"""The filter rules' reasons against a text for being short."""
DROPPED_ALONE = SHORT_REASONS | {"not_prose", "too_little_prose", "link_share"}
"""A segment dropped only for these may hold a section's heading or short sentences alone (for
its link share: a heading that links to itself, a sentence that links to a note)."""
MAX_SENTENCE_WORDS = 20
"""A sentence this short, alone in its segment, is judged by where it stands."""
MIN_LEAD_IN_WORDS = 3
"""A line ending in a colon that introduces what follows ("She is still trying:", "The contents
can be queried:") is a short sentence from this many words; a label ("Tags:", "Share this:") has
fewer."""
MIN_OPENED_WORDS = 25
"""A heading or short sentence stays only before this many words of kept writing (a section, a
paragraph), not before a teaser's one-line lead or a sign-up box's blurb."""
MAX_BETWEEN = 1
MAX_BETWEEN_WORDS = 12
"""At most this many dropped lines, each this short, between a line and the writing it opens."""
COMMENTS_SHARE = 0.5
"""A segment whose main text the extractor took mostly as comments holds no article heading."""


@dataclass(slots=True)
class _Piece:
    """A segment of the article's span: its lines before trimming, which of them it keeps,
    and which (squeezed) are judged by where they stand; ``closes``: a post, which nothing
    before it opens and after which the article's writing starts anew."""

    segment: Segment
    lines: list[str]
    kept: list[bool]
    placed: set[str]
    headings: set[str] = field(default_factory=set)
    """The placed lines that are headings: each starts a section, so the writing before it
    opened what it opened; a short sentence placed inside a section does not."""
    closes: bool = False
    sentences: bool = False
    """The piece, dropped, holds short sentences (and headings, if any) alone."""
    code: bool = False
    """The piece is a program dropped as code: the article's, left out by design, so it stands
    between a line and the writing it opens as one dropped line, whatever its length."""


def keep_lines_between_writing(capture: PageCapture, segments: Iterable[Segment], span: range,
                               chrome: PageChrome) -> int:
    """Keep the article's headings and short sentences that stand between its kept writing (see
    the module), in the kept segments whose trimming cut them and in the segments that hold
    nothing else; returns how many lines."""
    pieces: list[_Piece] = []
    for segment in sorted(segments, key=lambda s: min(s.node_ids, default=-1)):
        if not segment.node_ids or min(segment.node_ids) not in span:
            continue
        if segment.post_part is not None:
            pieces.append(_Piece(segment, [], [], set(), closes=True))
            continue
        comments = (segment.main_text_match or {}).get("comment_share", 0.0) > COMMENTS_SHARE
        lines = _lines_before_trimming(segment)
        reasons = set(segment.reasons)
        if segment.kept:
            kept = _kept_flags(lines, segment.main_text.splitlines())
            aligned = sum(kept) == len([line for line in segment.main_text.splitlines()
                                        if line.strip()])  # else leave it as it is
            headings, placed = set(), set()
            if aligned and not comments:
                headings = heading_lines(capture, segment.node_ids, chrome)
                placed = headings | _cut_sentences(capture, segment, lines, kept, chrome)
            pieces.append(_Piece(segment, lines, kept, placed, headings))
        elif (lines and not comments and reasons <= DROPPED_ALONE
              and not any(node_id in chrome.forms for node_id in segment.node_ids)
              and (headings := _alone(capture, segment, lines, reasons, chrome)) is not None):
            placed = set(map(squeezed, lines))
            pieces.append(_Piece(segment, lines, [False] * len(lines), placed, headings,
                                 sentences=not placed <= headings))
        else:
            text = [line for line in segment.text.splitlines() if line.strip()]
            pieces.append(_Piece(segment, text, [False] * len(text), set(),
                                 code="code_share" in reasons))
    return _restore(pieces)


def _restore(pieces: list[_Piece]) -> int:
    """Keep the placed lines that stand between kept lines, across pieces in order, where the
    writing they open (the kept lines up to the next placed line or post) has
    :data:`MIN_OPENED_WORDS`; rewrite each piece that gains one."""
    chosen = [list(piece.kept) for piece in pieces]
    seen_writing = False
    pending: list[tuple[int, int]] = []
    opening: list[tuple[int, int]] = []  # placed lines followed by writing, not yet enough
    opened = 0  # words of the writing ``opening`` opens
    between = 0  # dropped lines since the last pending line
    for index, piece in enumerate(pieces):
        if piece.closes:
            pending, opening, seen_writing = [], [], False
            continue
        if piece.code:
            between += 1
            if between > MAX_BETWEEN:
                pending = []
            continue
        for line_index, line in enumerate(piece.lines):
            if piece.kept[line_index]:
                if pending and seen_writing:
                    if opening:  # short sentences inside the section still being opened
                        opening = opening + pending
                    else:
                        opening, opened = pending, 0
                seen_writing, pending = True, []
                opened += word_count(line)
                if opening and opened >= MIN_OPENED_WORDS:
                    for held_piece, held_line in opening:
                        chosen[held_piece][held_line] = True
                    opening = []
            elif squeezed(line) in piece.placed:
                if between:  # the lines before opened only what was dropped
                    pending = []
                pending.append((index, line_index))
                if squeezed(line) in piece.headings:
                    opening = []
                between = 0
            else:
                between += 1
                if between > MAX_BETWEEN or word_count(line) > MAX_BETWEEN_WORDS:
                    pending = []
    restored = 0
    for piece, flags in zip(pieces, chosen):
        added = sum(flags) - sum(piece.kept)
        if not added:
            continue
        restored += added
        segment = piece.segment
        segment.main_text = "\n".join(line for line, keep in zip(piece.lines, flags) if keep)
        if not segment.kept:
            # as a rescue: ``wps filter`` keeps it again where the rules give no other reason
            segment.rescue_overrides = sorted(set(segment.reasons) & (SHORT_REASONS
                                                                     | {"link_share"}))
            segment.kept = True
            segment.reasons.clear()
            segment.kind = "prose" if piece.sentences else "heading"
        elif segment.lines_trimmed:
            segment.lines_trimmed -= added
    return restored


def _alone(capture: PageCapture, segment: Segment, lines: list[str], reasons: set[str],
           chrome: PageChrome) -> set[str] | None:
    """The headings of a dropped segment that holds only headings and short sentences (a
    section's heading over its one-line lead-in), or ``None`` where it holds anything else. In a
    segment dropped for its link share a heading links nowhere away (one that links to itself
    is a heading; a teaser's title, "Related post: <a>…</a>", is not)."""
    headings = heading_lines(capture, segment.node_ids, chrome,
                             unlinked="link_share" in reasons)
    if all(squeezed(line) in headings or _short_sentence(line) for line in lines):
        return headings
    return None


def _cut_sentences(capture: PageCapture, segment: Segment, lines: list[str], kept: list[bool],
                   chrome: PageChrome) -> set[str]:
    """The short sentences trimming cut from a kept segment for being short ("No answer."), not
    for what the page shows them as (a footer's line, a link)."""
    cut = {squeezed(line) for line, keep in zip(lines, kept) if not keep and _short_sentence(line)}
    if not cut:
        return cut
    return cut - chrome_lines(capture, segment.node_ids, chrome,
                              landmarks=segment.post_part is None)


def _short_sentence(line: str) -> bool:
    """A line that ends a sentence, or introduces what follows with a colon, and is short; not
    a program's."""
    words = word_count(line)
    if line.rstrip().endswith((":", "：")):
        long_enough = words >= MIN_LEAD_IN_WORDS
    else:
        long_enough = ends_sentence(line) and words > 0
    return long_enough and words <= MAX_SENTENCE_WORDS and not looks_like_code(line)


def heading_lines(capture: PageCapture, node_ids: list[int], chrome: PageChrome,
                  unlinked: bool = False) -> set[str]:
    """The squeezed lines of a segment that the page shows as headings (all their text inside
    ``h1``–``h6`` or set at :func:`headline_size`), not links away (a link to a place in the
    page is no link: ``chrome.anchored``), not marked as chrome and not in a small form
    (:func:`wps.decide.lines.small_form_text`: a newsletter box's title). ``unlinked``: no
    part of the line links away ("Related post: <a>Title</a>")."""
    lines = reading_lines(capture, node_ids)
    large = headline_size(lines, chrome)
    found = set()
    for line in lines:
        nodes = [capture.nodes[node_id] for node_id, _ in line]
        away = ["link" in node.inside and node.id not in chrome.anchored for node in nodes]
        if (all(chrome.heading[node.id] or chrome.sizes[node.id] >= large for node in nodes)
                and not (any(away) if unlinked else all(away))
                and not any(chrome.marked[node.id] for node in nodes)
                and not any(node.id in chrome.forms for node in nodes)):
            found.add(squeezed(" ".join(piece for _, piece in line)))
    return found


def _lines_before_trimming(segment: Segment) -> list[str]:
    """The main text's lines before line trimming cut any: a rescued segment's own text, else
    the main text before trimming."""
    if segment.main_text_rescued:
        text = segment.text
    elif segment.lines_trimmed and segment.main_text_untrimmed is not None:
        text = segment.main_text_untrimmed
    else:
        text = segment.main_text
    return [line for line in (text or "").splitlines() if line.strip()]


def _kept_flags(before: list[str], after: list[str]) -> list[bool]:
    """Which of ``before``'s lines trimming kept (``after`` is a subsequence of them)."""
    flags = []
    remaining = iter(squeezed(line) for line in after if line.strip())
    current = next(remaining, None)
    for line in before:
        if current is not None and squeezed(line) == current:
            flags.append(True)
            current = next(remaining, None)
        else:
            flags.append(False)
    return flags
