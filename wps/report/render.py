"""The report's Jinja2 templates (``templates/``), rendered with autoescape on: every value a
template prints is HTML-escaped unless it is one of the package's own files (:func:`asset`), and
data for the script goes through ``tojson``, which escapes ``<``, ``>``, ``&`` and ``'``, so no
page text can close the ``<script>`` element it sits in."""

from __future__ import annotations

import json
from functools import cache
from importlib.resources import files
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup


@cache
def asset(name: str) -> Markup:
    """A file of this package (the report's stylesheet and scripts), read once; trusted, so
    printed as it is."""
    return Markup(files(__package__).joinpath(name).read_text(encoding="utf-8"))


@cache
def environment() -> Environment:
    env = Environment(loader=PackageLoader(__package__, "templates"),
                      autoescape=select_autoescape(default=True, default_for_string=True),
                      undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                      keep_trailing_newline=True)
    # key order kept (a segment's statistics read in the order the pipeline wrote them);
    # NaN refused: the callers replace it by null first (JSON.parse takes no NaN)
    env.policies["json.dumps_function"] = json.dumps
    env.policies["json.dumps_kwargs"] = {"ensure_ascii": False, "allow_nan": False,
                                         "default": str}
    env.globals["asset"] = asset
    return env


def render(template: str, **context: Any) -> str:
    """``templates/<template>`` filled in with ``context``."""
    return environment().get_template(template).render(**context)
