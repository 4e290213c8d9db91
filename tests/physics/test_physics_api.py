"""simulate(): input validation, the shape of the log, determinism, replay of the log."""

import json
import math

import pytest

from physics import SimResult, Shot, get_table, simulate
from physics.simulate import simulate_with_snapshots

from physics_helpers import rack_layout

POOL = get_table("pool-9ft")
CAROM = get_table("carom")


def test_log_shape_of_a_simple_shot():
    res = simulate(POOL, {0: (0.8, 0.635), 1: (1.6, 0.635)}, Shot(0, 0.0, 2.0))
    assert res.events[0].kind == "strike" and res.events[0].balls == (0,) and res.events[0].t == 0.0
    kinds = [e.kind for e in res.events]
    assert "ball_ball" in kinds
    bb = next(e for e in res.events if e.kind == "ball_ball")
    assert bb.balls == (0, 1) and set(bb.states) == {0, 1}
    assert [e.t for e in res.events] == sorted(e.t for e in res.events)
    assert set(res.final) == {0, 1}
    assert all(s.state in ("stationary", "pocketed") for s in res.final.values())
    assert not res.capped


def test_table_by_name_and_object_give_the_same_log():
    a = simulate("carom", {0: (1.0, 0.5), 2: (2.0, 0.7)}, Shot(0, 5.0, 3.0))
    b = simulate(CAROM, {0: (1.0, 0.5), 2: (2.0, 0.7)}, Shot(0, 5.0, 3.0))
    assert json.dumps(a.to_json()) == json.dumps(b.to_json())


def test_same_input_gives_the_same_bytes():
    balls = rack_layout(POOL)
    outs = {json.dumps(simulate(POOL, balls, Shot(0, 0.3, 8.0, a=0.1, b=-0.2)).to_json()) for _ in range(3)}
    assert len(outs) == 1


def test_replay_of_the_log_reproduces_the_core_positions():
    res, snaps = simulate_with_snapshots(POOL, rack_layout(POOL), Shot(0, 0.5, 8.0))
    assert len(snaps) == len(res.events) > 50
    worst = 0.0
    for k, (e, snap) in enumerate(zip(res.events, snaps)):
        if k + 1 < len(res.events) and res.events[k + 1].t == e.t:
            continue  # the replay at time t shows the state after the last event at t
        st = res.state_at(e.t)
        for b, s in snap.items():
            worst = max(worst, math.dist(st[b].r, s.r))
            assert st[b].state == s.state
    assert worst <= 1e-12


def test_replay_between_events_matches_the_closed_form():
    res = simulate(CAROM, {0: (0.7, 0.4)}, Shot(0, 20.0, 3.0, b=0.3))
    strike = res.events[0]
    s0 = strike.states[0]
    # before the first cushion the ball slides then rolls: its path has no kink
    t_cushion = next(e.t for e in res.events if e.kind == "ball_cushion")
    t = 0.5 * t_cushion
    r = res.state_at(t)[0].r
    assert r != s0.r
    assert CAROM.R <= r[0] <= CAROM.length - CAROM.R and CAROM.R <= r[1] <= CAROM.width - CAROM.R


def test_json_round_trip_keeps_the_log():
    res = simulate(POOL, rack_layout(POOL), Shot(0, 0.0, 7.0))
    d = res.to_json()
    back = SimResult.from_json(json.loads(json.dumps(d)))
    assert back.to_json() == d


def test_several_shots_are_struck_at_once():
    res = simulate(CAROM, {0: (0.3, 0.4), 1: (0.3, 1.0)}, [Shot(0, 0.0, 3.0), Shot(1, 0.0, 3.0)])
    assert [e.kind for e in res.events[:2]] == ["strike", "strike"]
    assert {res.events[0].balls, res.events[1].balls} == {(0,), (1,)}
    assert res.events[1].t == 0.0


def test_pocketed_ball_ends_at_the_pocket_centre():
    sp = POOL.pocket_by_name("SR")
    res = simulate(POOL, {0: (POOL.length / 2, 0.5)}, Shot(0, -90.0, 2.0))
    pk = next(e for e in res.events if e.kind == "ball_pocket")
    assert pk.pocket == "SR" and pk.balls == (0,)
    assert res.final[0].state == "pocketed" and res.final[0].r == sp.centre


@pytest.mark.parametrize(
    "kwargs, field",
    [
        (dict(shot=Shot(0, 0.0, math.nan)), "V0"),
        (dict(shot=Shot(0, 0.0, 0.0)), "V0"),
        (dict(shot=Shot(0, 0.0, -1.0)), "V0"),
        (dict(shot=Shot(0, 0.0, 10.5)), "V0"),
        (dict(shot=Shot(0, 0.0, math.inf)), "V0"),
        (dict(shot=Shot(0, math.nan, 2.0)), "phi_deg"),
        (dict(shot=Shot(0, 0.0, 2.0, a=0.4, b=0.4)), "a"),
        (dict(shot=Shot(0, 0.0, 2.0, a=math.nan)), "a"),
        (dict(shot=Shot(0, 0.0, 2.0, b=math.inf)), "b"),
        (dict(shot=Shot(0, 0.0, 2.0, theta_deg=71.0)), "theta_deg"),
        (dict(shot=Shot(0, 0.0, 2.0, theta_deg=-1.0)), "theta_deg"),
        (dict(shot=Shot(5, 0.0, 2.0)), "cue_ball"),
        (dict(shot=Shot(16, 0.0, 2.0)), "cue_ball"),
        (dict(shot=[Shot(0, 0.0, 2.0), Shot(0, 1.0, 2.0)]), "cue_ball"),
        (dict(shot="break"), "shot"),
        (dict(balls={0: (1.0, 0.5), 1: (1.0 + 0.05, 0.5)}), "balls"),
        (dict(balls={0: (0.01, 0.5)}), "balls"),
        (dict(balls={0: (1.0, math.nan)}), "balls"),
        (dict(balls={0: (1.0, 0.5), 17: (2.0, 0.5)}), "balls"),
        (dict(balls={0: (1.0, 0.5), "1": (2.0, 0.5)}), "balls"),
        (dict(balls={0: (1.0,)}), "balls"),
        (dict(balls={}), "balls"),
        (dict(table="snooker"), "table"),
        (dict(cushion_model="stronge"), "cushion_model"),
        (dict(ball_model="sticky"), "ball_model"),
        (dict(max_events=0), "max_events"),
        (dict(max_events=10**20), "max_events"),
        (dict(max_events=2.5), "max_events"),
        (dict(balls={0: ("a", "b")}), "balls"),
        (dict(balls=[(1.0, 0.5)]), "balls"),
        (dict(shot=Shot(True, 0.0, 2.0)), "cue_ball"),
        (dict(shot=Shot(0, 0.0, "fast")), "V0"),
        (dict(shot=[]), "shot"),
    ],
)
def test_bad_input_raises_value_error_naming_the_field(kwargs, field):
    args = dict(table=POOL, balls={0: (1.0, 0.5), 1: (2.0, 0.5)}, shot=Shot(0, 0.0, 2.0))
    args.update(kwargs)
    table, balls, shot = args.pop("table"), args.pop("balls"), args.pop("shot")
    with pytest.raises(ValueError) as exc:
        simulate(table, balls, shot, **args)
    assert str(exc.value).startswith(field + ":")


def test_ball_inside_a_pocket_mouth_is_refused():
    # the corner of the bed rectangle lies in the corner pocket's mouth
    R = POOL.R
    with pytest.raises(ValueError, match="^balls: .*pocket HR"):
        simulate(POOL, {0: (R, R)}, Shot(0, 45.0, 1.0))


def test_touching_balls_and_balls_touching_a_cushion_are_accepted():
    R = POOL.R
    res = simulate(POOL, {0: (1.0, R), 1: (1.0 + 2 * R, R)}, Shot(0, 90.0, 1.0))
    assert res.final[0].state == "stationary"


def test_event_cap_stops_every_ball_where_it_is():
    res = simulate(POOL, rack_layout(POOL), Shot(0, 0.0, 8.0), max_events=20)
    assert res.capped
    cap = res.events[-1]
    assert cap.kind == "event_cap"
    assert len(res.events) == 1 + 20 + 1
    assert cap.t == res.events[-2].t
    assert set(cap.balls) == set(cap.states) and cap.balls
    for b, s in cap.states.items():
        assert s.state == "stationary" and s.v == (0.0, 0.0) and s.w == (0.0, 0.0, 0.0)
        assert res.final[b].r == s.r
    assert all(s.state in ("stationary", "pocketed") for s in res.final.values())


def test_playing_surface_is_the_bed_and_the_pocket_mouths():
    from physics.simulate import on_playing_surface

    R = POOL.R
    assert on_playing_surface(POOL, (1.0, 0.5)) and on_playing_surface(POOL, (R, 0.5))
    assert not on_playing_surface(POOL, (R - 1e-5, 0.5))  # into the head cushion
    assert not on_playing_surface(POOL, (1.0, -0.05))  # behind the R-head nose
    assert not on_playing_surface(POOL, (-0.1, -0.1))  # behind a corner pocket
    assert not on_playing_surface(POOL, POOL.pocket_by_name("SL").centre)
    # hanging in the side pocket's mouth: centre 3 mm past the nose line, between the jaws
    assert on_playing_surface(POOL, (POOL.length / 2, -0.003))
    assert not on_playing_surface(CAROM, (1.0, CAROM.R - 1e-5))
    with pytest.raises(ValueError, match="^balls: ball 0 at .* overlaps the cushion R-head"):
        simulate(POOL, {0: (POOL.length / 2 - 0.1, 0.02)}, Shot(0, 90.0, 1.0))
    with pytest.raises(ValueError, match="^balls: ball 0 at .* is not on the playing surface"):
        simulate(POOL, {0: (POOL.length / 2, -0.35)}, Shot(0, 90.0, 1.0))
    with pytest.raises(ValueError, match="^balls: ball 0 at .* overlaps the pocket jaw SR.jaw0"):
        simulate(POOL, {0: (POOL.length / 2 - 0.07, 0.01)}, Shot(0, 90.0, 1.0))


def _count_while(work):
    """How often a second thread got to run (it counts, then yields the GIL at once) while the
    main thread did ``work``, with the interpreter's forced GIL switch set to 1 s."""
    import sys
    import threading
    import time

    count = 0
    started = threading.Event()
    stop = threading.Event()

    def other():
        nonlocal count
        started.set()
        while not stop.is_set():
            count += 1
            time.sleep(0)  # releases the GIL: the main thread gets it back at once

    old = sys.getswitchinterval()
    sys.setswitchinterval(1.0)
    t = threading.Thread(target=other)
    try:
        t.start()
        started.wait()
        base = count
        work()
        done = count - base
    finally:
        stop.set()
        t.join()
        sys.setswitchinterval(old)
    return done


def test_simulate_releases_the_gil_while_it_simulates():
    # a second thread only runs while the main thread releases the GIL (the forced switch is 1 s,
    # the batch takes tens of ms): a batch of breaks in simulate lets it count many times; the
    # control, the same batch's log handling in pure Python (holding the GIL), lets it count (almost)
    # never
    balls = rack_layout(POOL)
    shot = Shot(0, 0.0, 8.0)
    simulate(POOL, balls, shot)

    def batch():
        for _ in range(150):
            simulate(POOL, balls, shot)

    res = simulate(POOL, balls, shot)

    def control():
        for _ in range(150):
            json.dumps(res.to_json())

    during_simulate = _count_while(batch)
    during_python = _count_while(control)
    assert during_simulate >= 50
    assert during_python <= 2
