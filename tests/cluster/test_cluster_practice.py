"""A practice table across server processes: the coach on another process places, previews and undoes, a
spectator on a third sees every position; the preview answers only the coach, through its own process."""

from cluster_harness import start_nodes, stop_nodes
from harness import next_of
from protocol import inbound as I

STROKE = {"phi_deg": 0.0, "V0": 2.0, "a": 0.0, "b": 0.0, "theta_deg": 0.0}


async def test_a_practice_table_with_its_coach_and_a_spectator_on_other_processes(redis_url, prefix, tmp_path):
    a, b, c = await start_nodes(redis_url, prefix, str(tmp_path), ["a", "b", "c"])
    try:
        ann, bob, cy = await a.client("ann"), await b.client("bob"), await c.client("cy")
        await ann.send(I.CreateTable(discipline="three_cushion", practice={"drill": "3c-umbrella", "coach": True}))
        sa = await ann.expect("seated", seat=0)
        tid = sa["table"]
        snap = await ann.expect("table_snapshot", v=0)
        start = snap["state"]["layout"]
        await ann.expect("seats", v=1)
        await bob.send(I.Join(table=tid))
        sb = await bob.expect("seated", seat=1)
        await bob.expect("table_snapshot", v=1)
        await bob.expect("seats", v=2)
        await cy.send(I.Watch(table=tid))
        assert (await cy.expect("table_snapshot", v=2))["practice"]["coach"] is True
        tb = sb["token"]
        placed = {"0": [0.5, 0.5], "1": [1.0, 0.5], "2": [1.5, 0.9]}
        await bob.send(I.PlaceBalls(table=tid, token=tb, seq=1, balls=placed))
        p = await bob.expect("position", v=3, cause="place", seat=1)
        assert p["state"]["layout"] == placed
        assert (await cy.expect("position", v=3)) == p
        assert (await next_of(ann, "position"))["v"] == 3
        # a preview from process b: simulated on a, answered to bob alone
        await bob.send(I.Preview(table=tid, token=tb, stroke=STROKE))
        pv = await bob.expect("preview", v=3)
        assert pv["log"]["initial"] and "text" in pv["ruling"]
        await cy.silent(0.3)
        await bob.send(I.Undo(table=tid, token=tb, seq=2))
        u = await bob.expect("position", v=4, cause="undo")
        assert u["state"]["layout"] == start
        assert (await cy.expect("position", v=4))["state"]["layout"] == start
        # a game table on process c refuses a practice message sent from process b
        await cy.send(I.CreateTable(discipline="libre", config={"breaker": 0}))
        sc = await cy.expect("seated", seat=0)
        await next_of(cy, "seats")
        await bob.send(I.Preview(table=sc["table"], token=tb, stroke=STROKE))
        await bob.expect("error", code="not_practice", ref="preview")
    finally:
        stop_nodes([a, b, c])
