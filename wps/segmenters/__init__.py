"""Segmenters: one module each, registered by name.

A segmenter takes a :class:`~wps.model.PageCapture` and returns a :class:`~wps.model.Segmentation`.
Each module in this package registers its segmenters with :func:`register_segmenter`; the package
imports every module on first lookup, so adding a segmenter means adding one module and touching
nothing else. Heavy imports (torch, cv2) stay inside the segmenter's functions.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any, Callable, Protocol, runtime_checkable

from ..errors import UnknownSegmenterError
from ..model import PageCapture, Segmentation

__all__ = ["Segmenter", "register_segmenter", "build_segmenter", "segmenter_names"]


@runtime_checkable
class Segmenter(Protocol):
    """What every segmenter is: a name and one method."""

    name: str

    def segment(self, page: PageCapture) -> Segmentation: ...


_REGISTRY: dict[str, Callable[..., Segmenter]] = {}
_DISCOVERED = False


def register_segmenter(name: str) -> Callable[[Callable[..., Segmenter]], Callable[..., Segmenter]]:
    """Class or factory decorator: make ``build_segmenter(name, **options)`` build it."""

    def decorate(factory: Callable[..., Segmenter]) -> Callable[..., Segmenter]:
        if name in _REGISTRY and _REGISTRY[name] is not factory:
            raise ValueError(f"segmenter {name!r} is registered twice")
        _REGISTRY[name] = factory
        return factory

    return decorate


def _discover() -> None:
    global _DISCOVERED
    if _DISCOVERED:
        return
    for module in pkgutil.iter_modules(__path__):
        if not module.name.startswith("_"):
            importlib.import_module(f"{__name__}.{module.name}")
    _DISCOVERED = True


def segmenter_names() -> list[str]:
    _discover()
    return sorted(_REGISTRY)


def build_segmenter(name: str, **options: Any) -> Segmenter:
    """The segmenter registered as ``name``, configured with keyword ``options``."""
    _discover()
    if name not in _REGISTRY:
        raise UnknownSegmenterError(f"unknown segmenter {name!r}; choose from {sorted(_REGISTRY)}")
    return _REGISTRY[name](**options)
