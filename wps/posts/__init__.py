"""Posts: each forum post, comment, answer or review its own segment, quotes and chrome apart.

:mod:`.records` finds the records of a page (repeated elements named as posts) and each node's
record and part; :mod:`.step` cuts the segmenter's segments along them as a pipeline step.
"""

from .records import Evidence, PostStructure, find_posts, post_name
from .step import PostOptions, PostStep, split_posts

__all__ = ["Evidence", "PostStructure", "find_posts", "post_name", "PostOptions", "PostStep",
           "split_posts"]
