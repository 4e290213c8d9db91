"""A name the server refuses (an invisible bidi override) does not leave the page stuck connecting:
the page says so and plays as the server's guest name."""

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
