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
    assert features.launch_switches() == []  # not known yet: Playwright's alone
    playwrights = features.SWITCH + ",".join(PLAYWRIGHTS)
    assert features.learn_from(["chromium", "--headless", playwrights], [])
    merged = [features.SWITCH + ",".join([*PLAYWRIGHTS, *features.DISABLED_FEATURES])]
    assert features.launch_switches() == merged
    # launched with it, last: the features in effect are Playwright's and wps's
    assert not features.learn_from(["chromium", playwrights, *merged], merged)
    # another process reads it from the cache
    monkeypatch.setattr(features, "_learned", {})
    assert features.launch_switches() == merged


def test_a_changed_playwright_list_is_learned_again(fresh_cache):
    features.learn_from([features.SWITCH + ",".join(PLAYWRIGHTS)], [])
    added = features.launch_switches()
    newer = features.SWITCH + ",".join([*PLAYWRIGHTS, "SomethingNew"])
    assert features.learn_from([newer, *added], added)  # in effect: without SomethingNew
    assert "SomethingNew" in features.launch_switches()[0]


def test_an_altered_list_is_learned_again(fresh_cache):
    # a kept list that turns off more than Playwright does (site isolation) is not kept either
    features.learn_from([features.SWITCH + ",".join(PLAYWRIGHTS)], [])
    [kept] = fresh_cache.glob("playwright-disabled-features-*.txt")
    kept.write_text(",".join([*PLAYWRIGHTS, "SitePerProcess"]), encoding="utf-8")
    features._learned.clear()
    added = features.launch_switches()
    assert "SitePerProcess" in added[0]
    assert features.learn_from([features.SWITCH + ",".join(PLAYWRIGHTS), *added], added)
    assert "SitePerProcess" not in features.launch_switches()[0]


def test_a_switch_a_wrapper_put_first_is_kept(fresh_cache):
    # Debian's chromium script puts $CHROMIUM_FLAGS before Playwright's arguments
    wrapper, playwrights = features.SWITCH + "UserChoice", features.SWITCH + ",".join(PLAYWRIGHTS)
    assert features.learn_from([wrapper, playwrights], [])
    added = features.launch_switches()
    assert added[0].startswith(features.SWITCH + "UserChoice,")
    assert not features.learn_from([wrapper, playwrights, *added], added)


def test_a_switch_after_wps_is_left_alone(fresh_cache):
    features.learn_from([features.SWITCH + ",".join(PLAYWRIGHTS)], [])
    added = features.launch_switches()
    assert not features.learn_from([*added, features.SWITCH + "Later"], added)


def test_a_damaged_cache_is_not_used(fresh_cache):
    features.learn_from([features.SWITCH + ",".join(PLAYWRIGHTS)], [])
    [kept] = fresh_cache.glob("playwright-disabled-features-*.txt")
    kept.write_text("Good,--evil-switch", encoding="utf-8")
    features._learned.clear()
    assert features.launch_switches() == []


def _omnibox_pages(browser: Browser) -> list[str]:
    """The omnibox popup pages Chromium opens for a new browser context."""

    async def opened() -> list[str]:
        session = await browser._browser.new_browser_cdp_session()
        seen: list[tuple[str, str]] = []
        session.on("Target.targetCreated", lambda event: seen.append(
            (event["targetInfo"]["type"], event["targetInfo"]["url"])))
        await session.send("Target.setDiscoverTargets", {"discover": True})
        before = len(seen)  # the targets there already
        context = await browser._browser.new_context()
        await context.new_page()
        for _ in range(200):  # the window's popup pages are announced before its page
            if any(kind == "page" for kind, _ in seen[before:]):
                break
            await asyncio.sleep(0.05)
        await context.close()
        await session.detach()
        return [url for _, url in seen[before:] if url.startswith("chrome://omnibox")]

    return browser._run(opened())


@pytest.mark.browser
def test_chromium_runs_with_playwrights_features_and_ours_off(fresh_cache, monkeypatch):
    with monkeypatch.context() as unlearned:  # what Playwright alone passes
        unlearned.setattr(browser_module, "launch_switches", lambda: [])
        unlearned.setattr(browser_module, "learn_from", lambda command, added: False)
        with Browser() as plain:
            [theirs] = _switches(command_line(plain._browser_pid))
            assert _omnibox_pages(plain)  # what the switch is for: Chromium does load them
    with Browser() as browser:  # learns Playwright's list on its first launch and launches again
        assert browser.launches == 1
        playwrights, in_effect = _switches(command_line(browser._browser_pid))
        assert playwrights == theirs
        assert set(theirs.split(",")) | set(features.DISABLED_FEATURES) == set(in_effect.split(","))
        assert _omnibox_pages(browser) == []
