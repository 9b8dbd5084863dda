"""Segmenters: one subpackage or module each, registered by name.

A segmenter takes a :class:`~wps.model.PageCapture` and returns a :class:`~wps.model.Segmentation`.
This package owns the registry (:func:`register_segmenter`, :func:`build_segmenter`) and the
helpers every segmenter shares (:mod:`.geometry`: boxes, visibility, reading-order text). Each
segmenter lives in its own subpackage (``dom_cohesion/``, ``xycut/``) or module (``baseline.py``)
with its private helpers inside it; the package imports every public module and subpackage on
first lookup, so adding a segmenter means adding one subpackage and touching nothing else. Heavy
imports (torch, cv2) stay inside the segmenter's functions.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from typing import Any, Callable, Protocol, runtime_checkable

from ..errors import UnknownSegmenterError, UsageError
from ..model import PageCapture, Segmentation
from ..settings import check_like_default

__all__ = ["Segmenter", "register_segmenter", "build_segmenter", "segmenter_names",
           "wants_screenshot"]


@runtime_checkable
class Segmenter(Protocol):
    """What every segmenter is: a name, whether it reads the screenshot, and one method."""

    name: str

    @property
    def needs_screenshot(self) -> bool:
        """Whether :meth:`segment` reads the capture's screenshot (with these options): a
        batch takes one only for a segmenter that does."""

    def segment(self, page: PageCapture) -> Segmentation: ...


def wants_screenshot(segmenter: Segmenter) -> bool:
    """``segmenter.needs_screenshot``; a segmenter registered before the interface said so (a
    user's plugin) gets the screenshot, as every segmenter but the DOM ones did then."""
    return bool(getattr(segmenter, "needs_screenshot", True))


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
    """The registered names, sorted (what ``--segmenter`` accepts).

    >>> "dom-cohesion" in segmenter_names()
    True
    """
    _discover()
    return sorted(_REGISTRY)


def build_segmenter(name: str, **options: Any) -> Segmenter:
    """The segmenter registered as ``name``, configured with keyword ``options``."""
    _discover()
    if name not in _REGISTRY:
        raise UnknownSegmenterError(f"unknown segmenter {name!r}; choose from {sorted(_REGISTRY)}")
    _check_options(name, _REGISTRY[name], options)
    return _REGISTRY[name](**options)


def _check_options(name: str, factory: Callable[..., Segmenter], options: dict[str, Any]) -> None:
    """Unknown option names and values of the wrong type (a string for a number, say) are a
    :class:`UsageError` naming the option, not a TypeError deep inside the segmenter."""
    try:
        parameters = inspect.signature(factory).parameters
    except (TypeError, ValueError):  # no signature to check against
        return
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return
    for key, value in options.items():
        if key not in parameters:
            raise UsageError(f"{name}: unknown option {key!r}; choose from {sorted(parameters)}")
        parameter = parameters[key]
        if value is None and _allows_none(parameter.annotation):
            continue
        check_like_default(parameter.default, value, f"{name}: option {key}")


def _allows_none(annotation: Any) -> bool:
    text = annotation if isinstance(annotation, str) else repr(annotation)
    return "None" in text or "Optional" in text
