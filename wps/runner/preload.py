"""Imported once by the batch's fork server, never by a worker: the default pipeline warmed up
there (the steps' modules, trafilatura's first call, py3langid's model), so that every worker
forked from the server starts with them, shared copy-on-write, instead of loading them itself
(about 0.6 CPU s and the model's memory per worker). A worker still warms up its own pipeline,
where what is loaded already costs nothing; anything that fails here is left to the workers,
whose first page reports it.

What is loaded here is then frozen (``gc.freeze``): a worker's garbage collections no longer scan
its 70,000 objects on every full pass (nor write to their pages, which stay shared): the steps after
capture took 62-63 ms a page before and 58-61 after on 60 cached article pages.
"""

from __future__ import annotations

import gc
from contextlib import suppress

with suppress(Exception):
    from ..pipeline import PipelineOptions, warm_up

    warm_up(PipelineOptions())
gc.freeze()
