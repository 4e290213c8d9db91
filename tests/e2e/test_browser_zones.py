"""The chalk lines of the carom zones are drawn from the zones the server sends (balkline 47/2:
the balk lines 47 cm from each cushion; straight rail: the corner-zone diagonals)."""

from __future__ import annotations

import os

from e2e_driver import CLOTH_TOL, FELT
from test_browser_straight_pool import new_page


def lighter(px, than, by=25):
    return sum(px) >= sum(than) + by


def test_balkline_and_corner_zone_lines(browser, live_server, artifacts):
    P = new_page(browser, live_server, "Zed")
    P.open()
    P.page.select_option("#discipline", "balkline_47_2")
    P.page.click("#create-btn")
    P.wait_table()
    st = P.debug()["state"]
    zones = st["zones"]
    assert len(zones) == 17 and {z["kind"] for z in zones} == {"space", "anchor"}
    P.redraw()
    L, W = 2.84, 1.42
    # the balk lines at 0.47 m from each cushion, away from balls and spots
    for x, y in ((0.47, W * 0.4), (L - 0.47, W * 0.6), (L * 0.43, 0.47), (L * 0.57, W - 0.47)):
        on = P.pixel_at_world(x, y)
        assert lighter(on, FELT), f"no chalk line at {(x, y)}: {on}"
        off = P.pixel_at_world(x + 0.03, y + 0.03)
        assert max(abs(a - b) for a, b in zip(off, FELT)) <= CLOTH_TOL, f"felt expected at {(x + 0.03, y + 0.03)}: {off}"
    P.page.screenshot(path=os.path.join(artifacts, "balkline-47-2.png"))
    # straight rail: the corner zones' diagonal lines (no balk lines)
    P.page.goto(f"{live_server.url}/#/")
    P.wait_connected()
    P.page.select_option("#discipline", "libre")
    P.page.click("#create-btn")
    P.page.wait_for_function("() => window.billar.table && window.billar.table.debug().discipline === 'libre'")
    P.page.wait_for_function("() => window.billar.table.debug().v >= 0")
    zones = P.debug()["state"]["zones"]
    assert len(zones) == 4 and all(z["kind"] == "corner" for z in zones)
    P.redraw()
    # a point on the diagonal of the bottom-left corner zone: the midpoint of its chalk side
    z = next(z for z in zones if min(v[0] for v in z["vertices"]) == 0 and min(v[1] for v in z["vertices"]) == 0)
    chalk = [(a, b) for a, b in zip(z["vertices"], z["vertices"][1:] + z["vertices"][:1])
             if not ((a[0] == b[0] == 0) or (a[1] == b[1] == 0))]
    (a, b), = chalk
    mid = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
    assert lighter(P.pixel_at_world(*mid), FELT), "no corner-zone line"
    assert max(abs(p - q) for p, q in zip(P.pixel_at_world(0.47, W * 0.4), FELT)) <= CLOTH_TOL, "no balk line in straight rail"
    assert not P.errors, P.errors
