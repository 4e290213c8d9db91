"""A name the server refuses (an invisible bidi override) does not leave the page stuck connecting:
the page says so and plays as the server's guest name. A rename the server refuses (a reserved name), or one
over the limit, does not stay in the Name box."""

from __future__ import annotations

from test_browser_straight_pool import new_page


def test_a_refused_name_connects_as_a_guest_and_says_why(browser, live_server):
    P = new_page(browser, live_server, "\u202eevil")
    P.open()  # fills the name, reloads, waits for the link to be open (welcomed)
    assert P.page.evaluate("window.billar.playerName").startswith("player-")
    toasts = P.error_toasts()
    assert any(t.startswith("Your name was refused (name: must not contain control or invisible formatting characters")
               for t in toasts), toasts
    # and the lobby works: a table can be created
    P.page.click("#create-btn")
    P.wait_table()
    assert P.debug()["mySeat"] == 0


def test_a_refused_name_does_not_stay_in_the_box(browser, live_server):
    P = new_page(browser, live_server, "Xena")
    P.open()
    assert P.page.evaluate("window.billar.playerName") == "Xena"
    box = P.page.locator("#player-name")
    # a reserved name: the server refuses the rename; the box shows the name still in use
    box.fill("Computer (level 5)")
    box.press("Enter")
    P.page.wait_for_function("() => (window.__errorToasts || []).some(t => t.includes('reserved'))", timeout=15000)
    P.page.wait_for_function("() => document.querySelector('#player-name').value === 'Xena'", timeout=5000)
    assert P.page.evaluate("window.billar.playerName") == "Xena"
    # a name over the limit is refused with a message, not cut to the limit and sent
    long = "Y" * 40
    box.fill(long)
    assert box.input_value() == long  # nothing cuts it while typing
    box.press("Enter")
    P.page.wait_for_function("() => (window.__errorToasts || []).some(t => t.includes('at most 32 characters'))",
                             timeout=5000)
    assert box.input_value() == "Xena"
    P.page.wait_for_timeout(500)
    assert P.page.evaluate("window.billar.playerName") == "Xena"
    # a good name still goes through
    box.fill("Xena2")
    box.press("Enter")
    P.page.wait_for_function("() => window.billar.playerName === 'Xena2'", timeout=10000)
    P.page.reload()
    P.wait_connected()
    assert box.input_value() == "Xena2"
