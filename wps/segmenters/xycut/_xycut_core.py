"""Recursive XY-cut on a screenshot (algorithms.md §5): ink mask, integral image, the cut tree.

Everything here works in screenshot pixels with numpy and OpenCV; :mod:`wps.segmenters.xycut`
turns the tree into segments. A region is ``[x0, x1) × [y0, y1)``; ``axis`` 0 means horizontal
cuts (between rows, the region splits into a stack), 1 means vertical cuts (into columns).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...deadline import check_deadline

Rect = tuple[int, int, int, int]
"""``(x0, y0, x1, y1)`` in screenshot pixels, half-open."""

ROWS, COLUMNS = 0, 1
CALM_FRACTION = 0.1
"""Rows beside a separator rule hold at most this share of ink (it stands in whitespace)."""
BAND_SAMPLES = 256
"""Colour-band edges are looked for on at most this many columns (rows) of a region."""
CROSSING_FRACTION, CROSSING_SLACK = 0.005, 8
"""Content may cross a line over this share of its length plus this many pixels."""
THROUGH_FRACTION = 0.95
"""A border column (row) inked over this share of the region is a frame line around it: the
edge of a page column on a coloured background, a border around a whole thread."""


@dataclass(slots=True)
class CutParameters:
    """The thresholds of §5 in screenshot pixels (already scaled by W/1366)."""

    gradient_threshold: float
    dilation: int
    blank_fraction: float
    min_gap_rows: float
    min_gap_columns: float
    gap_spacing_factor: float
    line_fraction: float
    max_line_thickness: int
    band_fraction: float
    band_colour_delta: float
    line_bonus: float
    min_ink: int
    max_depth: int
    min_width: int
    min_height: int


@dataclass(slots=True)
class Region:
    """One node of the cut tree: its ink-trimmed rectangle and the cell its parent gave it.

    Cells of siblings are disjoint (cuts sit at gap and line centres), so a cell is the area a
    region may grow into when it is fitted to DOM boxes without overlapping a neighbour.
    """

    rect: Rect
    cell: Rect
    depth: int
    ink: int
    axis: int | None = None
    """Direction the region was split in (``None`` for a leaf)."""
    min_gap: float = 0.0
    """The adaptive gap threshold of the split direction (what merging compares against)."""
    children: list[Region] = field(default_factory=list)

    @property
    def area(self) -> int:
        x0, y0, x1, y1 = self.rect
        return (x1 - x0) * (y1 - y0)

    @property
    def density(self) -> float:
        return self.ink / self.area if self.area else 0.0


@dataclass(slots=True)
class PageImage:
    """A screenshot ready for cutting: RGB pixels, the ink mask and its integral image."""

    rgb: np.ndarray
    """H×W×3 uint8."""
    ink: np.ndarray
    """H×W uint8, 1 where there is ink (edges, glyphs, rules)."""
    integral: np.ndarray
    """(H+1)×(W+1) int32, ``integral[y, x]`` = ink in ``[0, x) × [0, y)``."""

    @property
    def height(self) -> int:
        return int(self.rgb.shape[0])

    @property
    def width(self) -> int:
        return int(self.rgb.shape[1])


def prepare(rgb: np.ndarray, gradient_threshold: float, dilation: int) -> PageImage:
    """Steps 1–2: ink = |Sobel_x| + |Sobel_y| of the grey image above the threshold, dilated.

    The Sobel sum is divided by 4 so that the threshold reads as a grey-level step on 0–255
    (a 3×3 Sobel answers a step of d with 4·d). OpenCV's ``integral`` is the zero-padded double
    cumulative sum of §5.2.
    """
    import cv2

    grey = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY).astype(np.float32)
    gradient = np.abs(cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3))
    gradient += np.abs(cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3))
    ink = (gradient > 4.0 * gradient_threshold).astype(np.uint8)
    if dilation > 1:
        ink = cv2.dilate(ink, np.ones((dilation, dilation), np.uint8))
    integral = cv2.integral(ink, sdepth=cv2.CV_32S)
    return PageImage(rgb=rgb, ink=ink, integral=integral)


# ------------------------------------------------------------------------------------ profiles
def _profile(image: PageImage, rect: Rect, axis: int) -> np.ndarray:
    """Ink per row (axis 0) or per column (axis 1) of ``rect``: O(H + W) from the integral."""
    x0, y0, x1, y1 = rect
    table = image.integral
    if axis == ROWS:
        return np.diff(table[y0:y1 + 1, x1] - table[y0:y1 + 1, x0])
    return np.diff(table[y1, x0:x1 + 1] - table[y0, x0:x1 + 1])


def _ink(image: PageImage, rect: Rect) -> int:
    x0, y0, x1, y1 = rect
    table = image.integral
    return int(table[y1, x1] - table[y0, x1] - table[y1, x0] + table[y0, x0])


def trim(image: PageImage, rect: Rect) -> Rect | None:
    """Step 3: the bounding box of the ink in ``rect`` (``None`` when there is none)."""
    rows = np.flatnonzero(_profile(image, rect, ROWS))
    if rows.size == 0:
        return None
    columns = np.flatnonzero(_profile(image, rect, COLUMNS))
    x0, y0 = rect[0], rect[1]
    return (x0 + int(columns[0]), y0 + int(rows[0]), x0 + int(columns[-1]) + 1,
            y0 + int(rows[-1]) + 1)


def _runs(flags: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Starts and ends (exclusive) of the runs of True, found with ``np.diff``."""
    edges = np.diff(np.concatenate(([0], flags.astype(np.int8), [0])))
    return np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)


@dataclass(slots=True)
class _Candidates:
    """The cuts one direction offers: intervals ``[start, end)`` along the axis to cut out."""

    starts: np.ndarray
    ends: np.ndarray
    score: float
    min_gap: float


def candidates(image: PageImage, rect: Rect, axis: int, params: CutParameters) -> _Candidates:
    """Step 4 for one direction: whitespace gaps plus separator lines and colour-band edges."""
    profile = _profile(image, rect, axis)
    x0, y0, x1, y1 = rect
    breadth = (x1 - x0) if axis == ROWS else (y1 - y0)
    length = profile.size
    base = params.min_gap_rows if axis == ROWS else params.min_gap_columns
    starts, ends = _runs(profile <= params.blank_fraction * breadth)
    interior = (starts > 0) & (ends < length)
    starts, ends = starts[interior], ends[interior]
    widths = ends - starts
    # adaptive threshold: above twice the typical line (word) spacing of this region
    small = widths[widths < base]
    min_gap = max(base, params.gap_spacing_factor * float(np.median(small))) if small.size else base
    wide = widths >= min_gap
    gap_starts, gap_ends = starts[wide], ends[wide]
    score = float(widths[wide].max() / min_gap) if wide.any() else 0.0

    line_starts, line_ends = _lines(image, rect, axis, profile, breadth, params)
    band_starts, band_ends = _colour_edges(image, rect, axis, params)
    if line_starts.size or band_starts.size:
        score += params.line_bonus
    all_starts = np.concatenate((gap_starts, line_starts, band_starts))
    all_ends = np.concatenate((gap_ends, line_ends, band_ends))
    all_starts, all_ends = _merge_intervals(all_starts, all_ends)
    return _Candidates(all_starts, all_ends, score, min_gap)


def _merge_intervals(starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted, overlapping intervals joined (a band edge found twice, a rule inside a gap)."""
    order = np.argsort(starts, kind="stable")
    merged_starts: list[int] = []
    merged_ends: list[int] = []
    for start, end in zip(starts[order].tolist(), ends[order].tolist()):
        if merged_ends and start <= merged_ends[-1]:
            merged_ends[-1] = max(merged_ends[-1], end)
        else:
            merged_starts.append(start)
            merged_ends.append(end)
    return np.array(merged_starts, dtype=np.int64), np.array(merged_ends, dtype=np.int64)


def _colour_edges(image: PageImage, rect: Rect, axis: int, params: CutParameters
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Colour-band boundaries: rows (columns) whose colour differs by more than
    ``band_colour_delta`` (L1 RGB) from the previous one across ``band_fraction`` of the region.

    Found on at most ``BAND_SAMPLES`` evenly spaced columns (rows), so a band edge next to a
    photo (where the ink mask is one thick run) is still found, at a bounded cost per row.
    """
    x0, y0, x1, y1 = rect
    breadth = (x1 - x0) if axis == ROWS else (y1 - y0)
    step = max(1, breadth // BAND_SAMPLES)
    import cv2

    if axis == ROWS:
        strip = np.ascontiguousarray(image.rgb[y0:y1, x0:x1:step])
        difference = cv2.absdiff(strip[1:], strip[:-1])
    else:
        strip = np.ascontiguousarray(image.rgb[y0:y1:step, x0:x1].transpose(1, 0, 2))
        difference = cv2.absdiff(strip[1:], strip[:-1])
    # L1 over the channels; uint8 saturation at 255 is harmless for a threshold below it
    summed = cv2.transform(difference, np.ones((1, 3), np.float32))
    share = np.count_nonzero(summed > params.band_colour_delta, axis=1) / max(1, strip.shape[1])
    halo = 1 + params.dilation // 2
    edges = np.flatnonzero(share >= params.band_fraction) + 1  # between edge - 1 and edge
    edges = edges[(edges > halo) & (edges < share.size + 1 - halo)]
    if not edges.size:
        return edges, edges
    spacing = params.min_gap_rows if axis == ROWS else params.min_gap_columns
    before_gap = np.concatenate(([np.inf], np.diff(edges)))
    after_gap = np.concatenate((np.diff(edges), [np.inf]))
    edges = edges[(before_gap >= spacing) | (after_gap >= spacing)]  # not a stack of bars
    # no crossing test: content that ran across would have the same colour on both sides
    return edges - halo, edges + halo


def _lines(image: PageImage, rect: Rect, axis: int, profile: np.ndarray, breadth: int,
           params: CutParameters) -> tuple[np.ndarray, np.ndarray]:
    """Thin runs of near-full ink rows: separator rules and colour-band edges.

    A rule of up to ``max_line_thickness`` px reads as that plus the Sobel and dilation halo. It
    is a separator when the rows just outside it are blank (a rule or border between blocks). It
    is a band edge when it spans ``band_fraction`` of the region, is not one of a stack of thin
    bars (edges closer than a gap on both sides: lines of solid blocks are content) and the mean
    colour on its two sides differs by more than ``band_colour_delta`` (a header band's edge).
    """
    halo = 1 + params.dilation // 2
    starts, ends = _runs(profile >= params.line_fraction * breadth)
    if not starts.size:
        return starts, ends
    thin = (ends - starts) <= params.max_line_thickness + 2 * halo
    keep = thin & (starts > halo) & (ends < profile.size - halo)
    starts, ends = starts[thin], ends[thin]  # thick runs (photos, texture) are not bars
    keep = keep[thin]
    spacing = params.min_gap_rows if axis == ROWS else params.min_gap_columns
    before_gap = np.concatenate(([np.inf], starts[1:] - ends[:-1]))
    after_gap = np.concatenate((starts[1:] - ends[:-1], [np.inf]))
    alone = (before_gap >= spacing) | (after_gap >= spacing)
    calm = CALM_FRACTION * breadth
    side = halo + 1
    accepted = np.zeros(starts.size, dtype=bool)
    for index in np.flatnonzero(keep):
        start, end = int(starts[index]), int(ends[index])
        if _crossed(image, rect, axis, start, end):
            continue
        before = profile[max(0, start - side):start]
        after = profile[end:end + side]
        if before.mean() <= calm and after.mean() <= calm:
            accepted[index] = True  # a separator rule standing in whitespace
            continue
        if not alone[index] or profile[start:end].max() < params.band_fraction * breadth:
            continue
        above = _strip_colour(image, rect, axis, max(0, start - 2 * halo), start - halo)
        below = _strip_colour(image, rect, axis, end + halo, end + 2 * halo)
        accepted[index] = float(np.abs(above - below).sum()) > params.band_colour_delta
    return starts[accepted], ends[accepted]


def _crossed(image: PageImage, rect: Rect, axis: int, start: int, end: int) -> bool:
    """Whether content runs across the line: ink right before *and* right after it at the same
    place (a heading the line's column passes through). A rule or band edge stands clear."""
    x0, y0, x1, y1 = rect
    if start < 1 or end >= ((y1 - y0) if axis == ROWS else (x1 - x0)):
        return False
    if axis == ROWS:
        before, after = image.ink[y0 + start - 1, x0:x1], image.ink[y0 + end, x0:x1]
    else:
        before, after = image.ink[y0:y1, x0 + start - 1], image.ink[y0:y1, x0 + end]
    crossing = int(np.count_nonzero(before & after))
    return crossing > CROSSING_SLACK + CROSSING_FRACTION * before.size


def _strip_colour(image: PageImage, rect: Rect, axis: int, start: int, end: int) -> np.ndarray:
    """Mean RGB of rows (columns) ``[start, end)`` of ``rect``, offsets along the axis."""
    x0, y0, x1, y1 = rect
    end = max(end, start + 1)
    if axis == ROWS:
        strip = image.rgb[y0 + start:min(y0 + end, y1), x0:x1]
    else:
        strip = image.rgb[y0:y1, x0 + start:min(x0 + end, x1)]
    if strip.size == 0:
        return np.zeros(3)
    return strip.reshape(-1, 3).mean(axis=0)


def _inside_frame(image: PageImage, rect: Rect, params: CutParameters) -> Rect | None:
    """The ink inside the lines that frame ``rect`` (border columns and rows inked over
    :data:`THROUGH_FRACTION` of it), or ``None`` when there is no frame or nothing inside.

    The edges of a white page column on a coloured background run from top to bottom, so no
    row of the column is blank and, without peeling them, the whole page is one region.
    """
    x0, y0, x1, y1 = rect
    columns = _profile(image, rect, COLUMNS) >= THROUGH_FRACTION * (y1 - y0)
    rows = _profile(image, rect, ROWS) >= THROUGH_FRACTION * (x1 - x0)

    def peel(flags: np.ndarray) -> tuple[int, int]:
        if flags.all():
            return flags.size, flags.size
        return int(np.argmin(flags)), int(np.argmin(flags[::-1]))

    left, right = peel(columns)
    top, bottom = peel(rows)
    if not (left or right or top or bottom) or left + right >= x1 - x0 or top + bottom >= y1 - y0:
        return None
    inner = trim(image, (x0 + left, y0 + top, x1 - right, y1 - bottom))
    if inner is None or inner == rect or _ink(image, inner) < params.min_ink:
        return None
    if inner[2] - inner[0] < params.min_width or inner[3] - inner[1] < params.min_height:
        return None  # a framed button or a solid box: nothing inside worth cutting
    return inner


# ----------------------------------------------------------------------------------- the tree
def build_tree(image: PageImage, params: CutParameters) -> Region | None:
    """Steps 3–6: the cut tree of the whole screenshot (``None`` when it holds no ink)."""
    page = (0, 0, image.width, image.height)
    rect = trim(image, page)
    if rect is None or _ink(image, rect) < params.min_ink:
        return None
    root = Region(rect=rect, cell=page, depth=0, ink=_ink(image, rect))
    stack = [(root, ROWS)]
    while stack:  # iterative, so deep trees cannot hit the recursion limit
        check_deadline("segmentation")
        region, preferred = stack.pop()
        _split(image, region, preferred, params)
        for child in reversed(region.children):
            stack.append((child, 1 - (region.axis if region.axis is not None else preferred)))
    return root


def _split(image: PageImage, region: Region, preferred: int, params: CutParameters) -> None:
    """Step 5: cut ``region`` at every candidate of its better direction (tie → preferred)."""
    x0, y0, x1, y1 = region.rect
    if region.depth >= params.max_depth or x1 - x0 < params.min_width \
            or y1 - y0 < params.min_height:
        return
    options = {axis: candidates(image, region.rect, axis, params) for axis in (ROWS, COLUMNS)}
    other = 1 - preferred
    axis = preferred if options[preferred].score >= options[other].score else other
    chosen = options[axis]
    if chosen.score <= 0 or not chosen.starts.size:
        inner = _inside_frame(image, region.rect, params)
        if inner is not None:  # a framed box: its content is the one child, cut further
            region.children = [Region(rect=inner, cell=region.cell, depth=region.depth + 1,
                                      ink=_ink(image, inner))]
            region.axis = preferred
        return
    origin = y0 if axis == ROWS else x0
    length = (y1 - y0) if axis == ROWS else (x1 - x0)
    centres = (chosen.starts + chosen.ends) // 2
    piece_starts = np.concatenate(([0], chosen.ends))
    piece_ends = np.concatenate((chosen.starts, [length]))
    cell_x0, cell_y0, cell_x1, cell_y1 = region.cell
    cell_origin, cell_end = (cell_y0, cell_y1) if axis == ROWS else (cell_x0, cell_x1)
    cell_starts = np.concatenate(([cell_origin - origin], centres))
    cell_ends = np.concatenate((centres, [cell_end - origin]))
    children: list[Region] = []
    for start, end, cell_start, cell_end in zip(piece_starts, piece_ends, cell_starts, cell_ends):
        if end <= start:
            continue
        if axis == ROWS:
            span = (x0, origin + int(start), x1, origin + int(end))
            cell = (cell_x0, origin + int(cell_start), cell_x1, origin + int(cell_end))
        else:
            span = (origin + int(start), y0, origin + int(end), y1)
            cell = (origin + int(cell_start), cell_y0, origin + int(cell_end), cell_y1)
        rect = trim(image, span)
        if rect is None:
            continue
        ink = _ink(image, rect)
        if ink >= params.min_ink:
            children.append(Region(rect=rect, cell=cell, depth=region.depth + 1, ink=ink))
    if len(children) < 2 and not (children and children[0].rect != region.rect):
        return  # nothing was separated
    region.axis = axis
    region.min_gap = chosen.min_gap
    region.children = children
