"""Prometheus metrics in the text exposition format (version 0.0.4), served at ``/metrics``.

A few dozen lines instead of a dependency: counters, gauges and one histogram family, each
registered by name on :class:`Metrics` (the server's one instance). Names follow Prometheus
conventions: ``_total`` for counters, base units (seconds, bytes).
"""

from __future__ import annotations

import bisect
from typing import Dict, List, Sequence, Tuple


class Counter:
    def __init__(self, name: str, help_text: str, labels: Sequence[str] = ()):
        self.name, self.help, self.labels = name, help_text, tuple(labels)
        self.values: Dict[Tuple[str, ...], float] = {} if labels else {(): 0.0}

    def inc(self, amount: float = 1.0, *label_values: str) -> None:
        self.values[label_values] = self.values.get(label_values, 0.0) + amount

    def get(self, *label_values: str) -> float:
        return self.values.get(label_values, 0.0)

    def render(self, kind: str = "counter") -> List[str]:
        out = [f"# HELP {self.name} {self.help}", f"# TYPE {self.name} {kind}"]
        for lv, v in sorted(self.values.items()):
            out.append(f"{self.name}{_labels(self.labels, lv)} {_num(v)}")
        return out


class Gauge(Counter):
    def set(self, value: float, *label_values: str) -> None:
        self.values[label_values] = float(value)

    def dec(self, amount: float = 1.0, *label_values: str) -> None:
        self.inc(-amount, *label_values)

    def render(self, kind: str = "gauge") -> List[str]:
        return super().render(kind)


DEFAULT_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


class Histogram:
    """Cumulative buckets (upper bounds in seconds), ``_sum`` and ``_count`` per label set."""

    def __init__(self, name: str, help_text: str, labels: Sequence[str] = (), buckets: Sequence[float] = DEFAULT_BUCKETS):
        self.name, self.help, self.labels = name, help_text, tuple(labels)
        self.buckets = tuple(sorted(buckets))
        self.series: Dict[Tuple[str, ...], List[float]] = {}  # counts per bucket (+Inf last), then sum

    def observe(self, value: float, *label_values: str) -> None:
        s = self.series.get(label_values)
        if s is None:
            s = self.series[label_values] = [0.0] * (len(self.buckets) + 2)
        s[bisect.bisect_left(self.buckets, value)] += 1
        s[-1] += value

    def count(self, *label_values: str) -> int:
        s = self.series.get(label_values)
        return int(sum(s[:-1])) if s else 0

    def render(self) -> List[str]:
        out = [f"# HELP {self.name} {self.help}", f"# TYPE {self.name} histogram"]
        for lv, s in sorted(self.series.items()):
            acc = 0.0
            for i, ub in enumerate(self.buckets + (float("inf"),)):
                acc += s[i]
                le = "+Inf" if ub == float("inf") else repr(ub)
                out.append(f"{self.name}_bucket{_labels(self.labels + ('le',), lv + (le,))} {_num(acc)}")
            out.append(f"{self.name}_sum{_labels(self.labels, lv)} {repr(s[-1])}")
            out.append(f"{self.name}_count{_labels(self.labels, lv)} {_num(acc)}")
        return out


def _labels(names: Sequence[str], values: Sequence[str]) -> str:
    if not names:
        return ""
    esc = (str(v).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") for v in values)
    return "{" + ",".join(f'{n}="{v}"' for n, v in zip(names, esc)) + "}"


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else repr(v)


#: the stages of ``billar_shot_latency_seconds``, in a stroke's order: simulate (physics), referee, encode (the wire
#: event log), message (the stroke message and its record built and batched), persist (the table's write in Redis),
#: broadcast (to the table's connections); each observed once per stroke (server/table/actor.py)
SHOT_STAGES = ("simulate", "referee", "encode", "message", "persist", "broadcast")


class Metrics:
    """The server's metrics. Gauges are set from live state when rendered (see ``Server.render_metrics``)."""

    def __init__(self):
        self.connections = Gauge("billar_connections", "Open WebSocket connections")
        self.tables_active = Gauge("billar_tables_active", "Table actors running in this process")
        self.spectators = Gauge("billar_spectators", "Spectators watching tables in this process")
        self.players_connected = Gauge("billar_players_connected", "Seated players with a live connection")
        self.lobby_subscribers = Gauge("billar_lobby_subscribers", "Connections watching the lobby")
        self.strokes = Counter("billar_strokes_total", "Strokes simulated, refereed and broadcast")
        self.rulings = Counter("billar_rulings_total", "Rulings without a stroke (decisions, time-outs, forfeits)", ["cause"])
        self.messages_in = Counter("billar_messages_in_total", "Inbound messages accepted")
        self.messages_out = Counter("billar_messages_out_total", "Outbound messages written (one per recipient)")
        self.dropped = Counter("billar_dropped_messages_total", "Outbound messages not sent because of backpressure")
        self.dropped_connections = Counter("billar_dropped_connections_total", "Connections closed for not reading (backpressure)")
        self.resyncs = Counter("billar_resyncs_total", "Players resynchronised by snapshot after falling behind")
        self.protocol_errors = Counter("billar_protocol_errors_total", "Inbound messages refused", ["code"])
        self.rate_limited = Counter("billar_rate_limited_total", "Connections closed for exceeding the message budget")
        self.keepalive = Counter("billar_keepalive_total", "Keepalive pings sent to silent connections, and connections "
                                 "closed because one went unanswered", ["outcome"])
        self.redis_errors = Counter("billar_redis_errors_total", "Redis commands or pipelines that failed")
        self.games_finished = Counter("billar_games_finished_total", "Games that reached their end")
        # scale-out (server/cluster.py)
        self.tables_relayed = Gauge("billar_tables_relayed", "Tables owned by another process with connections here")
        self.tables_adopted = Counter("billar_tables_adopted_total", "Tables taken over from a released or expired lease")
        self.leases_lost = Counter("billar_leases_lost_total", "Tables whose lease another process took (actor stopped)")
        self.forwarded = Counter("billar_cluster_forwarded_total", "Messages forwarded to the process owning their table")
        self.relayed = Counter("billar_cluster_relayed_total", "Stream messages of other processes' tables sent here (per recipient)")
        self.gaps_recovered = Counter("billar_cluster_gaps_recovered_total", "Relayed streams refilled from the persisted history")
        self.cluster_resyncs = Counter("billar_cluster_resyncs_total", "Snapshots asked of an owner for a connection here")
        self.shot_latency = Histogram(
            "billar_shot_latency_seconds", "Time per stroke by stage (" + ", ".join(SHOT_STAGES) + "; see SHOT_STAGES)", ["stage"]
        )
        self.gc_pause = Histogram(
            "billar_gc_pause_seconds", "Garbage-collector pauses of this process (the event loop stands still), by generation",
            ["generation"]
        )

    def all(self) -> List[object]:
        return [v for v in vars(self).values() if isinstance(v, (Counter, Histogram))]

    def render(self) -> str:
        lines: List[str] = []
        for m in self.all():
            lines += m.render()
        return "\n".join(lines) + "\n"


def parse_text(text: str) -> Dict[str, float]:
    """Parse exposition text into ``{"name{labels}": value}`` (for tests and tools)."""
    out: Dict[str, float] = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        key, _, val = line.rpartition(" ")
        out[key] = float(val)
    return out
