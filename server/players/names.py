"""Usernames: what a registered player may be called, and the key that makes two names the same.

A username is a display name as :data:`protocol.fields.NAME` accepts it (surrounding blanks
stripped), of :data:`MIN_CHARS`-:data:`MAX_CHARS` characters, made of letters and digits (any
script; combining marks after them) and the separators space, ``_``, ``-`` and ``.``; it starts and
ends with a letter or digit and has no two separators in a row. So a username is always a path
segment of its own profile URL (no ``/``, ``..``, ``%`` or markup). Guest display names keep
the rules of :data:`protocol.fields.NAME` and take the characters of a username (:func:`check_chars`; server/hub.py
``guest_name_refused``), but not its length or its uniqueness.

Two usernames are the same name when their :func:`canonical_key` is: the Unicode TR39 (UTS #39,
section 4) *skeleton* of the NFKC-normalised name in capitals, case-folded, its skeleton again (the
skeleton of "0" is "O", of small "m" "rn"), without the separators. So "Bob", "BOB", "Воb" (Cyrillic В
and о), "воb" and "B0b" are one name, "mike" and "MIKE" too, and "Ann 4712", "ann_4712" and "ann.4712" are "ann4712"; the second to come is refused
as taken.

The key is stored (``accounts.username_key``). Keys made before the separators were dropped
(:func:`legacy_key`) were recomputed by migration 0003; an account whose recomputed key was already
another's kept its legacy key, so lookups by name (:func:`lookup_keys`) try the legacy key first.

The skeleton comes from ICU's spoof checker (the ``icu`` module of PyICU, installed as the
``pyicu-wheels`` wheel that bundles ICU and its confusables data: ICU is the Unicode
consortium's reference implementation, updated with each Unicode version).

The computer opponent's names are reserved: any name whose key is that of "Computer" or of
"Computer (level N)" (server/computer.py names the seats so), and a few words that would pass for
staff or the system.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

import icu

from protocol.errors import ProtocolError
from protocol.fields import NAME

MIN_CHARS = 2
MAX_CHARS = 20


class UsernameError(ValueError):
    """A username that is malformed (``code`` ``bad_username``) or reserved (``reserved_username``)."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


_checker = icu.SpoofChecker()


def skeleton(text: str) -> str:
    """The UTS #39 skeleton of ``text`` (ICU's confusables data): confusable strings share one."""
    return _checker.getSkeleton(0, text)


def _fold(text: str) -> str:
    return skeleton(unicodedata.normalize("NFKC", text)).casefold()


#: the separators a username may contain (one at a time, between letters or digits); the key ignores them
SEPARATORS = " _-."
_SEP_RE = re.compile(r"[ _\-.]")


def _is_alnum(c: str) -> bool:
    cat = unicodedata.category(c)
    return cat[0] == "L" or cat == "Nd"


def legacy_key(name: str) -> str:
    """The uniqueness key before separators were ignored: casefold(skeleton(NFKC(name))), repeated until it no
    longer changes (keys stored before migration 0003; :func:`is_reserved` for guest names)."""
    key = _fold(name)
    for _ in range(8):
        nxt = _fold(key)
        if nxt == key:
            return key
        key = nxt
    return key


def lookup_keys(name: str) -> tuple:
    """The stored keys a username may be found under, the more specific first: its :func:`legacy_key` (an account
    kept it in migration 0003) and its :func:`key_before_0005` (kept in migration 0005) where they differ from
    its :func:`canonical_key`, then its canonical key."""
    out = []
    for k in (legacy_key(name), key_before_0005(name), canonical_key(name)):
        if k not in out:
            out.append(k)
    return tuple(out)


def _separator_free_fold(text: str) -> str:
    key = _SEP_RE.sub("", _fold(text))
    for _ in range(8):
        nxt = _SEP_RE.sub("", _fold(key))
        if nxt == key:
            return key
        key = nxt
    return key


def canonical_key(name: str) -> str:
    """The uniqueness key of a username: casefold(skeleton(...)) of the NFKC-normalised name in capitals, without
    the separators (space, ``_``, ``-``, ``.``), repeated until it no longer changes.

    Capitals first make the key blind to case by construction: the skeleton maps some capitals and their
    small letters apart (capital "I" passes for "l", small "i" for nothing; small "m" for "rn"), so a key taken
    from the name as typed made "mike" and "MIKE" two names (found by QA). Skeleton before case folding maps
    capitals that pass for Latin ones (Cyrillic "В" -> "B"); repeating maps what folding or the skeleton
    itself produced ("0" -> "O" -> "o"; small "m" -> "rn"; "%" -> "º/₀" -> "o/o"). Dropping the separators
    after each round joins what they kept apart ("r n" -> "rn" -> "m"). A key is its own key.
    """
    key = _separator_free_fold(unicodedata.normalize("NFKC", name).upper())
    for _ in range(8):  # in capitals again: small letters a round produced have capitals of their own ("ȝ" -> "Ȝ" -> "3")
        nxt = _separator_free_fold(key.upper())
        if nxt == key:
            return key
        key = nxt
    return key


def key_before_0005(name: str) -> str:
    """The key of migrations 0003-0004 (the name as typed, not in capitals): what an account kept in migration
    0005 when its new key was already another's (:func:`lookup_keys`)."""
    return _separator_free_fold(name)


def _reserved_keys():
    # and names that pass for no one or for the software's own words (QA registered "guest" and "null")
    words = ["computer", "admin", "administrator", "moderator", "billar", "system", "server", "referee",
             "guest", "anonymous", "null", "undefined", "none", "root", "staff", "support"]
    return frozenset(k for w in words for k in (legacy_key(w), canonical_key(w)))


_RESERVED = _reserved_keys()
_COMPUTER = legacy_key("computer")
#: "Computer (level 3)", "computer level 3", "Computer-3", "computer_lvl3" ...: the key of
#: "computer" followed by anything at all is the computer's
_COMPUTER_PREFIX = re.compile(re.escape(_COMPUTER))


def is_reserved(name: str) -> bool:
    """True for the computer's names ("Computer (level N)" and variants) and the reserved words (guest names too).

    A username is also reserved when its :func:`canonical_key` (separators dropped) is: "ad.min" is "admin".
    """
    return _reserved_key(legacy_key(name)) or _reserved_key(legacy_key(unicodedata.normalize("NFKC", name).upper()))


def _reserved_key(key: str) -> bool:
    if key in _RESERVED or key.startswith(_COMPUTER):
        return True
    return bool(_COMPUTER_PREFIX.match(key.lstrip("-_ .()[]")))


def check_username(value: Any) -> str:
    """The username ``value`` as it will be shown (stripped); :class:`UsernameError` if it is not one.

    Rules: those of :data:`protocol.fields.NAME` (the name a guest types), then
    :data:`MIN_CHARS`-:data:`MAX_CHARS` characters of letters, digits and single separators between
    them (:func:`check_chars`), and not reserved (:func:`is_reserved`, on either key).
    """
    if isinstance(value, str) and not value.strip():  # the account's rule, not the transport's "at least 1"
        raise UsernameError("bad_username", f"username: must be {MIN_CHARS} to {MAX_CHARS} characters, got 0")
    try:
        name = NAME(value, "username")
    except ProtocolError as exc:
        raise UsernameError("bad_username", str(exc)) from None
    if not MIN_CHARS <= len(name) <= MAX_CHARS:
        raise UsernameError("bad_username", f"username: must be {MIN_CHARS} to {MAX_CHARS} characters, got {len(name)}")
    if is_reserved(name):  # first: "Computer (level 3)" is told it is reserved, not that "(" is refused
        raise UsernameError("reserved_username", "username: this name is reserved")
    check_chars(name)
    if not canonical_key(name):
        raise UsernameError("bad_username", "username: must contain a letter or digit")
    if _reserved_key(canonical_key(name)):
        raise UsernameError("reserved_username", "username: this name is reserved")
    return name


def check_chars(name: str) -> None:
    """:class:`UsernameError` ``bad_username`` unless ``name`` is letters and digits (combining marks after them)
    with single separators (:data:`SEPARATORS`) between them, none of them a compatibility character (one that
    Unicode NFKC, UAX #15, replaces: fullwidth letters, ligatures, superscripts)."""
    prev = None  # "a" letter, digit or mark; "s" separator
    for c in name:
        plain = unicodedata.normalize("NFKC", c)
        if plain != c and c not in SEPARATORS:
            # a compatibility form (fullwidth "Ｍ", "ﬁ", "²", the Angstrom sign): shown as typed, it would pass for
            # another spelling of the plain name, which NFKC makes the same key anyway (QA registered "Ｍike")
            raise UsernameError("bad_username", f"username: type {plain!r} instead of {c!r}")
        if _is_alnum(c) or (unicodedata.category(c)[0] == "M" and prev == "a"):
            prev = "a"
        elif c in SEPARATORS:
            if prev is None:
                raise UsernameError("bad_username", "username: must start with a letter or digit")
            if prev == "s":
                raise UsernameError("bad_username", "username: no two separators (space _ - .) in a row")
            prev = "s"
        else:
            raise UsernameError("bad_username", f"username: only letters, digits, space, _, - and . are allowed "
                                                f"(not {c!r})")
    if prev != "a":
        raise UsernameError("bad_username", "username: must end with a letter or digit")
