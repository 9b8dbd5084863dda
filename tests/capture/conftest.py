"""One Chromium for the whole capture test session, with fast settle and scroll bounds."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from wps.capture import Browser, CaptureOptions


def quick_options(**overrides: object) -> CaptureOptions:
    """Options that keep tests fast: no idle settle, a short scroll pass, a short timeout."""
    values: dict[str, object] = {
        "settle_s": 0.0, "scroll_max_steps": 3, "scroll_pause_s": 0.05, "timeout_s": 10.0,
        "allow_private": True,  # the test pages are served on 127.0.0.1
    }
    values.update(overrides)
    return CaptureOptions(**values)  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def quick():
    """The :func:`quick_options` factory (test modules cannot import conftest)."""
    return quick_options


@pytest.fixture(scope="session")
def browser():
    with Browser(quick_options()) as session_browser:
        yield session_browser


@dataclass
class PythonRoundTrips:
    """What of a page's requests reaches Python: each URL the route handler is asked about, and
    each target the egress proxy refuses."""

    routed: list[str] = field(default_factory=list)
    refused_at_proxy: list[str] = field(default_factory=list)


@pytest.fixture
def python_round_trips(monkeypatch):
    """Counts, for browsers started in the test, the requests that cost a round trip to Python."""
    from wps.capture import tabs
    from wps.capture.egress import EgressProxy

    seen = PythonRoundTrips()
    policy_route, refuse = tabs._policy_route, EgressProxy._refuse

    def counting_route(tab):
        decide = policy_route(tab)

        async def counted(route):
            seen.routed.append(route.request.url)
            await decide(route)

        return counted

    def noting_refusal(proxy, target, reason):
        seen.refused_at_proxy.append(target)
        return refuse(proxy, target, reason)

    monkeypatch.setattr(tabs, "_policy_route", counting_route)
    monkeypatch.setattr(EgressProxy, "_refuse", noting_refusal)
    return seen
