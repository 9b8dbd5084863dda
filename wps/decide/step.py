"""The decision as a pipeline step (after the filters, before dedup), and its rules."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from ..model import TEXT_TAG, PageCapture, Segment
from ..page.boilerplate import is_notice, is_statistics
from ..page.declared import declares_article
from ..page.tree import nearest
from ..posts.records import PostStructure, find_posts, post_list_chrome
from ..state import PageState, PipelineStep
from ..text.sentences import ends_sentence, sentence_share
from .features import PageFacts, SegmentFeatures, segment_features, word_count
from .between import keep_lines_between_writing
from .kinds import segment_kind
from .lines import PageChrome, chrome_lines, is_prose_line, page_chrome, prose_lines, squeezed
from .page import (
    MIN_ARTICLE_ABOVE_LOGIN_WORDS,
    MIN_ARTICLE_BELOW_LOGIN_WORDS,
    MIN_DECLARED_ARTICLE_WORDS,
    NON_ARTICLE_PAGE,
    PageVerdict,
    judge_page,
    login_form_node,
)
from .units import assign_units

NOT_PROSE = "not_prose"
QUOTED = "quoted"
"""A quote inside a post: scored in the post it was written in, not again here."""
POST_CHROME = "post_chrome"
"""A post's author box, dates, buttons or signature."""
PART_REASONS = {"quote": QUOTED, "chrome": POST_CHROME}
"""Pieces of posts (``Segment.post_part``, :mod:`wps.posts`) dropped whatever their text."""
STATISTICS = "statistics"
"""Sentences that carry counts at the page's end: a board's "who is online" and totals box
(not in a post; an article's sentences citing scores stand within the writing)."""
SITE_NOTICE = "site_notice"
"""Copyright, "powered by" and version credits at the page's end."""
TOO_LITTLE_PROSE = "too_little_prose"
"""Prose, but fewer than ``min_words`` words remain once its non-prose lines go."""
RESCUABLE = {"no_main_text"}
"""Filter reasons that clear prose overrides: the extractor missed text the page shows."""
INSIDE_RESCUABLE = RESCUABLE | {"too_few_tokens"}
"""Prose the extractor took nothing of (so its main text has no tokens either) is rescued where
it stands inside the article (:func:`_article_span`): a lede, a paragraph it skipped, the rest of
a story it stopped short of; not before the article (a cookie notice) nor past its end (the
teasers of other stories after a list of links, the page's footer)."""
CUT_SHORT = {"too_few_tokens", "main_text_overlap"}
"""Filter reasons that clear prose overrides where the extractor took part of the segment (its
main text there is not empty): the extractor chose the block and cut its sentences short. Where
it took nothing (cookie notices, legal lines, teasers of other stories), only posts are rescued."""
POST_RESCUABLE = RESCUABLE | {"too_few_tokens"}
"""A post's body is writing by where it stands: rescued also when the extractor kept too little
of it (its own text must still have ``min_words`` words)."""
BORDERING_SENTENCE_SHARE = 0.5
"""A left-out line beside the main text joins it when it ends a sentence and is mostly sentences."""
TEXT_JUDGED = {"code_share"}
"""Filter reasons about part of a segment: prose beside a program keeps its sentences, and the
lines that read as code are cut (:func:`wps.decide.lines.is_prose_line`)."""
RESCUE_COVERAGE = 0.5
"""Prose whose main text is less than this share of its text is rescued whole."""
POST_RESCUE_COVERAGE = 0.9
"""A post's body (chrome and quotes already apart) is its own text unless the extractor kept
nearly all of it (extractors cut short replies, smileys and emphasis out of posts)."""


@dataclass(frozen=True, slots=True)
class DecisionRules:
    """The ``[decide]`` config section; its defaults live in ``wps/defaults.toml``, chosen by
    cross-validation over pages (``scripts/tune_prose_decision.py``,
    ``eval/results/prose-decision.md``)."""

    min_sentence_share: float
    max_link_share: float
    max_form_share: float
    rescue_sentence_share: float
    min_words: int
    trim_lines: bool
    lines_between_writing: bool
    min_page_prose_share: float
    strict_sentence_share: float
    strict_min_words: int

    @classmethod
    def from_config(cls, section: dict[str, Any] | None = None) -> DecisionRules:
        """The rules of a ``[decide]`` section (``None``: the packaged defaults)."""
        if section is None:
            from ..config import default_config

            section = default_config()["decide"]
        known = set(cls.__dataclass_fields__)
        return cls(**{key: value for key, value in section.items() if key in known})

    def is_prose(self, f: SegmentFeatures) -> bool:
        """Prose: enough of the text in real sentences, and not a link list, a listing of short
        titled records or a form."""
        return (f.sentence_share >= self.min_sentence_share and not f.listing_records
                and f.link_share < self.max_link_share and f.form_share < self.max_form_share)

    def is_post_prose(self, f: SegmentFeatures, text: str) -> bool:
        """A post's body: writing by where it stands, so one line of prose is enough (short
        replies have no 8-word sentence), unless it is links or a form."""
        return (f.link_share < self.max_link_share and f.form_share < self.max_form_share
                and any(is_prose_line(line, code=False) for line in text.splitlines()))

    def is_strict_prose(self, f: SegmentFeatures) -> bool:
        """Prose that holds on a non-article page: mostly sentences, and long enough."""
        return f.sentence_share >= self.strict_sentence_share and f.words >= self.strict_min_words


DECISION_REASONS = (NOT_PROSE, TOO_LITTLE_PROSE, QUOTED, POST_CHROME, NON_ARTICLE_PAGE,
                    STATISTICS, SITE_NOTICE)
"""Every reason the decision gives: verdicts from the page's capture, which ``wps filter`` keeps."""


class DecideStep(PipelineStep):
    """Name every segment, keep only prose, rescue what the extractor missed, trim lines."""

    name = "decision"
    needs = ("segmentation", "text")
    adds = ("verdict", "kept", "reasons", "main_text", "kind", "prose_score", "page_reasons",
            "page_rules", "main_text_rescued", "rescue_overrides", "main_text_untrimmed",
            "lines_trimmed", "unit")
    drops = DECISION_REASONS

    def __init__(self, section: dict[str, Any]) -> None:
        self.rules = DecisionRules.from_config(section)

    def run(self, page: PageState) -> None:
        page.verdict = decide_segments(page.capture, page.segments, self.rules, page.posts)
        for segment in page.segments:  # as main-text.json says: the verdict replaces the rules
            segment.page_rules = segment.page_reasons or []
            segment.page_reasons = list(page.verdict.reasons)


class UnitStep(PipelineStep):
    """Name the detector units where the decision is off (the article profile, whose filters
    keep exactly the article's body): the kept segments are the page's article, cut between
    records as the decision cuts it (:mod:`wps.decide.units`)."""

    name = "units"
    needs = ("segmentation", "text")
    adds = ("unit",)

    def run(self, page: PageState) -> None:
        assign_units(page.capture, page.segments, range(len(page.capture.nodes)), True)


def decide_segments(capture: PageCapture, segments: list[Segment], rules: DecisionRules,
                    posts: PostStructure | None = None) -> PageVerdict:
    """Name and decide every segment, and judge the page; returns the page verdict.

    The verdict is taken on the plain prose test, weighed by sentences (:func:`_sentence_chars`).
    On an article page (threads included) a post's body needs only one line of prose, and a
    segment whose chosen main text has prose lines stays; on a non-article page posts need the
    plain test and other segments the strict one (their own text, or their main text alone); on
    a login page only posts are kept. ``posts``: the
    page's records, when the posts step found them (else found here if a line needs them).
    """
    facts = PageFacts.of(capture)
    pending: list[tuple[Segment, SegmentFeatures, bool]] = []
    prose_chars = all_chars = 0
    has_posts = False
    for segment in segments:
        features = segment_features(capture, segment, facts)
        segment.prose_score = features.sentence_share
        all_chars += len(segment.text)
        part = segment.post_part
        has_posts = has_posts or part is not None
        if part in PART_REASONS:
            segment.kind = part
            _drop(segment, PART_REASONS[part])
            continue
        plain = rules.is_prose(features)
        prose_chars += _sentence_chars(segment, features, plain, rules)
        pending.append((segment, features, plain))
    @cache
    def named() -> PageChrome:
        """The page's chrome, computed once, when a line is first judged by it."""
        records = find_posts(capture) if posts is None else posts
        return page_chrome(capture, facts, post_list_chrome(capture, records))

    clear_prose = {id(segment) for segment, features, plain in pending
                   if plain and features.sentence_share >= rules.rescue_sentence_share}
    inside = _article_span(capture, segments, clear_prose)
    login = None if has_posts else login_form_node(capture)
    if login is not None and _article_beside_login(pending, login,
                                                   declares_article(capture.html)):
        login = None
    verdict = judge_page(prose_chars, all_chars, login is not None, rules.min_page_prose_share)
    for segment, features, plain in pending:
        post = segment.post_part == "body"
        if verdict.is_article:
            prose = (rules.is_post_prose(features, segment.text) if post
                     else plain or _main_text_prose(segment, features, rules)
                     or _chosen_lines_prose(segment, features, rules))
        elif verdict.is_login:
            prose = plain and post
        else:
            prose = ((plain and (post or rules.is_strict_prose(features)))
                     or (not post and _main_text_prose(segment, features, rules)))
        segment.kind = segment_kind(features, prose, post)
        if not prose:
            _drop(segment, NON_ARTICLE_PAGE if plain else NOT_PROSE)
            continue
        coverage = POST_RESCUE_COVERAGE if post else RESCUE_COVERAGE
        overrides = (_overridable(segment, post, _inside_article(capture, segment, inside))
                     if ((post or features.sentence_share >= rules.rescue_sentence_share)
                         and len(segment.main_text) < coverage * len(segment.text)) else None)
        if overrides is not None:
            _rescue(segment, overrides)
        elif segment.reasons and set(segment.reasons) <= TEXT_JUDGED:
            segment.reasons.clear()
            segment.kept = True
        if segment.kept and not post:
            _add_bordering_sentences(segment)
        if rules.trim_lines and segment.kept:
            _trim(segment, rules.min_words,
                  chrome_lines(capture, segment.node_ids, named(), landmarks=not post), post)
    _drop_end_notices(segments)
    if rules.lines_between_writing and verdict.is_article:
        keep_lines_between_writing(capture, segments, inside, named())
    assign_units(capture, segments, inside, verdict.is_article)
    return verdict


def _drop_end_notices(segments: list[Segment]) -> None:
    """Drop the kept segments at the page's end (after its last other kept segment, in document
    order) that are site notices or (posts aside) statistics boxes: a board's "who is online"
    box and its software's credits stand after the writing; an article's sentences that cite
    scores ("The Eagles led 14-7 at halftime ...") stand within it."""
    for segment in sorted((s for s in segments if s.kept), key=_first_node, reverse=True):
        text = segment.main_text or segment.text
        if is_notice(text):
            reason = SITE_NOTICE
        elif segment.post_part != "body" and is_statistics(text):
            reason = STATISTICS
        else:
            return
        segment.kind = "boilerplate"
        _drop(segment, reason)


def _first_node(segment: Segment) -> int:
    return min(segment.node_ids, default=-1)


def _add_bordering_sentences(segment: Segment) -> None:
    """Sentences that the extractor left out right beside the main text of a kept prose segment
    (a lede in the article's ``<header>``, a caption between paragraphs) join it, in the
    segment's order: each line that is all sentences and borders a main-text line (or such a
    line) is added."""
    main = squeezed(segment.main_text)
    if not main:
        return
    lines = [line for line in segment.text.splitlines() if line.strip()]
    inside = [squeezed(line) in main for line in lines]
    if all(inside):
        return
    chosen = list(inside)
    for order in (range(len(lines)), reversed(range(len(lines)))):
        previous = False
        for index in order:
            if chosen[index]:
                previous = True
            elif previous and _bordering_sentence(lines[index]):
                chosen[index] = True
            else:
                previous = False
    if chosen == inside:
        return
    filled = "\n".join(line for line, keep in zip(lines, chosen) if keep)
    whole = squeezed(filled)
    if all(squeezed(line) in whole for line in segment.main_text.splitlines()):
        segment.main_text = filled


def _bordering_sentence(line: str) -> bool:
    return ends_sentence(line) and sentence_share(line) >= BORDERING_SENTENCE_SHARE


def _main_text_prose(segment: Segment, features: SegmentFeatures,
                     rules: DecisionRules) -> bool:
    """The main text the filters kept is itself prose, mostly sentences and long enough, though
    the segment around it is mostly links (an article the segmenter joined with a list of
    headlines): it stays, on a page of any verdict but a login page (its main text passes the
    strict test a non-article page sets: mostly sentences, ``strict_min_words``), and line
    trimming cuts the link lines. A page verdict never drops the article a menu was joined with.
    A listing (a board index's one-line descriptions are sentences too) or a form (a password
    reset box's instructions) is not an article."""
    return (segment.kept and not features.listing_records
            and features.form_share < rules.max_form_share
            and word_count(segment.main_text) >= rules.strict_min_words
            and sentence_share(segment.main_text) >= rules.rescue_sentence_share)


def _chosen_lines_prose(segment: Segment, features: SegmentFeatures,
                        rules: DecisionRules) -> bool:
    """The main text the filters chose (no filter reason against the segment) holds prose lines
    by their own text (:func:`is_prose_line`, ``min_words`` words in all), and the segment is
    not links, a listing or a form: on an article page it stays, and line trimming then judges each line.
    An article body that the segmenter cut into short paragraphs ("The mean is ~4.33.", "This
    is the park where the air smells of fall~") has no 8-word sentence per segment, so the
    share of sentences a whole block needs would drop it sentence by sentence."""
    if (not segment.kept or segment.reasons or features.listing_records
            or features.link_share >= rules.max_link_share
            or features.form_share >= rules.max_form_share):
        return False
    return sum(word_count(line) for line in segment.main_text.splitlines()
               if is_prose_line(line)) >= rules.min_words


def _sentence_chars(segment: Segment, features: SegmentFeatures, plain: bool,
                    rules: DecisionRules) -> float:
    """What a segment adds to the page's prose for the verdict: the characters of its text in
    sentences when it is prose, of its main text when that alone is prose
    (:func:`_main_text_prose`), else none. Weighing by sentences, not whole segments, keeps a
    table's or an index's cells that pass as prose (one line of five words) from making it an
    article: the verdict's margin between the kinds of page is wide, so no one threshold a fold
    picks decides it."""
    if plain:
        return features.sentence_share * len(segment.text)
    if _main_text_prose(segment, features, rules):
        return sentence_share(segment.main_text) * len(segment.main_text)
    return 0.0


def _article_beside_login(pending: list[tuple[Segment, SegmentFeatures, bool]],
                          login: int, declared: bool) -> bool:
    """Prose that makes a page with a password box an article, not a login page: one prose
    segment of :data:`MIN_ARTICLE_ABOVE_LOGIN_WORDS` before the box, or
    :data:`MIN_ARTICLE_BELOW_LOGIN_WORDS` of prose after it (an article with a login form above
    it, to read on or to comment, must not be dropped whole); on a page that ``declared`` itself
    an article (:func:`wps.page.declared.declares_article`), :data:`MIN_DECLARED_ARTICLE_WORDS`
    of prose anywhere (the lede of a story behind a paywall)."""
    above = below = 0
    for segment, features, plain in pending:
        if not plain:
            continue
        if min(segment.node_ids, default=login) < login:
            if features.words >= MIN_ARTICLE_ABOVE_LOGIN_WORDS:
                return True
            above += features.words
        else:
            below += features.words
    if declared and above + below >= MIN_DECLARED_ARTICLE_WORDS:
        return True
    return below >= MIN_ARTICLE_BELOW_LOGIN_WORDS


def _article_span(capture: PageCapture, segments: list[Segment], prose: set[int]) -> range:
    """The node ids from the first node of the segments whose main text the filters kept (the
    extractor's article, posts aside; from the ``header`` of the ``article`` element that holds
    them all, if it has one before them: :func:`_article_header`) to the last node of the
    article, in document order; empty without one. The article runs on past the extractor's
    last segment over the segments that are clear prose by their own text (``prose``: their
    ``id``), across short ones between them (a subheading, a caption, an empty box) and asides
    (a pull quote), up to the first other segment, a block titled by a link
    (:func:`_opens_with_headline_link`), the page's footer or navigation, or the end of the
    ``article`` element that holds all the extractor's segments (:func:`_shared_article`): an
    extractor that stopped early (at an ad, a pull quote) leaves the rest of the story."""
    order = sorted((segment for segment in segments if segment.node_ids), key=_first_node)
    chosen = [index for index, segment in enumerate(order)
              if segment.kept and segment.main_text.strip() and segment.post_part is None]
    if not chosen:
        return range(0)
    last = max(chosen, key=lambda index: max(order[index].node_ids))
    article = _shared_article(capture, [order[index] for index in chosen])
    for index in range(chosen[-1] + 1, len(order)):
        segment = order[index]
        contexts = capture.nodes[_first_node(segment)].inside
        if PAGE_END_CONTEXTS & contexts:
            break
        if article is not None and nearest(capture, _first_node(segment), "ARTICLE") != article:
            break
        if ASIDE_CONTEXTS & contexts:
            continue
        if _opens_with_headline_link(capture, segment):
            break
        if id(segment) in prose and segment.post_part is None:
            last = index
        elif word_count(segment.text) > MAX_GAP_WORDS:
            break
    start = _first_node(order[chosen[0]])
    if article is not None:
        start = _article_header(capture, article, start)
    return range(start, max(order[last].node_ids) + 1)


def _article_header(capture: PageCapture, article: int, start: int) -> int:
    """Where the article's span begins: the first ``header`` of the ``article`` element before
    the extractor's first segment, whose prose (a standfirst under the headline) is the story
    the extractor left out; ``start`` where there is none."""
    for node_id in range(article + 1, start):
        if (capture.nodes[node_id].tag == "HEADER"
                and nearest(capture, node_id, "ARTICLE") == article):
            return node_id
    return start


def _shared_article(capture: PageCapture, chosen: list[Segment]) -> int | None:
    """The ``article`` element that holds every segment the extractor chose, if one does: the
    page marks where its story ends, so the run of prose past the extractor's last segment
    stays inside it (a comment box's notice, the next section's blurbs stand after it)."""
    articles = {nearest(capture, _first_node(segment), "ARTICLE") for segment in chosen}
    return articles.pop() if len(articles) == 1 else None


def _opens_with_headline_link(capture: PageCapture, segment: Segment) -> bool:
    """The segment opens with a line that is all link text and goes on past a short line: the
    headline and lead of another story (a list of more stories, the next story on the page), an
    author's linked name over a bio, a box titled by a link. A paragraph of the article that
    opens with a link has more than the link on its first line."""
    if word_count(segment.text) <= MAX_GAP_WORDS:
        return False
    line = squeezed(segment.text.lstrip().split("\n", 1)[0])
    linked = ""
    for node_id in sorted(segment.node_ids):
        node = capture.nodes[node_id]
        if node.tag != TEXT_TAG or not node.text.strip():
            continue
        if "link" not in node.inside or len(linked) >= len(line):
            break
        linked += squeezed(node.text)
    return bool(line) and linked.startswith(line)


PAGE_END_CONTEXTS = frozenset({"footer", "nav"})
"""Landmarks (``Node.inside``) where the article does not run on: the site's text is there."""
ASIDE_CONTEXTS = frozenset({"aside", "header"})
"""Landmarks the article runs on across, without taking them in: a pull quote or a promotion
set in an ``aside`` between two of its paragraphs."""
MAX_GAP_WORDS = 12
"""Segments this short do not end the article's run of prose (a subheading, a caption)."""


FIGURE_TAGS = frozenset({"FIGURE", "FIGCAPTION"})
"""A figure's caption inside the article is not rescued: extractors leave captions out on
purpose, and an article's reference text mostly does too."""


def _inside_article(capture: PageCapture, segment: Segment, span: range) -> bool:
    """The segment starts inside the article's span, and not in a figure."""
    node_id: int | None = _first_node(segment)
    if node_id not in span:
        return False
    while node_id is not None:
        node = capture.nodes[node_id]
        if node.tag in FIGURE_TAGS:
            return False
        node_id = node.parent
    return True


def _overridable(segment: Segment, post: bool, inside: bool) -> frozenset[str] | None:
    """The filter reasons a rescue of the segment overrides, where its reasons are all of them
    (``None``: it cannot be rescued)."""
    reasons = set(segment.reasons)
    allowed = POST_RESCUABLE if post else INSIDE_RESCUABLE if inside else RESCUABLE
    if reasons <= allowed:
        return frozenset(allowed)
    if reasons <= CUT_SHORT and segment.main_text.strip():
        return frozenset(CUT_SHORT)
    return None


def _drop(segment: Segment, reason: str) -> None:
    if reason not in segment.reasons:
        segment.reasons.append(reason)
    segment.kept = False


def _rescue(segment: Segment, overrides: frozenset[str]) -> None:
    """Keep a segment whose prose the extractor (mostly) missed: its own text becomes its main
    text (clear prose, and only the extractor's verdict against it). The main text the filters
    judged is kept beside it (``Segment.main_text_untrimmed``)."""
    segment.main_text_rescued = True
    segment.rescue_overrides = sorted(overrides)
    segment.main_text_untrimmed = segment.main_text
    segment.main_text = segment.text
    segment.reasons.clear()
    segment.kept = True


def _trim(segment: Segment, min_words: int, chrome: frozenset[str], post: bool) -> None:
    untrimmed = segment.main_text
    segment.main_text, removed = prose_lines(segment.main_text, chrome, post)
    if removed:
        if segment.main_text_untrimmed is None:  # a rescue's is the filters' own
            segment.main_text_untrimmed = untrimmed
        segment.lines_trimmed = removed
    if word_count(segment.main_text) < min_words:
        _drop(segment, TOO_LITTLE_PROSE)
