"""Chromium runs with Playwright's disabled features and wps's own, in one switch: its omnibox
popup pages are never loaded, and every feature Playwright turns off stays off. Real Chromium;
nothing is loaded from the network."""

from __future__ import annotations

import asyncio

import pytest

from wps.capture import Browser, features
from wps.capture import browser as browser_module
from wps.capture.processes import command_line

PLAYWRIGHTS = ["AvoidUnnecessaryBeforeUnloadCheckSync", "HttpsUpgrades", "PaintHolding"]
"""A Playwright list of the right shape, for the tests that need no browser."""


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    """An empty cache, and nothing learned in this process."""
    monkeypatch.setenv("WPS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(features, "_learned", {})
    return tmp_path / "cache"


def _switches(command: list[str]) -> list[str]:
    return [arg[len(features.SWITCH):] for arg in command if arg.startswith(features.SWITCH)]


def test_playwrights_list_is_learned_kept_and_merged(fresh_cache, monkeypatch):
    assert features.launch_switches() == ([], [])  # not known yet: Playwright's alone
    theirs = ",".join(PLAYWRIGHTS)
    assert features.learn_from(["chromium", "--headless", features.SWITCH + theirs])
    add, leave_out = features.launch_switches()
    assert leave_out == [features.SWITCH + theirs]
    assert add == [features.SWITCH + ",".join([*PLAYWRIGHTS, *features.DISABLED_FEATURES])]
    # a launch with the merged switch alone has nothing to learn
    assert not features.learn_from(["chromium", *add])
    # another process reads it from the cache
    monkeypatch.setattr(features, "_learned", {})
    assert features.launch_switches() == (add, leave_out)


def test_a_changed_playwright_list_is_learned_again(fresh_cache):
    features.learn_from([features.SWITCH + ",".join(PLAYWRIGHTS)])
    add, _ = features.launch_switches()
    newer = ",".join([*PLAYWRIGHTS, "SomethingNew"])
    # Playwright's new switch was not left out, and ours (on its old list) came last
    assert features.learn_from([features.SWITCH + newer, *add])
    assert features.launch_switches()[1] == [features.SWITCH + newer]
    assert "SomethingNew" in features.launch_switches()[0][0]


def test_a_damaged_cache_is_not_used(fresh_cache):
    features.learn_from([features.SWITCH + ",".join(PLAYWRIGHTS)])
    [kept] = fresh_cache.glob("playwright-disabled-features-*.txt")
    kept.write_text("Good,--evil-switch", encoding="utf-8")
    features._learned.clear()
    assert features.launch_switches() == ([], [])


def _omnibox_pages(browser: Browser) -> list[str]:
    """The omnibox popup pages Chromium opens for a new browser context."""

    async def opened() -> list[str]:
        session = await browser._browser.new_browser_cdp_session()
        seen: list[str] = []
        session.on("Target.targetCreated", lambda event: seen.append(event["targetInfo"]["url"]))
        await session.send("Target.setDiscoverTargets", {"discover": True})
        context = await browser._browser.new_context()
        await context.new_page()
        await asyncio.sleep(0.5)
        await context.close()
        await session.detach()
        return [url for url in seen if url.startswith("chrome://omnibox")]

    return browser._run(opened())


@pytest.mark.browser
def test_chromium_runs_with_playwrights_features_and_ours_off(fresh_cache, monkeypatch):
    with monkeypatch.context() as unlearned:  # what Playwright alone passes
        unlearned.setattr(browser_module, "launch_switches", lambda: ([], []))
        unlearned.setattr(browser_module, "learn_from", lambda command: False)
        with Browser() as plain:
            [theirs] = _switches(command_line(plain._browser_pid))
            assert _omnibox_pages(plain)  # what the switch is for: Chromium does load them
    with Browser() as browser:  # learns Playwright's list on its first launch and launches again
        assert browser.launches == 1
        [in_effect] = _switches(command_line(browser._browser_pid))
        assert set(theirs.split(",")) | set(features.DISABLED_FEATURES) == set(in_effect.split(","))
        assert _omnibox_pages(browser) == []
    assert features.launch_switches()[1] == [features.SWITCH + theirs]
