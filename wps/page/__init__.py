"""Page-tree helpers shared by the decision (:mod:`wps.decide`) and the posts (:mod:`wps.posts`):
what an element's class and id names say, weighed both ways (:mod:`.names`)."""

from .names import (
                    NEGATIVE_NAMES,
                    POSITIVE_NAMES,
                    chrome_owners,
                    name_tokens,
                    name_weight,
                    names_chrome,
)

__all__ = ["NEGATIVE_NAMES", "POSITIVE_NAMES", "chrome_owners", "name_tokens", "name_weight",
           "names_chrome"]
