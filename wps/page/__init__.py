"""What a rendered page shows, read from its tree and text: evidence shared by the steps
(the decision, :mod:`wps.decide`, and the posts, :mod:`wps.posts`), e.g. what an element's class
and id names say, weighed both ways (:mod:`.names`)."""

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
