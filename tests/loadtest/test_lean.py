"""The lean load generator against a real server process: strokes flow from two worker processes, nothing fails,
the server is empty after."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from loadtest.serverproc import ROOT, free_port, metrics, start_server, stop_server, wait_empty
from server.metrics import SHOT_STAGES


def test_lean_generator_step_and_server_back_to_empty(tmp_path):
    port = free_port()
    server = start_server(port, str(tmp_path / "redis"), log_path=str(tmp_path / "server.log"), grace_s=2.0)
    try:
        out = subprocess.run([sys.executable, os.path.join(ROOT, "loadtest", "lean.py"), "--port", str(port), "--server-pid",
                              str(server.pid), "--steps", "4,8", "--period", "1.0", "--warmup", "2", "--hold", "4",
                              "--generators", "2"],
                             cwd=ROOT, capture_output=True, text=True, timeout=180)
        assert out.returncode == 0, out.stderr
        rows = [json.loads(line) for line in out.stdout.splitlines()]
        assert [r["tables"] for r in rows] == [4, 8] and [r["connections"] for r in rows] == [16, 32]
        assert [r["generators"] for r in rows] == [2, 2]
        for r in rows:
            assert r["errors"] == 0 and r["gaps"] == 0, r["first_errors"]
            # one stroke per table per second over a 4 s window (pacing starts at a random phase)
            assert 0.5 * r["tables"] <= r["strokes_per_s"] <= 1.3 * r["tables"], r
            assert 0.0 < r["p50_ms"] <= r["p99_ms"] <= r["max_ms"] < 1000.0
            assert all(r["stage_ms"][s] > 0.0 for s in SHOT_STAGES)
            assert r["server_rss_mb"] > 10.0 and r["cpu_ms_per_stroke"] > 0.0
        m = metrics(port)
        assert m["billar_strokes_total"] >= sum(r["strokes"] for r in rows)
        gauges = wait_empty(port, timeout=30.0)  # every player left, every table closed, the lobby empty
        assert gauges["billar_tables_active"] == 0 and gauges["billar_connections"] == 0
    finally:
        stop_server(server, data_dir=str(tmp_path / "redis"))


async def test_serving_process_collects_young_objects_only_and_all_of_them_now_and_then():
    """server/serve.py GcPolicy: what exists at start-up is frozen; after a young collection its survivors are frozen
    too (no later collection walks them); a cycle of frozen objects that became garbage is freed by the next full
    collection, which comes once the process's memory has grown by the given share (checked here every 0.1 s),
    but not sooner than the minimum interval after the last one; uninstall unhooks it."""
    import asyncio
    import gc
    import weakref

    from server.serve import GC_THRESHOLDS, GcPolicy, resident_bytes

    class Node:
        pass

    before = gc.get_threshold()
    policy = GcPolicy(growth=0.25, check_every_s=0.1, min_interval_s=0.0)
    try:
        policy.install()
        assert gc.get_threshold() == GC_THRESHOLDS and gc.get_freeze_count() > 0
        a, b = Node(), Node()
        a.other, b.other = b, a  # a reference cycle: only the collector frees it
        gone = weakref.ref(a)
        frozen = gc.get_freeze_count()
        gc.collect(0)  # a young collection: a and b survive it (still referenced) and are frozen
        assert gc.get_count()[0] == 0 and gc.get_freeze_count() > frozen
        assert not any(o is a for o in gc.get_objects())  # out of every generation the collector walks
        del a, b
        gc.collect(0)
        assert gone() is not None  # frozen: a young collection does not see the dead cycle
        await asyncio.sleep(0.3)
        assert policy.full_collections == 0 and gone() is not None  # no growth: no full collection
        keep = [[i] for i in range(policy.baseline // 3 // 50)]  # memory grows by a third (50-odd bytes a list)
        gc.collect(0)
        await asyncio.sleep(0.3)
        assert policy.full_collections == 1 and gone() is None  # the full collection freed the cycle
        assert policy.baseline >= resident_bytes() - 2**20 and len(keep) > 0
        policy.min_interval_s = 60.0
        more = [[i] for i in range(policy.baseline // 2 // 50)]
        gc.collect(0)
        await asyncio.sleep(0.3)
        assert policy.full_collections == 1 and len(more) > 0  # grown, but the last full collection was just now
    finally:
        policy.uninstall()
        gc.unfreeze()
        gc.set_threshold(*before)
    assert policy._after not in gc.callbacks


def test_generators_for_the_fd_limit():
    from loadtest.lean import CONNS_PER_GENERATOR, generators_for

    assert generators_for(1) == 1 and generators_for(CONNS_PER_GENERATOR // 4) == 1
    assert generators_for(CONNS_PER_GENERATOR // 4 + 1) == 2
    assert generators_for(5000) == 2 and 4 * 5000 / generators_for(5000) < 20_000  # one fd per connection
