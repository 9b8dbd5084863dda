"""dom-cohesion leaves a comment section whole where only repeated structure makes its comments
posts; the posts step cuts them out for the detector afterwards (webseg-dev wd00015, a news
article with 17 unnamed comments: the Webis annotators drew the section as one region)."""

from __future__ import annotations

from shared_data import SHARED, require_shared

from wps.posts import Evidence, find_posts, split_posts
from wps.segmenters import build_segmenter

DEV_PAGE = SHARED / "webseg-dev" / "pages" / "wd00015"


def test_comments_found_by_structure_are_cut_by_the_posts_step_not_the_segmenter():
    from wps.evaluation import evaluate
    from wps.webis import capture_from_webis, to_webis

    capture = capture_from_webis(require_shared(DEV_PAGE))
    by_structure = find_posts(capture, Evidence(names=False, declared=False))
    assert len(by_structure.records) >= 10  # the comments are records by structure alone

    segmentation = build_segmenter("dom-cohesion").segment(capture)
    scores = evaluate(to_webis(segmentation, "dom-cohesion"), DEV_PAGE / "ground-truth.json",
                      default_segmentation=True)
    assert scores.results["chars"].f1 > 0.9  # 0.40 when the segmenter split every comment

    bodies = [piece for piece in split_posts(capture, segmentation.segments)
              if piece.post_part == "body"]
    for record in by_structure.records:  # each comment's body is a piece of its own
        holding = [piece for piece in bodies if record in _records_of(by_structure, piece)]
        assert len(holding) == 1 and _records_of(by_structure, holding[0]) == {record}


def _records_of(posts, piece) -> set[int]:
    return {posts.record_of[i] for i in piece.node_ids if posts.record_of[i] >= 0}
