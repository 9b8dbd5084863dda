"""The docstring examples of every wps module run as doctests (examples that need Chromium or
../shared data are marked +SKIP where they stand)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import wps


def module_names() -> list[str]:
    return sorted(info.name for info in pkgutil.walk_packages(wps.__path__, "wps.")
                  if not info.name.startswith("wps.detect")  # torch is optional
                  and info.name != "wps.__main__")


@pytest.mark.parametrize("name", module_names())
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} examples failed"


def test_examples_exist() -> None:
    attempted = sum(doctest.testmod(importlib.import_module(name)).attempted
                    for name in ("wps.config", "wps.deadline", "wps.capture.addresses"))
    assert attempted >= 4
