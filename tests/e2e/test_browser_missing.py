"""Links to what is not there: a table that does not exist (an expired shared link) and a game with no record
say so with a way back to the lobby, and show none of the table's or the replay's controls."""

from __future__ import annotations

from test_browser_straight_pool import new_page


def _visible(page, selector: str) -> bool:
    return page.evaluate(
        "s => [...document.querySelectorAll(s)].some(e => e.offsetParent !== null || e.getClientRects().length > 0)",
        selector)


def test_a_table_that_does_not_exist_says_so_without_controls(browser, live_server):
    P = new_page(browser, live_server, "Wanda")
    P.open("#/table/doesnotexist")
    P.page.wait_for_selector("[data-testid=missing-table]", state="visible", timeout=15000)
    text = P.page.inner_text("[data-testid=missing-table]")
    assert "This table does not exist or has ended." in text
    assert P.page.get_attribute("#missing-table-lobby", "href") == "#/"
    assert "Loading the table" not in P.page.inner_text("main")
    for sel in ["canvas", "#hud-shoot", "#replay-btn", ".controls-card", ".chat-card", "#chat-input",
                "#trails-toggle", ".options-card", "[data-testid=turn-status]"]:
        assert not _visible(P.page, sel), sel
    P.page.screenshot(path="test-artifacts/missing-table.png")
    P.page.click("#missing-table-lobby")
    P.page.wait_for_selector("#create-btn", timeout=15000)


def test_a_game_without_a_record_says_so_without_controls(browser, live_server):
    P = new_page(browser, live_server, "Wendy")
    P.open("#/game/999999")
    P.page.wait_for_function(
        "() => (document.querySelector('[data-testid=replay-status]')?.textContent || '').startsWith('No record')",
        timeout=15000)
    assert _visible(P.page, "[data-testid=replay-status]")
    assert P.page.get_attribute("#missing-record-lobby", "href") == "#/"
    for sel in ["canvas", "#replay-play", ".playback", "#trails-toggle", "#sound-toggle", ".history-card",
                "#replay-skip"]:
        assert not _visible(P.page, sel), sel
    P.page.screenshot(path="test-artifacts/missing-record.png")
