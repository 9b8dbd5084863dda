"""The docstring examples of every wps module run as doctests (examples that need Chromium or
../shared data are marked +SKIP where they stand)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import wps

# Packages of wps's extras: a module that needs one is skipped where that extra is not installed.
OPTIONAL = {"torch", "torchvision", "segment_anything", "transformers", "sklearn", "ray", "warcio",
            "datatrove"}


def module_names() -> list[str]:
    return sorted(info.name for info in pkgutil.walk_packages(wps.__path__, "wps.")
                  if info.name != "wps.__main__")


@pytest.mark.parametrize("name", module_names())
def test_docstring_examples(name: str) -> None:
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as err:
        if (err.name or "").split(".")[0] not in OPTIONAL:
            raise
        pytest.skip(f"{name} needs {err.name} (an optional extra)")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} examples failed"


def test_examples_exist() -> None:
    attempted = sum(doctest.testmod(importlib.import_module(name)).attempted
                    for name in ("wps.config", "wps.deadline", "wps.capture.addresses"))
    assert attempted >= 4
