"""Published Webis-WebSeg-20 results, as data, so benchmark summaries print them next to ours.

Transcribed from /work/shared/docs/webis-webseg-20.md §12 (which cites the papers). All scores
are fractions (the DOM-cohesion table's percentages are divided by 100). The tables come from
different page sets: §12.1 uses all 8,490 pages, §12.2 a 1,969-page subset whose list is not
published, so neither is directly comparable with a run on another page set.
"""

from __future__ import annotations

from dataclasses import dataclass

SIZE_FUNCTION_ORDER = ("pixels", "edges-fine", "edges-coarse", "nodes", "chars")

__all__ = [
    "PublishedScore", "PublishedRow", "PublishedTable",
    "ECIR21_TABLE", "DOM_COHESION_TABLE", "AGREEMENT_TABLE", "PUBLISHED_TABLES",
    "SIZE_FUNCTION_ORDER",
]


@dataclass(slots=True, frozen=True)
class PublishedScore:
    """Dataset means for one size function; ``None`` where the source reports no value."""

    precision: float | None
    recall: float | None
    f1: float | None
    """Mean per-page F ("average F1")."""
    f_star: float | None
    """Harmonic mean of mean P and mean R."""


@dataclass(slots=True, frozen=True)
class PublishedRow:
    algorithm: str
    scores: dict[str, PublishedScore]
    segments_per_page: float | None = None
    note: str = ""


@dataclass(slots=True, frozen=True)
class PublishedTable:
    key: str
    title: str
    pages: str
    """Which pages the numbers average over."""
    source: str
    rows: tuple[PublishedRow, ...]
    comparable_note: str


def _fstar_p_r(cells: str) -> dict[str, PublishedScore]:
    """Cells ``F/F*/P/R`` per size function, in :data:`SIZE_FUNCTION_ORDER` (§12.1 layout)."""
    scores = {}
    for name, cell in zip(SIZE_FUNCTION_ORDER, cells.split()):
        f1, f_star, precision, recall = (float(value) for value in cell.split("/"))
        scores[name] = PublishedScore(precision, recall, f1, f_star)
    return scores


_COHESION_ORDER = ("pixels", "chars", "nodes", "edges-fine", "edges-coarse")


def _p_r_f_fstar_percent(cells: str) -> dict[str, PublishedScore]:
    """Cells ``P/R/F/F*`` in percent, columns pixels, chars, nodes, edges-fine, edges-coarse."""
    scores = {}
    for name, cell in zip(_COHESION_ORDER, cells.split()):
        precision, recall, f1, f_star = (float(value) / 100 for value in cell.split("/"))
        scores[name] = PublishedScore(precision, recall, f1, f_star)
    return {name: scores[name] for name in SIZE_FUNCTION_ORDER}


ECIR21_TABLE = PublishedTable(
    key="ecir21",
    title="ECIR'21 baselines (as reproduced by WebSAM-Adapter) and WebSAM-Adapter",
    pages="all 8,490 pages",
    source=(
        "Kiesel et al., An Empirical Comparison of Web Page Segmentation Algorithms, ECIR 2021, "
        "LNCS 12657, pp. 62-74; Ren et al., WebSAM-Adapter, ECIR 2024, LNCS 14608, pp. 439-454, "
        "Table 2"
    ),
    rows=(
        PublishedRow("VIPS", _fstar_p_r(
            ".38/.47/.36/.67 .59/.68/.66/.69 .61/.68/.67/.70 .63/.70/.69/.71 .67/.75/.77/.72"),
            16.1, "PDoC 6, flattened"),
        PublishedRow("Cormier", _fstar_p_r(
            ".36/.53/.39/.80 .51/.65/.55/.80 .53/.66/.56/.80 .52/.65/.53/.82 .61/.71/.61/.84"),
            15.3, "t_l = 512, s_min = 45, fitted"),
        PublishedRow("HEPS", _fstar_p_r(
            ".33/.44/.36/.56 .48/.58/.61/.55 .49/.59/.62/.56 .43/.54/.63/.46 .50/.60/.73/.51"),
            36.1, "as is"),
        PublishedRow("MMDetection", _fstar_p_r(
            ".42/.54/.51/.57 .53/.61/.73/.53 .54/.62/.74/.53 .52/.61/.74/.51 .61/.69/.79/.60"),
            23.0, "COCO HTC, fitted then flattened"),
        PublishedRow('"Kiesel et al."', _fstar_p_r(
            ".39/.50/.38/.72 .56/.66/.61/.71 .57/.67/.63/.72 .54/.65/.64/.65 .62/.71/.72/.71"),
            18.7, "most likely the ECIR'21 Min-vote@2 ensemble"),
        PublishedRow("WebSAM-Adapter", _fstar_p_r(
            ".62/.70/.63/.79 .71/.76/.69/.85 .72/.77/.69/.86 .69/.75/.74/.77 .77/.82/.78/.87"),
            8.9, "trained, 10-fold CV on the ECIR folds"),
    ),
    comparable_note="all 8,490 pages; WebSAM-Adapter is trained (10-fold CV)",
)

DOM_COHESION_TABLE = PublishedTable(
    key="dom-cohesion-subset",
    title="DOM-structural cohesion and re-averaged ECIR'21 outputs",
    pages="1,969-page subset (list not published)",
    source=(
        "Huynh, Le, Nguyen, Nguyen, A DOM-structural cohesion analysis approach for segmentation "
        "of modern web pages, World Wide Web 28 (2025), DOI 10.1007/s11280-025-01333-3, Table 1"
    ),
    rows=tuple(
        PublishedRow(name, _p_r_f_fstar_percent(cells))
        for name, cells in (
            ("Baseline", "15/100/23/26 44/100/57/61 32/100/45/49 33/100/46/50 33/100/46/50"),
            ("VIPS", "33/69/37/45 81/73/70/77 72/72/66/72 67/71/61/69 68/71/62/70"),
            ("HEPS", "31/62/31/42 72/56/53/63 61/52/46/56 58/61/49/59 58/61/49/60"),
            ("Cormier", "31/89/32/46 56/91/61/70 47/90/52/62 48/89/51/62 49/89/52/63"),
            ("MMDetection", "48/59/41/53 80/60/61/68 77/52/54/62 73/55/55/63 73/55/55/63"),
            ("Meier", "47/55/33/50 61/66/53/63 53/63/46/57 55/59/43/57 54/59/43/57"),
            ("SAM", "48/64/44/55 85/63/67/72 79/49/54/60 74/56/57/64 75/57/58/65"),
            ("DOM cohesion", "60/68/51/64 83/71/68/76 75/67/62/71 75/70/63/72 75/69/63/72"),
        )
    ),
    comparable_note="1,969-page subset whose XPaths map one-to-one; not comparable with §12.1",
)

AGREEMENT_TABLE = PublishedTable(
    key="agreement",
    title="Annotator agreement (mean pairwise F and max(P, R))",
    pages="all 8,490 pages, 5 annotators each",
    source=(
        "Kiesel, Kneist, Meyer, Komlossy, Stein, Potthast, Web Page Segmentation Revisited: "
        "Evaluation Framework and Dataset, CIKM 2020, DOI 10.1145/3340531.3412782, Table 2"
    ),
    rows=(
        PublishedRow("annotators (F)", {
            name: PublishedScore(None, None, value, None)
            for name, value in zip(SIZE_FUNCTION_ORDER, (0.65, 0.73, 0.74, 0.73, 0.78))
        }),
        PublishedRow("annotators (max(P, R))", {
            name: PublishedScore(None, None, value, None)
            for name, value in zip(SIZE_FUNCTION_ORDER, (0.94, 0.96, 0.95, 0.96, 0.97))
        }, note="the F column holds max(P, R)"),
    ),
    comparable_note="human agreement, an upper reference rather than an algorithm result",
)

PUBLISHED_TABLES: tuple[PublishedTable, ...] = (ECIR21_TABLE, DOM_COHESION_TABLE, AGREEMENT_TABLE)
