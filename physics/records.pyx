# cython: language_level=3
"""The records of the event log, compiled: :class:`BallState` and :class:`Event`.

``BallState(state, r, v=(0.0, 0.0), w=(0.0, 0.0, 0.0))``: the motion state of one ball, ``state`` a
motion-state name (:data:`physics.events.STATE_NAMES`), ``r`` (x, y) in m, ``v`` (vx, vy) in m/s,
``w`` (wx, wy, wz) in rad/s.

``Event(t, kind, balls, cushion=None, pocket=None, states={})``: one event of the log
(physics/events.py describes the kinds): time ``t`` in s, the ball ids involved, the cushion or
pocket name, and ``states``, the :class:`BallState` after the event of each ball it changed.

Both behave as the frozen dataclasses of those fields they were: the same constructors with
keywords and defaults (a new empty ``states`` dict per event), equality and hash over the fields,
``repr``, assignment raising ``dataclasses.FrozenInstanceError``, ``__match_args__``, pickling and
copying, ``to_json`` and ``from_json`` (and :meth:`BallState.at_rest`).

Why compiled: a shot's log holds an event and a state per ball it changed for each of its events,
and as dataclasses they cost more to build and free than the event loop itself on a
three-cushion shot. The engine builds its states with :func:`packed_state`: the seven numbers
stay C doubles in the object, and ``r``, ``v`` and ``w`` become tuples when first read (then kept:
made once, the same tuple each time); an event that changed one or two balls keeps their ids
and states, and makes its ``states`` dict when first read. Objects built in Python keep exactly
what they were given. Both types keep freed objects for reuse (a free list). What is made on
first read is paid by the reader: one that reads every state of the log (protocol.encode_log
does) pays about what building them in ``simulate`` cost (bench/physics_speed.py prints both);
the saving is real for readers of part of the log (the referees, the bots' candidate searches).
"""

cimport cython

from dataclasses import FrozenInstanceError

cdef tuple _ZERO2 = (0.0, 0.0)
cdef tuple _ZERO3 = (0.0, 0.0, 0.0)


@cython.freelist(256)
cdef class BallState:
    """Motion state of one ball: ``state`` name, ``r`` (x, y) m, ``v`` (vx, vy) m/s, ``w`` (wx, wy, wz) rad/s."""

    __match_args__ = ("state", "r", "v", "w")

    def __init__(self, state, r, v=_ZERO2, w=_ZERO3):
        self.state = state
        self._r = r
        self._v = v
        self._w = w
        self.packed = False

    @property
    def r(self):
        """(x, y) of the centre, m."""
        if self.packed and self._r is None:
            self._r = (self.rx, self.ry)
        return self._r

    @property
    def v(self):
        """(vx, vy), m/s."""
        if self.packed and self._v is None:
            self._v = (self.vx, self.vy)
        return self._v

    @property
    def w(self):
        """(wx, wy, wz), rad/s."""
        if self.packed and self._w is None:
            self._w = (self.wx, self.wy, self.wz)
        return self._w

    def __setattr__(self, name, value):
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name):
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __eq__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return (self.state, self.r, self.v, self.w) == (other.state, other.r, other.v, other.w)

    def __ne__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return (self.state, self.r, self.v, self.w) != (other.state, other.r, other.v, other.w)

    def __hash__(self):
        return hash((self.state, self.r, self.v, self.w))

    def __repr__(self):
        return f"{type(self).__qualname__}(state={self.state!r}, r={self.r!r}, v={self.v!r}, w={self.w!r})"

    def __reduce__(self):
        return (type(self), (self.state, self.r, self.v, self.w))

    def to_json(self) -> dict:
        return {"state": self.state, "r": list(self.r), "v": list(self.v), "w": list(self.w)}

    @classmethod
    def from_json(cls, d) -> "BallState":
        return cls(str(d["state"]), tuple(d["r"]), tuple(d.get("v", _ZERO2)), tuple(d.get("w", _ZERO3)))

    @classmethod
    def at_rest(cls, r) -> "BallState":
        return cls("stationary", (float(r[0]), float(r[1])))


cdef object _NEW_DICT = object()   # the default of Event.states: a new dict per event


@cython.freelist(256)
cdef class Event:
    """One event of the log: ``t`` s, ``kind``, ``balls`` (ids involved; ball_ball: the two balls, the
    first the one the engine lists as the mover, lower id first is not implied), ``cushion`` /
    ``pocket`` (names from the table preset or ``None``), ``states`` (post-event :class:`BallState`
    per changed ball id)."""

    __match_args__ = ("t", "kind", "balls", "cushion", "pocket", "states")

    def __init__(self, t, kind, balls, cushion=None, pocket=None, states=_NEW_DICT):
        self.t = t
        self.kind = kind
        self.balls = balls
        self.cushion = cushion
        self.pocket = pocket
        self._states = {} if states is _NEW_DICT else states
        self._n = 0

    @property
    def states(self):
        """{ball id: :class:`BallState`} after the event, of each ball it changed."""
        return self._states_dict()

    cdef dict _states_dict(self):
        if self._n and self._states is None:
            if self._n == 1:
                self._states = {self._k0: self._s0}
            else:
                self._states = {self._k0: self._s0, self._k1: self._s1}
        return self._states

    def __setattr__(self, name, value):
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name):
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    cdef tuple _fields(self):
        return (self.t, self.kind, self.balls, self.cushion, self.pocket, self._states_dict())

    def __eq__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return self._fields() == (<Event> other)._fields()

    def __ne__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return self._fields() != (<Event> other)._fields()

    def __hash__(self):
        return hash(self._fields())   # TypeError: ``states`` is a dict (as the dataclass's)

    def __repr__(self):
        return (f"{type(self).__qualname__}(t={self.t!r}, kind={self.kind!r}, balls={self.balls!r}, "
                f"cushion={self.cushion!r}, pocket={self.pocket!r}, states={self._states_dict()!r})")

    def __reduce__(self):
        return (type(self), self._fields())

    def to_json(self) -> dict:
        return {
            "t": self.t,
            "kind": self.kind,
            "balls": list(self.balls),
            "cushion": self.cushion,
            "pocket": self.pocket,
            "states": {str(k): s.to_json() for k, s in self._states_dict().items()},
        }

    @classmethod
    def from_json(cls, d) -> "Event":
        return cls(
            float(d["t"]),
            str(d["kind"]),
            tuple(int(b) for b in d.get("balls", ())),
            d.get("cushion"),
            d.get("pocket"),
            {int(k): BallState.from_json(v) for k, v in (d.get("states") or {}).items()},
        )


cdef BallState packed_state(str state, double rx, double ry, double vx, double vy,
                            double wx, double wy, double wz):
    """A :class:`BallState` holding its numbers as doubles (the engine's log); ``r``, ``v`` and ``w``
    become tuples when first read. Bypasses ``__init__`` (the type's allocator, its free list)."""
    cdef BallState o = BallState.__new__(BallState)
    o.state = state
    o.rx = rx
    o.ry = ry
    o.vx = vx
    o.vy = vy
    o.wx = wx
    o.wy = wy
    o.wz = wz
    o.packed = True
    return o


cdef Event packed_event(double t, str kind, tuple balls, object cushion, object pocket):
    """An :class:`Event` without its states (the engine sets them: packed entries or the dict);
    bypasses ``__init__`` (the type's allocator, its free list)."""
    cdef Event o = Event.__new__(Event)
    o.t = t
    o.kind = kind
    o.balls = balls
    o.cushion = cushion
    o.pocket = pocket
    return o
