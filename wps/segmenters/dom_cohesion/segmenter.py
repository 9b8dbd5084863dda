"""DOM-structural cohesion segmenter (Huynh, Le, Nguyen, Nguyen, World Wide Web 28, 2025).

Four steps (algorithms.md §1): (1) record/block detection — sibling windows whose skeletons repeat
are *records*, their parent a *block*, with backtracking for leftover siblings; (2) outlying-block
elimination — the heterogeneity H of a block is the standard deviation of the tree edit distances
between its children, and blocks whose H exceeds Tukey's IQR fence are split into their children,
top-down from ``<body>``; (3) visual tightening of each kept box to the Canny edges of the
screenshot; (4) the prototype's post-filters (visible, clipped, not oversized; never nested,
as segments are disjoint subtrees by construction).

Every choice the paper leaves open is a field of :class:`DomCohesionSegmenter` with its default
documented there. All tree walks are iterative, so 1,000-deep markup cannot hit Python's recursion
limit. Where wps departs from the paper and the prototype (each switchable unless noted):

- skeletons and TEDs use element tags only; text nodes are leaves that go with their element;
- TEDs come from ``edist`` (exact Zhang–Shasha, unit costs) on subtrees cut at
  ``max_subtree_nodes_for_ted`` nodes, cached per pair of exact structures;
- the root and single-child wrappers are always looked through (``split_root``,
  ``split_single_child``); the outlier rule splits layout containers, not lists
  (``split_record_blocks``); compound, text-rich records (posts) become one segment each
  (``split_records_min_chars``);
- a candidate covering more than ``max_page_fraction`` of the page is split into its children
  before the prototype's drop rule applies;
- a segment's box is the union of the drawn boxes of its subtree (always on); the Canny
  tightening is off by default (``use_screenshot``: it cuts container padding off, so element
  nodes fall out of their segments), and when on its crop has a 2 px margin so background
  borders count as edges;
- a run of text (paragraphs, lists, code under one heading) is not split by the outlier rule
  (``keep_text_sections``);
- visual layout evidence (``_layout.py``, issue 23): a large element whose children stand side
  by side, sit on different backgrounds or open with headings is split even where the tree
  signal is weak (``visual_split_fraction``, ``visual_split_screens``), tables used for layout
  are split as ``div`` layout (``split_layout_tables``), posts found by :mod:`wps.posts` and
  text-rich runs of repeated tags (a comment and its reply list) are one segment each
  (``split_posts``, ``group_tag_windows``);
- a coverage pass (``cover_uncovered_content``, not in the paper) turns visible text and images
  that no segment holds — the paper's eliminator and the post-filters can leave whole article
  bodies out — into segments of their own (``_coverage.py``), so every visible text node lies in
  exactly one segment.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...deadline import check_deadline
from ...errors import SegmentationError, UsageError
from ...model import Box, PageCapture, Segment, Segmentation
from ...page.reading import INLINE_TAGS, box_area, clip_box, reading_text, shown, union_box
from .. import register_segmenter
from ..geometry import granularity_level
from ._blocks import BlockStructure, find_blocks, subtree_ids
from ._layout import (
    Backgrounds,
    LayoutState,
    PostUnits,
    headed_nodes,
    layout_tables,
    post_units,
    stand_apart,
)
from ._tree_edit import iqr_fence

TEXT_FLOW_TAGS = frozenset(
    "P H1 H2 H3 H4 H5 H6 UL OL LI DL DT DD PRE BLOCKQUOTE TABLE THEAD TBODY TFOOT TR TD TH "
    "CAPTION FIGURE FIGCAPTION HR ADDRESS DETAILS SUMMARY DIV SECTION ARTICLE".split()
) | INLINE_TAGS
"""Elements running text is made of; NAV, FORM, HEADER, FOOTER, ASIDE and the rest are not."""
HEADING_TAGS = frozenset("H1 H2 H3 H4 H5 H6".split())
DOMINANT_SHARE = 0.8
"""A child covering this share of its parent's box stands for the parent in the visual test."""
SCREEN_HEIGHT_PX = 768.0
"""The viewport height of a capture (``visual_split_screens``)."""


def text_sections(page: PageCapture, layout: set[int] = frozenset()) -> set[int]:
    """Nodes whose subtree is running text with at most one heading (``keep_text_sections``);
    ``layout`` nodes (the parts of layout tables) are never running text.

    One bottom-up pass: children come after their parents in ``page.nodes``.
    """
    flow = np.ones(len(page.nodes), dtype=bool)
    headings = np.zeros(len(page.nodes), dtype=np.int64)
    for node in reversed(page.nodes):
        if (node.tag not in TEXT_FLOW_TAGS and not node.is_text) or node.id in layout:
            flow[node.id] = False
        if node.tag in HEADING_TAGS:
            headings[node.id] += 1
        if node.parent is not None:
            flow[node.parent] &= flow[node.id]
            headings[node.parent] += headings[node.id]
    return {node.id for node in page.nodes
            if flow[node.id] and headings[node.id] <= 1 and not node.is_text
            and node.tag not in INLINE_TAGS}


@register_segmenter("dom-cohesion")
@dataclass
class DomCohesionSegmenter:
    """Huynh et al.'s segmenter with every open choice as a named parameter.

    Parameters
    ----------
    iqr_k
        Tukey fence factor: a block is an outlier iff H > Q3 + k·(Q3 − Q1) over the H of all blocks
        with at least two element children (algorithms.md §1.2: k = 1.5).
    grain_segment
        The prototype's ``grainSegment``: ``True`` stops collapsing repeated skeletons inside a
        sibling window, so windows must repeat exactly (finer records). Default ``False``.
    segment_min_level
        The prototype's ``segmentMinLevel``: records are only looked for below this depth under
        ``<body>`` (0 = everywhere).
    max_window_size
        Largest sibling window tried. The prototype allows half the siblings; repeats of more than
        10 siblings per record are rare and the cap keeps a 5,000-child list linear.
    max_children_for_ted
        At most this many children (evenly spread) enter a block's TED matrix.
    max_subtree_nodes_for_ted
        Subtrees are compared on their first this-many element nodes in preorder.
    full_ted_matrix
        ``True``: H is the std of the full N×N TED matrix, zero diagonal included (the paper's
        "∀ i, j ≤ N"). Default ``False``: the upper triangle i < j (algorithms.md §1.2), so a block
        with two children has H = 0; the oversize and root rules still split two-column layouts.
    split_record_blocks
        Whether the outlier rule may split a *block* (a parent of records: a list, a menu, a
        paragraph run) into its records; ``False`` lets it split only *containers* (ancestors of
        blocks: layout regions). A list with one odd item (a footer's links plus a copyright line)
        is still one region; compound records are split by ``split_records_min_chars``.
    split_root
        Always split the root (``<body>``) into its children. The paper emits a non-outlying root
        whole (its §4.5 failure case on uniform pages), which is the one-segment baseline.
    split_single_child
        A block with one element child has H = 0 by definition; ``True`` looks through such
        wrappers (``body > div#page > ...``) instead of emitting the whole page as one segment.
    max_page_fraction
        Candidates covering more of the page area than this are split into their children; when
        they cannot be split the prototype's post-filter drops them (unless nothing else is left).
    split_records_min_chars
        wps addition, not in the paper: a block whose records are *compound* (each holds at least
        two block-level children, like forum posts or search results) and whose median record text
        has at least this many characters emits one segment per record, as Webis annotators do;
        short records (menus, link lists, card grids) stay one segment. ``None`` disables it.
    use_screenshot
        Tighten each box to the Canny edges inside it when the capture has a screenshot (§3.3).
        Default ``False`` (a departure from the paper): tightening to the glyph edges cuts the
        padding off every container, so element nodes fall out of their segment; on webseg-dev
        mean F drops from .820 to .749 with it (nodes .834 → .641, pixels .741 → .656), and the
        Webis ground truth is fitted to DOM node boxes as these segments are.
    canny_low, canny_high
        ``cv2.Canny`` hysteresis thresholds (algorithms.md §1.2: 100, 200).
    min_segment_area
        Segments with a smaller clipped box (px²) are dropped.
    clip_to_screenshot
        ``True`` clips every box to the captured page height, as the prototype clips to the page:
        on a truncated capture (taller than the screenshot cap) everything below the cap then
        has no area and is dropped — often the whole article body of a long page. Default
        ``False``: below the cap boxes keep their DOM extent (beyond ``Segmentation.height``).
    cover_uncovered_content
        wps addition, not in the paper: after the post-filters, the maximal subtrees holding
        visible text or images that no segment holds become segments (coarsest first; split into
        their children where they would exceed ``max_page_fraction`` or overlap a segment), so no
        visible text is lost (below the screenshot cap too, unless ``clip_to_screenshot``).
        ``False`` gives the paper's output. Default ``True``.
    keep_text_sections
        wps addition, not in the paper: a block whose subtree is running text (paragraphs,
        lists, tables, code, quotes, figures and plain wrappers of those; no navigation, form,
        header, footer or aside) with at most one heading is not split by the outlier rule. Its
        children are heterogeneous because prose markup is, not because it is a layout; people
        outline such a section (heading, paragraphs, lists) as one segment. Oversized sections
        are still split.
    granularity
        The shared coarse ↔ fine scale (``coarse``, ``medium``, ``fine`` or a number in [0, 1]):
        scales ``iqr_k`` by 4^(1 − 2·level) (coarse doubles the fence factor, fine halves it) and,
        from ``fine`` up, splits text sections into their paragraphs (``keep_text_sections``
        off).
    coverage_groups_siblings
        In the coverage pass, a run of consecutive uncovered siblings (an article's paragraphs
        beside a segmented figure) becomes one segment; ``False`` emits each sibling on its own.
    visual_split_fraction
        wps addition: an element whose drawn box covers more than this share of the page's
        drawn content and whose children stand apart visually — side by side (a column gap no
        child crosses) or on different backgrounds (``background_delta``, L1 RGB) — is split
        into its children, and a single-child wrapper that large is looked through, whatever
        the tree signal says (``_layout.py``: a styled page no longer collapses into one
        segment). In running text only columns count; a list or grid of records is never
        split by it. ``None`` (with ``visual_split_screens`` ``None`` too) turns the rule off.
    split_layout_tables
        wps addition: tables whose cells hold blocks (headings, lists, forms, several
        paragraphs) are layout, not running text, so the text-section rule does not keep them
        whole; they are split as ``div`` layout is.
    split_headed_children
        wps addition: in the visual test, two or more children that open with a heading (the
        widgets of a sidebar, the sections of a column) stand apart too.
    visual_split_screens
        wps addition: an element taller than this many screens (768 px) is large for the visual
        test whatever its share of the page (a long sidebar of widgets). ``None``: off.
    group_tag_windows
        wps addition: children whose tags repeat in a period of two or three (a comment and the
        sibling list of its replies, a heading and its list) are emitted one period per
        segment, and a node whose periods hold ``split_records_min_chars`` characters (median)
        is split into them, as compound records are: a thread whose comments differ in their
        markup keeps its rhythm.
    screenshot_colours
        Where the capture records no computed backgrounds (Webis folders), read the colours
        of the visual test from the screenshot. Default ``False``: decoding a tall screenshot
        costs up to ten times the rest of the segmentation and changed no dev page; browser
        captures have their computed backgrounds either way.
    split_posts
        wps addition: posts found by :func:`wps.posts.find_posts` from names and declarations
        (records named and repeated as posts, JSON-LD) are one segment each with their
        replies: their ancestors are split, the posts are not. Records of one tag that
        ``split_records_min_chars`` splits (a thread's comments, some with replies) are emitted
        one element each, not in windows.
    """

    iqr_k: float = 1.5
    grain_segment: bool = False
    segment_min_level: int = 0
    max_window_size: int = 10
    max_children_for_ted: int = 30
    max_subtree_nodes_for_ted: int = 100
    full_ted_matrix: bool = False
    split_record_blocks: bool = False
    split_root: bool = True
    split_single_child: bool = True
    max_page_fraction: float = 0.7
    split_records_min_chars: int | None = 200
    use_screenshot: bool = False
    canny_low: int = 100
    canny_high: int = 200
    min_segment_area: float = 16.0
    clip_to_screenshot: bool = False
    cover_uncovered_content: bool = True
    coverage_groups_siblings: bool = True
    keep_text_sections: bool = True
    visual_split_fraction: float | None = 0.3
    background_delta: float = 30.0
    split_layout_tables: bool = True
    split_posts: bool = True
    split_headed_children: bool = True
    visual_split_screens: float | None = 2.0
    group_tag_windows: bool = True
    screenshot_colours: bool = False
    granularity: str | float | None = None
    name: str = "dom-cohesion"

    @property
    def needs_screenshot(self) -> bool:
        """The DOM alone, unless boxes are tightened to edges or colours read from pixels."""
        return self.use_screenshot or self.screenshot_colours

    def __post_init__(self) -> None:
        if self.granularity is not None:
            level = granularity_level(self.granularity, "dom-cohesion")
            self.iqr_k *= 4.0 ** (1.0 - 2.0 * level)
            self.keep_text_sections = self.keep_text_sections and level < 0.75
        if self.iqr_k < 0:
            raise UsageError(f"dom-cohesion: iqr_k must be >= 0, got {self.iqr_k}")
        if not 0 < self.max_page_fraction <= 1:
            raise UsageError(
                f"dom-cohesion: max_page_fraction must be in (0, 1], got {self.max_page_fraction}"
            )
        for option in ("max_window_size", "max_children_for_ted", "max_subtree_nodes_for_ted"):
            if getattr(self, option) < 1:
                value = getattr(self, option)
                raise UsageError(f"dom-cohesion: {option} must be >= 1, got {value}")

    def warm_up(self) -> None:
        """Import what a first page would (a batch's fork server calls it once for all workers):
        the tree-edit distance, the coverage pass and ``numpy.ma``, which ``np.quantile`` loads
        lazily (30 ms)."""
        import numpy.ma  # noqa: F401
        from edist import ted  # noqa: F401

        from ._coverage import visible_content  # noqa: F401

    # ------------------------------------------------------------------------------------ steps
    def segment(self, page: PageCapture) -> Segmentation:
        visible = any(shown(node.style) for node in page.nodes)
        if not visible or page.width <= 0 or page.height <= 0:
            raise SegmentationError(f"{page.url or page.page_id}: the capture has no visible nodes")
        blocks = find_blocks(
            page,
            grain_segment=self.grain_segment,
            segment_min_level=self.segment_min_level,
            max_window_size=self.max_window_size,
            max_children_for_ted=self.max_children_for_ted,
            max_subtree_nodes_for_ted=self.max_subtree_nodes_for_ted,
            full_ted_matrix=self.full_ted_matrix,
        )
        fence = iqr_fence(blocks.population(), self.iqr_k)
        layout = self._layout_state(page, blocks)
        sections = (text_sections(page, layout.tables) if self.keep_text_sections else set())
        groups = self._eliminate(page, blocks, fence, sections, layout)
        segments = self._post_filter(page, blocks, groups, fence)
        if self.cover_uncovered_content:
            segments = self._cover(page, blocks, segments)
        if self.use_screenshot and page.screenshot is not None and Path(page.screenshot).exists():
            from ._canny import tighten_boxes

            tighten_boxes(segments, Path(page.screenshot), self.canny_low, self.canny_high)
        if not segments:  # nothing survived: the whole page is one segment, as the baseline
            whole = Segment.from_box("0", (0.0, 0.0, float(page.width), float(page.height)),
                                     [node.id for node in page.nodes])
            whole.text = reading_text(page, whole.node_ids)
            whole.extra["block_type"] = "page"
            segments = [whole]
        return Segmentation(page.page_id, self.name, page.width, page.height, segments)

    def _layout_state(self, page: PageCapture, blocks: BlockStructure) -> LayoutState:
        """The visual and post evidence the split rules read (see ``_layout.py``)."""
        root_box = blocks.drawn_box([blocks.root]) if blocks.root < len(page.nodes) else None
        content = (box_area(clip_box(root_box, page.width, self._bottom_limit(page)))
                   if root_box is not None else float(page.width) * float(page.height))
        return LayoutState(
            content_area=content or float(page.width) * float(page.height),
            tables=layout_tables(page) if self.split_layout_tables else set(),
            posts=post_units(page) if self.split_posts else PostUnits(),
            headed=headed_nodes(page),
            backgrounds=Backgrounds.of(page, self.screenshot_colours))

    def _eliminate(self, page: PageCapture, blocks: BlockStructure, fence: float,
                   sections: set[int], layout: LayoutState) -> list[list[int]]:
        """BlockEliminator (Alg. 2), top-down and iterative: groups of sibling node ids to emit."""
        page_area = self._page_area(page, blocks)
        emitted: list[list[int]] = []
        stack: list[list[int]] = [[blocks.root]] if blocks.root < len(page.nodes) else [
            [kid] for kid in reversed(blocks.member_children(blocks.root))
        ]
        while stack:
            check_deadline("segmentation")
            group = stack.pop()
            children = self._split(page, blocks, group, fence, page_area, sections, layout)
            if children is None:
                emitted.append(group)
            else:
                stack.extend(reversed(children))
        return emitted

    def _split(self, page: PageCapture, blocks: BlockStructure, group: list[int], fence: float,
               page_area: float, sections: set[int],
               layout: LayoutState) -> list[list[int]] | None:
        """The child groups that replace ``group``, or ``None`` to keep it as one segment."""
        if len(group) != 1:
            return None
        node = group[0]
        elements = blocks.tree.children[node]
        if not elements:
            return None
        drawn = blocks.drawn_box([node])
        oversized = drawn is not None and box_area(drawn) > self.max_page_fraction * page_area
        if node in layout.posts.tops and not oversized:
            return None  # a post with its replies is one segment
        is_block = node in blocks.heterogeneity
        splittable = node in blocks.containers or self.split_record_blocks
        outlier = (is_block and splittable and blocks.heterogeneity[node] > fence
                   and node not in sections)
        wrapper = self.split_single_child and len(elements) == 1 and is_block
        long_records = (
            self.split_records_min_chars is not None
            and node in blocks.records
            and blocks.compound_records(node, self.split_records_min_chars)
        )
        root = self.split_root and node == blocks.root
        holds_posts = node in layout.posts.holders
        apart = holds_posts or (long_records and self.split_posts
                                and blocks.uniform_records(node))
        windows = self.group_tag_windows
        long_windows = (windows and self.split_records_min_chars is not None
                        and blocks.text_rich_windows(node, self.split_records_min_chars))
        if (root or oversized or outlier or wrapper or long_records or holds_posts
                or long_windows):
            return blocks.child_groups(node, apart, windows)
        if self._visual_regions(blocks, node, drawn, sections, layout):
            return blocks.child_groups(node, windows=windows)
        return None

    def _visual_regions(self, blocks: BlockStructure, node: int, drawn: Box | None,
                        sections: set[int], layout: LayoutState) -> bool:
        """``visual_split_fraction``: a large element whose children stand apart on the page,
        or whose dominant child's children do (a sidebar's widget list beside a one-line note)."""
        if self.visual_split_fraction is None and self.visual_split_screens is None:
            return False
        while drawn is not None and self._large(drawn, layout):
            if node in blocks.records and node not in blocks.containers:
                return False  # a list or grid of records: its sameness is the strong signal
            in_text = node in sections
            boxed = [(group, box) for group in blocks.child_groups(node)
                     if (box := blocks.drawn_box(group)) is not None]
            if not boxed:  # nothing drawn below it (text of its own only): no regions
                return False
            if len(boxed) == 1:
                return not in_text  # a large wrapper around one region: look through it
            if self.split_headed_children and not in_text and sum(
                    bool(layout.headed[group[0]]) for group, _ in boxed) >= 2:
                return True
            if stand_apart([box for _, box in boxed], [group for group, _ in boxed],
                           None if in_text else layout.backgrounds, self.background_delta):
                return True
            group, box = max(boxed, key=lambda item: box_area(item[1]))
            if len(group) != 1 or box_area(box) < DOMINANT_SHARE * box_area(drawn):
                return False
            node, drawn = group[0], box
        return False

    def _large(self, drawn: Box, layout: LayoutState) -> bool:
        """Large enough for the visual test: a share of the drawn content, or taller than
        ``visual_split_screens`` screens."""
        if self.visual_split_screens is not None and (
                drawn[3] - drawn[1] > self.visual_split_screens * SCREEN_HEIGHT_PX):
            return True
        return self.visual_split_fraction is not None and (
            box_area(drawn) > self.visual_split_fraction * layout.content_area)

    def _post_filter(self, page: PageCapture, blocks: BlockStructure, groups: list[list[int]],
                     fence: float) -> list[Segment]:
        page_area = self._page_area(page, blocks)
        kept: list[tuple[list[int], Box]] = []
        for group in groups:
            if not all(shown(page.nodes[node].style) for node in group):
                continue
            node_ids = [member for node in group for member in subtree_ids(page, node)]
            drawn = blocks.drawn_box(group) or union_box(page.nodes[node].bbox for node in group)
            box = clip_box(drawn, page.width, self._bottom_limit(page))
            if box_area(box) < self.min_segment_area:
                continue
            kept.append((group, node_ids, box))
        if len(kept) > 1:  # the prototype drops oversized segments (but never the only one)
            limit = self.max_page_fraction * page_area
            kept = [item for item in kept if box_area(item[2]) <= limit]
        segments: list[Segment] = []
        for group, node_ids, box in kept:
            segment = Segment.from_box(str(len(segments)), box, node_ids)
            segment.text = reading_text(page, node_ids)
            top = group[0]
            segment.extra.update(
                dom_bbox=list(box),
                block_type=blocks.kind(top, len(group)),
                records=[list(record) for record in blocks.records.get(top, [])]
                if len(group) == 1 else [],
                heterogeneity=blocks.heterogeneity.get(top) if len(group) == 1 else None,
                iqr_fence=fence if fence != float("inf") else None,
            )
            segments.append(segment)
        return segments


    def _bottom_limit(self, page: PageCapture) -> float:
        """Where boxes are clipped at the bottom: the page, or nowhere below a screenshot cap."""
        if page.screenshot_truncated and not self.clip_to_screenshot:
            return float("inf")
        return float(page.height)

    def _page_area(self, page: PageCapture, blocks: BlockStructure) -> float:
        """The area the page-fraction rule is taken of: the whole drawn page when boxes go on
        below the screenshot cap, else the captured page."""
        height = float(page.height)
        if self._bottom_limit(page) == float("inf"):
            bottoms = [box[3] for box in blocks.drawn_boxes if box is not None]
            height = max([height, *bottoms])
        return float(page.width) * height

    def _cover(self, page: PageCapture, blocks: BlockStructure,
               segments: list[Segment]) -> list[Segment]:
        """Add segments for the visible content no segment holds; all in document order."""
        from ._coverage import free_groups, visible_content

        bottom_limit = self._bottom_limit(page)
        content = visible_content(page, bottom_limit)
        covered = np.zeros(len(page.nodes), dtype=bool)
        for segment in segments:
            covered[segment.node_ids] = True
        if not (content & ~covered).any():
            return segments
        page_area = self._page_area(page, blocks)
        found = free_groups(page, covered, content, blocks.drawn_boxes,
                            [segment.bbox for segment in segments],
                            max_area=self.max_page_fraction * page_area,
                            bottom_limit=bottom_limit,
                            group_siblings=self.coverage_groups_siblings)
        added: list[Segment] = []
        for group in found:
            node_ids = [member for node in group.members for member in subtree_ids(page, node)]
            segment = Segment.from_box("", group.box, node_ids)
            segment.text = reading_text(page, node_ids)
            segment.extra.update(dom_bbox=list(group.box), block_type="uncovered", records=[],
                                 heterogeneity=None, iqr_fence=None)
            added.append(segment)
        merged = sorted([*segments, *added], key=lambda segment: min(segment.node_ids))
        for number, segment in enumerate(merged):  # capture ids are in document order
            segment.id = str(number)
        return merged

