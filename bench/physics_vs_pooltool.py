"""Physics speed: billar against pooltool 0.6.0 on the same shots, one run, same machine.

Issue 2, section "Benchmark". The workloads come from ``bench/workloads.py`` (14.1 break,
9-ball break, 50 random pool shots, 50 random three-cushion shots). billar runs in this
interpreter (the project's ``.venv``); pooltool runs in its own environment
(``.venv-pooltool``, made by ``make bench-pooltool``) as a subprocess,
``bench/pooltool_side.py``, which receives the same shots as JSON and answers each timing
request with one JSON line (see that file for the frame translation: both engines see the same
table geometry, ball constants, cue and shots, and the same cushion model).

Both engines first run every shot once, untimed (numba compiles or loads its kernels then; no
JIT time is counted). Then, shot by shot, billar simulates the shot ``--repeats`` times
(``--break-repeats`` for the one-shot break workloads), pooltool as many times, and billar again
(its runs pooled): the two engines' timings of a shot lie milliseconds apart, so a change of
machine load weighs on both. A shot's time is the median of its runs, and a workload's figure is
the median over its shots. Times are wall-clock (``time.perf_counter``) and process CPU time
(``time.process_time``) around the engine's simulate calls only: for billar ``physics.simulate(table, balls, Shot(...))``
(validation and the ``SimResult`` included), for pooltool ``pt.simulate(system, engine,
inplace=True)`` on a prepared ``System``. Each timing reads the clocks once around as many runs
of the shot back to back as fill about ``--batch-ms`` (1 ms; sized by one untimed run, at least
one run: every pooltool shot takes longer, so pooltool is timed run by run as before) and divides
by their number, as ``timeit`` does: ``time.process_time`` is a system call (about 0.8 us on a
2-core VM of ours, inside every interval) and billar's first run after pooltool's starts with
cold caches; both are the clock's and the bench's costs, not the engine's. The former figure,
one read of the clocks per billar run, is printed beside it.

Printed (Markdown): per workload the median wall time per shot for each engine, the speed-up
(pooltool / billar), the same ratio in process CPU time (``time.process_time``: on a loaded
machine a 20 ms pooltool run is preempted where a 30 us billar run is not, which inflates the
wall-time ratio; the CPU-time ratio is not; goal >= 200, issue 13), the CPU-time ratio again
with billar's time including one full read of its log right after ``simulate`` (every event's
``states``, every state's ``r``, ``v``, ``w``: the parts billar's log makes on first read, which a
consumer such as ``protocol.encode_log`` pays for; pooltool's log is complete when its
``simulate`` returns), the median events per shot for each,
and the median cost per event (CPU time / events, per shot) with its ratio, since the two
engines need not produce the same number of events. A second table says how far the engines
agree on these shots (same first contact of the cue ball; balls ending within 1 cm of each
other; median distance between final positions).

Usage::

    .venv/bin/python bench/physics_vs_pooltool.py [--repeats N] [--break-repeats N]
        [--only NAME ...] [--cushion-model han_2005|mathavan_2010]
        [--pooltool-cushion-model MODEL] [--pooltool-only] [--json FILE]

This is a benchmark, not a test: ``make bench`` runs it; ``make test`` does not.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import math
import os
import platform
import select
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
if str(ROOT) not in sys.path:
    sys.path.insert(1, str(ROOT))

import workloads as wl  # noqa: E402
from physics import get_table  # noqa: E402

GOAL = 200.0  # speed-up in CPU time on every workload (issue 13)
AGREE_DISTANCE = 0.01  # m: two final positions "agree" when closer than this
DEFAULT_POOLTOOL_PYTHON = ROOT / ".venv-pooltool" / "bin" / "python"


# ----- the machine --------------------------------------------------------------------------


def cpu_model() -> str:
    """The CPU model name from /proc/cpuinfo ('unknown' elsewhere)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def git_commit() -> str:
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "describe", "--always", "--dirty"], capture_output=True, text=True, timeout=10)
        return out.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def machine_info() -> dict:
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    return {
        "date": subprocess.run(["date"], capture_output=True, text=True).stdout.strip() or datetime.datetime.now().isoformat(),
        "nproc": os.cpu_count(),
        "cpu": cpu_model(),
        "loadavg": [round(x, 2) for x in load],
        "python": platform.python_version(),
        "billar": git_commit(),
    }


# ----- the request both engines run ----------------------------------------------------------


def table_request(table_name: str) -> dict:
    """Everything pooltool_side.py needs of a billar table (geometry in billar's frame)."""
    table = get_table(table_name)
    d = table.to_json()
    d["cue"] = dataclasses.asdict(table.cue)
    return d


def build_request(selected: Dict[str, list], args) -> dict:
    """The JSON request for pooltool_side.py: one entry per workload, shots as given."""
    out = []
    for name, shots in selected.items():
        table_name = shots[0][0]
        if any(s[0] != table_name for s in shots):
            raise ValueError(f"workload {name!r}: mixes tables; split it")
        out.append(
            {
                "name": name,
                "table": table_request(table_name),
                "cushion_model": args.pooltool_cushion_model or cushion_model_for(table_name, args),
                "billar_cushion_model": cushion_model_for(table_name, args),
                "ball_model": args.ball_model,
                "max_events": args.max_events,
                "shots": [{"balls": {str(k): list(v) for k, v in balls.items()}, "shot": shot} for _, balls, shot in shots],
            }
        )
    return {"warmup": True, "workloads": out}


def cushion_model_for(table_name: str, args) -> str:
    return args.cushion_model or get_table(table_name).default_cushion_model


def repeats_for(shots: list, args) -> int:
    return args.break_repeats if len(shots) == 1 else args.repeats


# ----- pooltool (subprocess) -----------------------------------------------------------------


class PooltoolSide:
    """bench/pooltool_side.py running under ``python`` with HOME in a temporary directory.

    Opening it sends the request and waits for pooltool's untimed warm-up pass; :meth:`shot`
    then times one shot. Use as a context manager (the subprocess ends with it).
    """

    def __init__(self, request: dict, python: Path, timeout: float):
        if not python.exists():
            raise SystemExit(f"pooltool environment missing: {python} (run `make bench-pooltool` first)")
        self._home = tempfile.TemporaryDirectory(prefix="billar-bench-home-")
        env = dict(os.environ, HOME=self._home.name, BILLAR_BENCH_TMP_HOME="1", PYTHONDONTWRITEBYTECODE="1")
        env.pop("PYTHONPATH", None)
        self._stderr = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen(
            [str(python), str(HERE / "pooltool_side.py")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
            env=env,
            cwd=self._home.name,
        )
        self.timeout = timeout
        self.meta = self._ask(request)

    def _ask(self, obj: dict) -> dict:
        try:
            self.proc.stdin.write(json.dumps(obj) + "\n")
            self.proc.stdin.flush()
            ready, _, _ = select.select([self.proc.stdout], [], [], self.timeout)
            if not ready:
                self.proc.kill()
                raise SystemExit(f"pooltool side gave no answer within {self.timeout:g} s (--timeout)")
            line = self.proc.stdout.readline()
        except (BrokenPipeError, OSError):
            line = ""
        if not line:
            self.proc.wait(timeout=60)
            self._stderr.seek(0)
            raise SystemExit(f"pooltool side failed (exit {self.proc.returncode}):\n{self._stderr.read()[-4000:]}")
        return json.loads(line)

    def shot(self, workload: int, shot: int, repeats: int, batch_ms: float) -> dict:
        return self._ask({"workload": workload, "shot": shot, "repeats": repeats, "batch_ms": batch_ms})

    def __enter__(self) -> "PooltoolSide":
        return self

    def __exit__(self, *exc) -> None:
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
        self._stderr.close()
        self._home.cleanup()


# ----- billar (this process) -----------------------------------------------------------------


def _billar_api():
    try:
        from physics import Shot, simulate
    except ImportError as exc:  # the engine is not built (or not written) yet
        raise SystemExit(f"billar's engine is not available ({exc}); `make build`, or use --pooltool-only") from None
    return simulate, Shot


def _final_layout(res) -> dict:
    out = {}
    for bid, st in res.final.items():
        state = st.state if hasattr(st, "state") else st["state"]
        r = st.r if hasattr(st, "r") else st["r"]
        out[str(bid)] = None if state == "pocketed" else [float(r[0]), float(r[1])]
    return out


def _first_contact(res, cue_ball: int):
    for ev in res.events:
        if cue_ball not in ev.balls:
            continue
        if ev.kind == "ball_ball":
            other = [b for b in ev.balls if b != cue_ball]
            return ["ball", int(other[0])]
        if ev.kind == "ball_cushion":
            return ["cushion", ev.cushion]
        if ev.kind == "ball_pocket":
            return ["pocket", ev.pocket]
    return None


def read_log(res) -> None:
    """Read every part of a billar log once, as a consumer that serialises it does (every event's
    ``states``, every state's ``r``, ``v``, ``w``)."""
    for e in res.events:
        for st in e.states.values():
            st.r, st.v, st.w


def runs_per_read(single_s: float, batch_ms: float) -> int:
    """Runs of a shot timed between two reads of the clocks: as many as fill about ``batch_ms`` given one
    run's time ``single_s`` (s), at least one. The same rule for both engines (pooltool_side.py)."""
    return max(1, math.ceil(batch_ms * 1e-3 / max(single_s, 1e-9)))


def billar_shot(api, table_name: str, balls: dict, shot: dict, repeats: int, args) -> dict:
    """Simulate one shot with billar ``repeats`` times; the record has pooltool_side.py's shape.

    ``wall_s``, ``cpu_s``: per run, each from one read of the clocks around :func:`runs_per_read` runs back
    to back; ``cpu_read_s`` the same with the whole log read after each run (:func:`read_log`);
    ``cpu_single_s``: per run from one read of the clocks around each single run (the bench's method
    before 2026-12-07: ``time.process_time`` is a system call of about 0.8 us on this machine, inside
    every interval, and the first run after pooltool's starts cold)."""
    simulate, Shot = api
    table = get_table(table_name)
    rec = {"wall_s": [], "cpu_s": [], "cpu_read_s": [], "cpu_single_s": [], "runs_per_read": 1, "events": 0,
           "duration_s": 0.0, "capped": False, "first_contact": None, "final": {}, "error": None}
    try:
        s = Shot(**shot)
        model = cushion_model_for(table_name, args)
        ball_model, max_events = args.ball_model, args.max_events
        t0 = time.perf_counter()
        res = simulate(table, balls, s, cushion_model=model, ball_model=ball_model, max_events=max_events)
        n = rec["runs_per_read"] = runs_per_read(time.perf_counter() - t0, args.batch_ms)
        batch = range(n)
        for _ in range(max(1, repeats)):
            c0 = time.process_time()
            t0 = time.perf_counter()
            for _ in batch:
                res = simulate(table, balls, s, cushion_model=model, ball_model=ball_model, max_events=max_events)
            t1 = time.perf_counter()
            rec["cpu_s"].append((time.process_time() - c0) / n)
            rec["wall_s"].append((t1 - t0) / n)
        for _ in range(max(1, repeats)):
            c0 = time.process_time()
            for _ in batch:
                res = simulate(table, balls, s, cushion_model=model, ball_model=ball_model, max_events=max_events)
                read_log(res)
            rec["cpu_read_s"].append((time.process_time() - c0) / n)
        for _ in range(max(1, repeats)):
            c0 = time.process_time()
            res = simulate(table, balls, s, cushion_model=model, ball_model=ball_model, max_events=max_events)
            rec["cpu_single_s"].append(time.process_time() - c0)
        rec["events"] = len(res.events)
        rec["duration_s"] = float(res.events[-1].t) if res.events else 0.0
        rec["capped"] = bool(getattr(res, "capped", False))
        rec["first_contact"] = _first_contact(res, int(shot["cue_ball"]))
        rec["final"] = _final_layout(res)
    except Exception as exc:  # reported in the table, not hidden
        rec["error"] = f"{type(exc).__name__}: {exc}"
    return rec


def run_both(selected: Dict[str, list], request: dict, args):
    """Time every shot: billar, then pooltool, then billar again (billar's runs pooled).

    Each pooltool timing thus sits between two billar timings of the same shot a few
    milliseconds away, so both engines see the same machine load. Returns the two replies
    ``{"warmup_s", "workloads": [{"name", "shots": [record]}]}`` (pooltool's with its versions);
    billar's is None with ``--pooltool-only``.
    """
    api = None if args.pooltool_only else _billar_api()
    with PooltoolSide(request, args.pooltool_python, args.timeout) as side:
        pooltool = dict(side.meta, workloads=[])
        billar = None
        if api is not None:
            t0 = time.perf_counter()
            for shots in selected.values():
                for table_name, balls, shot in shots:
                    billar_shot(api, table_name, balls, shot, 1, args)
            billar = {"warmup_s": time.perf_counter() - t0, "workloads": []}
        for wi, (name, shots) in enumerate(selected.items()):
            repeats = repeats_for(shots, args)
            b_recs, p_recs = [], []
            for si, (table_name, balls, shot) in enumerate(shots):
                if api is not None:
                    before = billar_shot(api, table_name, balls, shot, repeats, args)
                p_recs.append(side.shot(wi, si, repeats, args.batch_ms))
                if api is not None:
                    after = billar_shot(api, table_name, balls, shot, repeats, args)
                    before["wall_s"].extend(after["wall_s"])
                    before["cpu_s"].extend(after["cpu_s"])
                    before["cpu_read_s"].extend(after["cpu_read_s"])
                    before["cpu_single_s"].extend(after["cpu_single_s"])
                    b_recs.append(before)
            pooltool["workloads"].append({"name": name, "shots": p_recs})
            if billar is not None:
                billar["workloads"].append({"name": name, "shots": b_recs})
    return billar, pooltool


# ----- figures -------------------------------------------------------------------------------


def shot_stats(shots: List[dict]) -> dict:
    """Medians over the shots that ran without error: wall time (s), CPU time (s), events, CPU s per event."""
    ok = [s for s in shots if s["error"] is None and s["wall_s"]]
    if not ok:
        return {"n": 0, "errors": len(shots), "capped": 0, "wall": math.nan, "cpu": math.nan, "cpu_read": math.nan,
                "cpu_single": math.nan, "runs_per_read": 0, "events": math.nan, "per_event": math.nan}
    walls = [statistics.median(s["wall_s"]) for s in ok]
    cpus = [statistics.median(s["cpu_s"]) for s in ok]
    reads = [statistics.median(s["cpu_read_s"]) for s in ok if s.get("cpu_read_s")]
    singles = [statistics.median(s["cpu_single_s"]) for s in ok if s.get("cpu_single_s")]
    return {
        "cpu_single": statistics.median(singles) if singles else math.nan,
        "runs_per_read": statistics.median(s.get("runs_per_read", 1) for s in ok),
        "cpu": statistics.median(cpus),
        "cpu_read": statistics.median(reads) if reads else math.nan,
        "n": len(ok),
        "errors": len(shots) - len(ok),
        "capped": sum(1 for s in ok if s["capped"]),
        "wall": statistics.median(walls),
        "events": statistics.median(s["events"] for s in ok),
        "mean_events": statistics.fmean(s["events"] for s in ok),
        "per_event": statistics.median(c / max(s["events"], 1) for c, s in zip(cpus, ok)),
    }


def agreement(ours: List[dict], theirs: List[dict], initial: List[dict]) -> dict:
    """How far the engines agree on the same shots.

    ``same_first``: shots whose cue ball makes the same first contact; ``near``: balls (of
    ``balls``) ending within AGREE_DISTANCE of each other, or pocketed by both;
    ``median_distance``: median distance (m) between the final positions of the balls that are
    on the bed in both and were moved (more than 1 mm) by at least one engine.
    """
    same_first = both = 0
    near = balls = same_pocketed = 0
    dists = []
    for a, b, start in zip(ours, theirs, initial):
        if a["error"] or b["error"]:
            continue
        both += 1
        same_first += a["first_contact"] == b["first_contact"]
        for bid, pa in a["final"].items():
            pb = b["final"].get(bid)
            balls += 1
            if pa is None or pb is None:
                near += pa is None and pb is None
                same_pocketed += pa is None and pb is None
            else:
                d = math.dist(pa, pb)
                r0 = start[bid]
                if math.dist(pa, r0) > 1e-3 or math.dist(pb, r0) > 1e-3:
                    dists.append(d)
                near += d < AGREE_DISTANCE
    median = statistics.median(dists) if dists else math.nan
    return {"shots": both, "same_first": same_first, "balls": balls, "near": near, "median_distance": median, "both_pocketed": same_pocketed}


def _fig(x: float) -> str:
    """Three significant figures, never in exponent form."""
    if math.isnan(x):
        return "n/a"
    return f"{x:.0f}" if abs(x) >= 100 else f"{x:.3g}"


def _ms(x: float) -> str:
    return _fig(x * 1e3)


def _us(x: float) -> str:
    return _fig(x * 1e6)


def _ratio(num: float, den: float) -> str:
    if math.isnan(num) or math.isnan(den) or den <= 0:
        return "n/a"
    return f"{num / den:.0f}x" if num / den >= 10 else f"{num / den:.1f}x"


def _events(st: dict) -> str:
    if st["n"] == 0:
        return "n/a"
    text = f"{st['events']:g}"
    if st["n"] > 1:
        text += f" (mean {st['mean_events']:.1f})"
    return text


def render(info: dict, request: dict, billar: Optional[dict], pooltool: dict, args) -> str:
    """The Markdown report: header (date, machine, versions, models), speed table, notes, agreement table."""
    lines = []

    def models(key: str) -> str:
        return ", ".join(sorted({f"{w['table']['kind']} {w[key]}" for w in request["workloads"]}))

    end = f", {info['loadavg_end'][0]} at the end" if "loadavg_end" in info else ""
    lines.append(f"Date: {info['date']}. Machine: {info['nproc']} cores, {info['cpu']} (load average {info['loadavg'][0]} at start{end}).")
    lines.append(
        f"billar {info['billar']} (Python {info['python']}); pooltool {pooltool['pooltool']} "
        f"(numba {pooltool['numba']}, numpy {pooltool['numpy']}, Python {pooltool['python']}). "
        f"Cushion model: billar {models('billar_cushion_model')}; pooltool {models('cushion_model')}. "
        f"Ball-ball: {args.ball_model} in both."
    )
    warm_b = f"billar {billar['warmup_s']:.2f} s, " if billar else ""
    lines.append(
        f"Per shot: median of {args.repeats} timings ({args.break_repeats} for a break; billar: twice that, right before and after pooltool's), "
        f"each one read of the clocks around as many runs back to back as fill about {args.batch_ms:g} ms, divided by their number "
        f"(runs per read in the table); then the median over the shots; "
        f"untimed warm-up pass first ({warm_b}pooltool {pooltool['warmup_s']:.1f} s incl. numba JIT)."
    )
    lines.append("")
    lines.append(
        "| workload | shots | billar ms/shot | pooltool ms/shot | speed-up | speed-up in CPU time "
        "| in CPU time, billar's log read in full | in CPU time, one billar run per clock read | runs per clock read, billar / pooltool "
        "| billar events/shot "
        "| pooltool events/shot | billar CPU us/event | pooltool CPU us/event | per-event speed-up |"
    )
    lines.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    notes = []
    agree_rows = []
    b_by_name = {w["name"]: w for w in billar["workloads"]} if billar else {}
    req_by_name = {w["name"]: w for w in request["workloads"]}
    for wpt in pooltool["workloads"]:
        name = wpt["name"]
        sp = shot_stats(wpt["shots"])
        if billar:
            sb = shot_stats(b_by_name[name]["shots"])
        else:
            sb = shot_stats([])
        cpu_speed = _ratio(sp["cpu"], sb["cpu"])
        if billar and not math.isnan(sb["cpu"]) and not math.isnan(sp["cpu"]) and sp["cpu"] / sb["cpu"] < GOAL:
            cpu_speed += f" (below {GOAL:.0f}x)"
        lines.append(
            f"| {name} | {len(wpt['shots'])} | {_ms(sb['wall'])} | {_ms(sp['wall'])} | {_ratio(sp['wall'], sb['wall'])} | {cpu_speed} "
            f"| {_ratio(sp['cpu'], sb['cpu_read'])} | {_ratio(sp['cpu'], sb['cpu_single'])} "
            f"| {sb['runs_per_read']:g} / {sp['runs_per_read']:g} | {_events(sb)} | {_events(sp)} "
            f"| {_us(sb['per_event'])} | {_us(sp['per_event'])} | {_ratio(sp['per_event'], sb['per_event'])} |"
        )
        for who, st in (("billar", sb), ("pooltool", sp)):
            if st["errors"]:
                notes.append(f"{name}: {who} raised on {st['errors']} shot(s) (left out of its medians).")
            if st["capped"]:
                notes.append(f"{name}: {who} hit the {args.max_events}-event cap on {st['capped']} shot(s).")
        if billar:
            starts = [shot["balls"] for shot in req_by_name[name]["shots"]]
            agree_rows.append((name, agreement(b_by_name[name]["shots"], wpt["shots"], starts)))
    if notes:
        lines.append("")
        lines.extend(f"- {n}" for n in notes)
    if agree_rows:
        lines.append("")
        lines.append("Agreement of the two engines on the same shots (a check that both ran the same shots, not a speed figure):")
        lines.append("")
        lines.append(
            f"| workload | same first contact | balls ending within {AGREE_DISTANCE * 100:g} cm (or pocketed by both) "
            "| median distance between final positions of the balls that moved, mm |"
        )
        lines.append("|---|---|---|---|")
        for name, a in agree_rows:
            lines.append(f"| {name} | {a['same_first']}/{a['shots']} | {a['near']}/{a['balls']} | {_fig(a['median_distance'] * 1e3)} |")
    return "\n".join(lines)


# ----- command line --------------------------------------------------------------------------


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="billar vs pooltool 0.6.0: median wall time per shot, events per shot, speed-up.")
    ap.add_argument("--repeats", type=int, default=5, help="timed runs of each shot of a many-shot workload (default 5)")
    ap.add_argument("--break-repeats", type=int, default=15, help="timed runs of a one-shot workload (default 15)")
    ap.add_argument("--batch-ms", type=float, default=1.0,
                    help="each timing reads the clocks once around as many runs of the shot as fill about this long "
                         "(default 1 ms; 0: one run per read); the same rule for both engines")
    ap.add_argument("--only", action="append", metavar="NAME", help=f"run only these workloads (of {list(wl.WORKLOADS)})")
    ap.add_argument("--cushion-model", choices=["han_2005", "mathavan_2010"], help="cushion model for both engines (default: each table's default)")
    ap.add_argument(
        "--pooltool-cushion-model",
        choices=["han_2005", "mathavan_2010", "stronge_compliant"],
        help="override pooltool's cushion model only (stronge_compliant is pooltool's own default)",
    )
    ap.add_argument("--ball-model", default="frictional_inelastic", choices=["frictional_inelastic", "frictionless_elastic"])
    ap.add_argument("--max-events", type=int, default=5000, help="event cap for both engines (default 5000, billar's default)")
    ap.add_argument("--pooltool-python", type=Path, default=DEFAULT_POOLTOOL_PYTHON)
    ap.add_argument("--pooltool-only", action="store_true", help="time pooltool alone (billar's engine not needed)")
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds allowed for any one answer of the pooltool side (its first includes numba JIT)")
    ap.add_argument("--json", type=Path, help="also write every raw figure to this file")
    args = ap.parse_args(argv)
    if args.repeats < 1 or args.break_repeats < 1:
        ap.error("--repeats and --break-repeats must be >= 1")
    if not (0.0 <= args.batch_ms <= 1000.0):
        ap.error("--batch-ms must be in [0, 1000]")

    names = args.only or list(wl.WORKLOADS)
    unknown = [n for n in names if n not in wl.WORKLOADS]
    if unknown:
        ap.error(f"unknown workload(s) {unknown}; known: {list(wl.WORKLOADS)}")
    selected = {n: wl.WORKLOADS[n]() for n in names}

    info = machine_info()
    request = build_request(selected, args)
    billar, pooltool = run_both(selected, request, args)
    info["loadavg_end"] = [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else [math.nan] * 3
    print(render(info, request, billar, pooltool, args))
    if args.json:
        args.json.write_text(json.dumps({"machine": info, "request": request, "billar": billar, "pooltool": pooltool}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
