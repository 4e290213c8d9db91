"""Accounts: usernames (case and confusables), registration, login and its limits, sessions, password change, deletion."""

import asyncio
import datetime as dt

import pytest
from hypothesis import given, settings, strategies as st
from sqlalchemy import func, select, text

from server.db.models import accounts, sessions
from server.players.accounts import Accounts, token_hash
from server.players.errors import PlayersError
from server.players.names import UsernameError, canonical_key, check_username, is_reserved, legacy_key
from server.players.throttle import MemoryLoginThrottle

PW = "correct horse battery"


# ----- usernames (pure) --------------------------------------------------------------------------
def test_same_name_by_case_and_confusables():
    key = canonical_key("Bob")
    assert key == "bob"
    for variant in ["BOB", "bOb", "B0b", "Воb", "ВОВ", "Ｂｏｂ"]:  # digit zero, Cyrillic Ве/о, full-width
        assert canonical_key(variant) == key, variant
    assert canonical_key("Il1") == canonical_key("lIl") == canonical_key("111")
    assert canonical_key("Straße") == canonical_key("STRASSE")
    assert canonical_key("Bobby") != key
    assert canonical_key("воb") == key  # the key is taken in capitals: small в's capital is В, which passes for B
    # capitals and small letters the skeleton maps apart (capital I passes for l, small m for rn): one name (QA)
    for a, b in [("mike", "MIKE"), ("alice", "ALICE"), ("Jim", "JIM"), ("\u0430lice", "ALICE"), ("emily", "EMILY")]:
        assert canonical_key(a) == canonical_key(b), (a, b)


def test_username_rules():
    assert check_username("  Ann  ") == "Ann"
    assert check_username("Ann 4712") == "Ann 4712" and check_username("Jean-Luc O.Brien") == "Jean-Luc O.Brien"
    for ok in ["Zoë", "Дмитрий", "नमस्ते", "李小龍", "a_b-c.d e", "R2D2"]:  # letters of any script, their marks
        assert check_username(ok) == ok
    for bad, code in [("A", "bad_username"), ("A" * 21, "bad_username"), ("An\x00n", "bad_username"),
                      ("An\u202en", "bad_username"), ("An\nn", "bad_username"), ("   ", "bad_username"),
                      (12, "bad_username"), (None, "bad_username"), ("\u3164\u3164", "bad_username"),
                      ("Computer (level 3)", "reserved_username"), ("computer", "reserved_username"),
                      ("C0MPUTER level 9", "reserved_username"), ("Cоmputer", "reserved_username"),
                      ("admin", "reserved_username"), ("ad.min", "reserved_username"),
                      ("Computer_lvl-3", "reserved_username"),
                      # a username is a path segment of its profile URL, and no markup
                      ("..", "bad_username"), ("a/b", "bad_username"), ("%2e%2e", "bad_username"),
                      ("<b>x</b>", "bad_username"), ("x'; DROP TABLE--", "bad_username"), ("a..b", "bad_username"),
                      ("a _b", "bad_username"), ("_ab", "bad_username"), ("ab.", "bad_username"),
                      ("a?b", "bad_username"), ("a#b", "bad_username"), ("a\\b", "bad_username"),
                      ("😀😀", "bad_username"), ("a\u200db", "bad_username"),
                      # compatibility forms (NFKC changes them): fullwidth, a ligature, a superscript (QA: "Ｍike")
                      ("\uff2dike", "bad_username"), ("\ufb01sh", "bad_username"), ("ab\u00b2", "bad_username"),
                      ("\u212bsa", "bad_username")]:
        with pytest.raises(UsernameError) as e:
            check_username(bad)
        assert e.value.code == code, bad
    assert is_reserved("Computer (level 1)") and not is_reserved("Compute")
    for word in ("guest", "Guest", "NULL", "undefined", "Anonymous"):  # QA registered "guest" and "null"
        with pytest.raises(UsernameError) as e:
            check_username(word)
        assert e.value.code == "reserved_username", word
    assert check_username("Guesty") == "Guesty"
    with pytest.raises(UsernameError) as e:
        check_username("\uff2dike")
    assert str(e.value) == "username: type 'M' instead of '\uff2d'"
    assert not is_reserved("ad min")  # a guest name keeps today's rules


def test_separators_do_not_make_another_name():
    key = canonical_key("ann4712")
    for variant in ["Ann 4712", "ann_4712", "ann.4712", "ANN-4712", "a.n.n.4.7.1.2"]:
        assert canonical_key(variant) == key, variant
    assert canonical_key("r n") == canonical_key("m")  # what the separators kept apart is joined, then folded
    assert legacy_key("ann_4712") != key  # the keys stored before (migration 0003)


# ----- the account operations --------------------------------------------------------------------
@pytest.fixture
def clock():
    class Clock:
        now = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.timezone.utc)

        def __call__(self):
            return self.now
    return Clock()


@pytest.fixture
def throttle():
    t = [0.0]
    th = MemoryLoginThrottle(account_failures=3, address_failures=6, window_s=60.0, clock=lambda: t[0])
    th.t = t
    return th


@pytest.fixture
def acc(db, hasher, throttle, clock):
    return Accounts(db, throttle=throttle, hasher=hasher, clock=clock)


async def count(db, table):
    async with db.read() as conn:
        return (await conn.execute(select(func.count()).select_from(table))).scalar()


async def test_register_login_logout(acc, db):
    a, token = await acc.register("Ann", PW, client="10.0.0.1")
    assert a.username == "Ann" and a.id > 0 and len(token) >= 40
    async with db.read() as conn:
        row = (await conn.execute(select(accounts))).one()
        stored = (await conn.execute(select(sessions.c.token_hash))).scalars().all()
    assert row.password_hash.startswith("$argon2id$") and PW not in row.password_hash
    assert stored == [token_hash(token)] and token not in stored  # only the hash is kept
    assert (await acc.session_account(token)).id == a.id
    # login rotates: a new token, the one the client came with ends
    b, token2 = await acc.login("ANN", PW, client="10.0.0.1", old_token=token)
    assert b.id == a.id and token2 != token
    assert await acc.session_account(token) is None and (await acc.session_account(token2)).username == "Ann"
    assert await acc.logout(token2) is True and await acc.session_account(token2) is None
    assert await acc.logout(token2) is False
    assert await count(db, sessions) == 0


async def test_taken_names_refused_whatever_the_case_or_confusables(acc, db):
    await acc.register("Bob", PW)
    for variant in ["bob", "BOB", "B0b", "Воb", " Bob "]:
        with pytest.raises(PlayersError) as e:
            await acc.register(variant, PW)
        assert e.value.code == "username_taken", variant
    # the fullwidth spelling is refused before its key is looked up (compatibility characters), and logs in as Bob
    with pytest.raises(PlayersError) as e:
        await acc.register("Ｂｏｂ", PW)
    assert e.value.code == "bad_username"
    assert (await acc.login("Ｂｏｂ", PW))[0].username == "Bob"
    assert await count(db, accounts) == 1


async def test_a_name_in_capitals_is_the_same_name(acc, db):
    """QA registered "mike13188" and then "MIKE13188" (201 both): the skeleton maps capital I to l and small m to
    rn, so the keys of the name as typed differed."""
    await acc.register("mike13188", PW)
    await acc.register("alice", PW)
    for variant in ["MIKE13188", "Mike13188", "rnike13188", "ALICE", "\u0430lice", "\u0410LICE"]:
        with pytest.raises(PlayersError) as e:
            await acc.register(variant, PW)
        assert e.value.code == "username_taken", variant
    assert (await acc.login("MIKE13188", PW))[0].username == "mike13188"
    assert await count(db, accounts) == 2


async def test_sql_looking_name_refused(acc, db):
    with pytest.raises(PlayersError) as e:
        await acc.register("x'); DROP TABLE--", PW)
    assert e.value.code == "bad_username"
    async with db.read() as conn:
        assert (await conn.execute(text("SELECT count(*) FROM accounts"))).scalar() == 0


async def test_names_differing_by_separators_are_taken(acc, db):
    await acc.register("ann4712", PW)
    for variant in ["Ann 4712", "ann_4712", "ann.4712", "Ann-4712"]:
        with pytest.raises(PlayersError) as e:
            await acc.register(variant, PW)
        assert e.value.code == "username_taken", variant
    assert (await acc.login("Ann 4712", PW))[0].username == "ann4712"
    assert await count(db, accounts) == 1


async def test_bad_registrations(acc, db):
    cases = [("Ann", "short", "bad_password"), ("Ann", "x" * 257, "bad_password"), ("Ann", 12345678, "bad_password"),
             ("Ann", None, "bad_password"), ("A" * 21, PW, "bad_username"), ("Computer (level 2)", PW, "reserved_username"),
             ("deleted-1234", PW, "reserved_username"), ("Ann\u200b", PW, "bad_username"), ({"a": 1}, PW, "bad_username"),
             # repetitive or sequential (NIST SP 800-63B; QA: eight blanks registered)
             ("Ann", " " * 8, "bad_password"), ("Ann", "aaaaaaaa", "bad_password"), ("Ann", "ab ab ab ab", "bad_password"),
             ("Ann", "12345678", "bad_password"), ("Ann", "HGFEDCBA", "bad_password"), ("Ann", "\t abc \t abc", "bad_password")]
    for name, pw, code in cases:
        with pytest.raises(PlayersError) as e:
            await acc.register(name, pw)
        assert e.value.code == code, (name, pw)
    assert await count(db, accounts) == 0


async def test_failures_answer_alike_and_lock_out(acc, throttle):
    await acc.register("Ann", PW)
    answers = []
    for name, pw in [("Ann", "wrong password"), ("Nobody", PW), ("A" * 500, PW)]:
        with pytest.raises(PlayersError) as e:
            await acc.login(name, pw, client="1.1.1.1")
        answers.append((e.value.code, e.value.message))
    assert len(set(answers)) == 1 and answers[0][0] == "login_failed"
    # the name is locked after 3 failures: even the right password is told why (not "wrong password")
    await acc.login("Ann", PW, client="2.2.2.2")  # 1 failure on Ann so far: fine, and clears it
    for _ in range(3):
        with pytest.raises(PlayersError):
            await acc.login("Ann", "nope nope", client="2.2.2.2")
    with pytest.raises(PlayersError) as e:
        await acc.login("ann", PW, client="3.3.3.3")
    locked = (e.value.code, e.value.message)
    assert locked == ("too_many_attempts", "too many failed logins for this name; try again in 1 minute")
    # a name nobody has is locked after as many failures, with the same answer: nothing tells them apart
    for _ in range(2):  # the third failure of "Nobody" (one above)
        with pytest.raises(PlayersError) as e:
            await acc.login("Nobody", "nope nope", client="4.4.4.4")
        assert (e.value.code, e.value.message) == answers[0]
    with pytest.raises(PlayersError) as e:
        await acc.login("nobody", PW, client="5.5.5.5")
    assert (e.value.code, e.value.message) == locked
    throttle.t[0] += 61  # the window passes
    await acc.login("Ann", PW, client="3.3.3.3")


async def test_address_limit_is_429(acc, throttle):
    for i in range(6):
        with pytest.raises(PlayersError) as e:
            await acc.login(f"user{i}", PW, client="9.9.9.9")
        assert e.value.code == "login_failed"
    with pytest.raises(PlayersError) as e:
        await acc.login("whoever", PW, client="9.9.9.9")
    assert e.value.code == "too_many_attempts"


async def test_unknown_user_costs_a_hash_too(db, throttle, clock):
    from argon2 import PasswordHasher

    class Counting(PasswordHasher):
        calls = []

        def verify(self, hash, password):
            self.calls.append(hash)
            return super().verify(hash, password)

    h = Counting(time_cost=1, memory_cost=8 * 1024, parallelism=1)
    acc = Accounts(db, throttle=throttle, hasher=h, clock=clock)
    await acc.register("Ann", PW)
    for name in ["Ann", "Nobody", "x" * 300]:
        with pytest.raises(PlayersError):
            await acc.login(name, "wrong password", client="x")
    assert len(h.calls) == 3 and all(c.startswith("$argon2id$") for c in h.calls)


async def test_sessions_expire(acc, clock):
    _, token = await acc.register("Ann", PW)
    clock.now += dt.timedelta(days=29)
    assert await acc.session_account(token) is not None
    clock.now += dt.timedelta(days=2)
    assert await acc.session_account(token) is None
    for junk in [None, "", "short", "x" * 500, 42]:
        assert await acc.session_account(junk) is None


async def test_change_password(acc):
    a, t1 = await acc.register("Ann", PW)
    _, t2 = await acc.login("Ann", PW)
    with pytest.raises(PlayersError) as e:
        await acc.change_password(a, "not it at all", "a new password")
    assert e.value.code == "login_failed"
    with pytest.raises(PlayersError) as e:
        await acc.change_password(a, PW, "short")
    assert e.value.code == "bad_password"
    t3 = await acc.change_password(a, PW, "a new password")
    assert await acc.session_account(t1) is None and await acc.session_account(t2) is None
    assert (await acc.session_account(t3)).id == a.id
    with pytest.raises(PlayersError):
        await acc.login("Ann", PW)
    await acc.login("Ann", "a new password")


async def test_delete_keeps_the_name_taken(acc, db):
    a, token = await acc.register("Ann", PW)
    with pytest.raises(PlayersError):
        await acc.delete(a, "wrong password")
    retired = await acc.delete(a, PW)
    assert retired.startswith("deleted-") and len(retired) == len("deleted-") + 8
    assert await acc.session_account(token) is None
    with pytest.raises(PlayersError) as e:
        await acc.login("Ann", PW)
    assert e.value.code == "login_failed"
    with pytest.raises(PlayersError) as e:
        await acc.register("ann", PW)
    assert e.value.code == "username_taken"
    async with db.read() as conn:
        row = (await conn.execute(select(accounts))).one()
    assert row.username == retired and row.password_hash is None and row.deleted_at is not None


# ----- device cookies: nobody locks a player out by failing logins with their name ---------------
async def fail(acc, name, pw, client, device=None):
    with pytest.raises(PlayersError) as e:
        await acc.login(name, pw, client=client, device=device)
    return e.value.code, e.value.message


LOCKED = ("too_many_attempts", "too many failed logins for this name; try again in 1 minute")


async def test_the_owners_device_cookie_lifts_a_lock_made_by_others(acc, throttle):
    """QA: anyone could lock a player out by failing logins with their name; the browser the player logged in with
    before is not held by that lock."""
    ann, _ = await acc.register("Ann", PW, client="10.0.0.1")
    device = await acc.device_cookie(ann)
    for i in range(3):  # the attacker, from addresses of his own, without the cookie
        assert await fail(acc, "Ann", f"guess number {i}", f"6.6.6.{i}") == ("login_failed", "wrong username or password")
    assert await fail(acc, "Ann", PW, "6.6.6.9") == LOCKED  # without the cookie: locked, as before
    assert await fail(acc, "ann", PW, "10.0.0.1") == LOCKED  # the owner's address alone is nothing
    b, token = await acc.login("ann", PW, client="10.0.0.1", device=device)
    assert b.id == ann.id and (await acc.session_account(token)).id == ann.id
    again, _ = await acc.login("Ann", PW, client="10.0.0.2", device=device)  # the cookie still works, and its
    assert again.id == ann.id  # success forgave nothing of the attacker's: the name stays locked for the others
    assert await fail(acc, "Ann", PW, "6.6.6.9") == LOCKED
    # a newer cookie of the same account (another login's) works too; the lock passes with its window
    newer = await acc.device_cookie(b)
    assert newer != device and (await acc.login("Ann", PW, client="10.0.0.3", device=newer))[0].id == ann.id
    throttle.t[0] += 61
    await acc.login("Ann", PW, client="6.6.6.9")


async def test_another_accounts_or_a_forged_device_cookie_lifts_nothing(acc):
    ann, _ = await acc.register("Ann", PW)
    bob, _ = await acc.register("Bob", PW)
    ann_cookie, bob_cookie = await acc.device_cookie(ann), await acc.device_cookie(bob)
    ann_id, nonce, mac = ann_cookie.split(".")
    _, bob_nonce, bob_mac = bob_cookie.split(".")
    for i in range(3):
        await fail(acc, "Ann", f"guess number {i}", "6.6.6.6")
    flipped = mac[:-1] + ("A" if mac[-1] != "A" else "B")
    junk = [
        bob_cookie,  # a valid cookie, of another account
        f"{ann_id}.{bob_nonce}.{bob_mac}", f"{bob.id}.{nonce}.{mac}",  # parts of both
        f"{ann_id}.{nonce}.{flipped}", f"{ann_id}.{nonce}.{mac}=", f"{ann_id}.{nonce}.{mac[:-2]}",  # a wrong MAC
        f"0{ann_id}.{nonce}.{mac}", f"+{ann_id}.{nonce}.{mac}", f" {ann_id}.{nonce}.{mac}",  # the same id, spelt otherwise
        f"{ann_id}.{nonce}.{mac}.", f"{ann_id}..{nonce}.{mac}", f"{ann_id}.{nonce}", ann_cookie.replace(".", ":"),
        f"{ann_id}.{nonce}.{mac}" + "A" * 200,  # over DEVICE_COOKIE_MAX_CHARS
        "1." + "a" * 100_000 + "." + mac,  # huge
        f"\u0661.{nonce}.{mac}", f"{ann_id}.{nonce[:-1]}\u00e9.{mac}", "\udcff" * 10,  # not ASCII (Arabic-Indic one, ...)
        "", ".", "..", "1.2.3", "null", "9" * 40 + f".{nonce}.{mac}", None, 42, b"bytes", ["list"],
    ]
    for bad in junk:
        assert await fail(acc, "Ann", PW, "7.7.7.7", device=bad) == LOCKED, bad
    # the genuine cookie (the same account's) is let through: the test above is not vacuous
    assert (await acc.login("Ann", PW, client="7.7.7.7", device=ann_cookie))[0].id == ann.id
    # Bob's own cookie still works for Bob, and a forged cookie with a name nobody has changes nothing
    assert (await acc.login("Bob", PW, client="7.7.7.7", device=bob_cookie))[0].id == bob.id
    assert await fail(acc, "Nobody", PW, "7.7.7.7", device=ann_cookie) == ("login_failed", "wrong username or password")


async def test_failures_with_a_device_cookie_lock_that_device_not_the_name(acc, throttle):
    ann, _ = await acc.register("Ann", PW)
    mine, other = await acc.device_cookie(ann), await acc.device_cookie(ann)
    for i in range(3):  # as many as a name's limit (3 here)
        assert (await fail(acc, "Ann", f"guess number {i}", f"5.5.5.{i}", device=mine))[0] == "login_failed"
    assert await fail(acc, "Ann", PW, "5.5.5.9", device=mine) == LOCKED  # that device is locked, even the right one
    assert await fail(acc, "Ann", "yet another guess", "5.5.5.9", device=mine) == LOCKED  # and guesses no more
    # the name is not locked for the others: a browser without a cookie, and another device of Ann's
    assert (await acc.login("Ann", PW, client="8.8.8.8"))[0].id == ann.id
    assert (await acc.login("Ann", PW, client="8.8.8.8", device=other))[0].id == ann.id
    # the address limit holds with a device cookie too (6 here: 3 counted above from 5.5.5.x, so 6 from one address)
    third = await acc.device_cookie(ann)
    for i in range(3):
        await fail(acc, "Ann", f"guess number {i}", "4.4.4.4", device=third)
    for i in range(3):
        await fail(acc, "Ann", f"guess number {i}", "4.4.4.4", device=other)
    assert await fail(acc, "Ann", PW, "4.4.4.4", device=await acc.device_cookie(ann)) == (
        "too_many_attempts", "too many failed logins from this address; try again later")
    throttle.t[0] += 61
    assert (await acc.login("Ann", PW, client="5.5.5.9", device=mine))[0].id == ann.id


async def test_password_change_and_delete_with_a_device_cookie(acc):
    ann, _ = await acc.register("Ann", PW)
    bob, _ = await acc.register("Bob", PW)
    mine, bobs = await acc.device_cookie(ann), await acc.device_cookie(bob)
    for i in range(3):
        await fail(acc, "Ann", f"guess number {i}", "6.6.6.6")
    for device in (None, bobs, mine[:-1] + "x"):  # without Ann's cookie: locked, as before
        with pytest.raises(PlayersError) as e:
            await acc.change_password(ann, PW, "a new password", client="1.2.3.4", device=device)
        assert (e.value.code, e.value.message) == LOCKED
    await acc.change_password(ann, PW, "a new password", client="1.2.3.4", device=mine)
    # wrong current passwords with the cookie lock that device only (3 here), not Ann's name for her other browsers
    fresh = await acc.device_cookie(ann)
    for i in range(3):
        with pytest.raises(PlayersError) as e:
            await acc.delete(ann, f"not it {i} at all", client="1.2.3.5", device=fresh)
        assert e.value.code == "login_failed"
    with pytest.raises(PlayersError) as e:
        await acc.delete(ann, "a new password", client="1.2.3.5", device=fresh)
    assert (e.value.code, e.value.message) == LOCKED
    assert (await acc.delete(ann, "a new password", client="1.2.3.5", device=mine)).startswith("deleted-")
    # a deleted account's cookie is no cookie: the name's lock (the attacker's failures) holds again
    assert await fail(acc, "Ann", "a new password", "1.2.3.6", device=mine) == LOCKED


async def test_the_redis_throttle_shares_one_device_key_and_without_redis_there_is_none(db, hasher, clock):
    from server.players.throttle import RedisLoginThrottle

    class Redis:
        def __init__(self):
            self.data, self.down = {}, False

        async def set(self, key, value, nx=False):
            if self.down:
                raise ConnectionError("redis is away")
            if nx and key in self.data:
                return None
            self.data[key] = value.encode() if isinstance(value, str) else value
            return True

        async def get(self, key):
            if self.down:
                raise ConnectionError("redis is away")
            return self.data.get(key)

    class Store:
        def __init__(self, redis):
            self.redis, self.windows = redis, {}  # the redis stands for Redis itself, under the Store's methods

        def key(self, *parts):
            return "billar:" + ":".join(parts)

        async def window_add(self, name, window_s):
            if self.redis.down:
                raise ConnectionError("redis is away")
            self.windows[name] = self.windows.get(name, 0) + 1

        async def window_count(self, name, window_s):
            if self.redis.down:
                raise ConnectionError("redis is away")
            return self.windows.get(name, 0)

        async def window_clear(self, name):
            self.windows.pop(name, None)

        async def shared_secret(self, name, make):  # server/store/redis.py Store.shared_secret's contract
            key = self.key("secret", name)
            await self.redis.set(key, make(), nx=True)
            return (await self.redis.get(key)).decode()

    redis = Redis()
    store = Store(redis)
    one = Accounts(db, throttle=RedisLoginThrottle(store, account_failures=2), hasher=hasher, clock=clock)
    two = Accounts(db, throttle=RedisLoginThrottle(store, account_failures=2), hasher=hasher, clock=clock)
    ann, _ = await one.register("Ann", PW)
    cookie = await one.device_cookie(ann)  # made by one process, taken by another
    assert list(redis.data) == ["billar:secret:device-cookie"] and len(redis.data["billar:secret:device-cookie"]) == 64
    for i in range(2):
        await fail(two, "Ann", f"guess number {i}", "6.6.6.6")
    assert store.windows == {"login-account:" + canonical_key("Ann"): 2, "login-address:6.6.6.6": 2}
    assert (await two.login("Ann", PW, client="7.7.7.7", device=cookie))[0].id == ann.id
    for i in range(2):
        await fail(two, "Ann", f"guess number {i}", "7.7.7.7", device=cookie)
    assert await fail(one, "Ann", PW, "7.7.7.7", device=cookie) == ("too_many_attempts", (
        "too many failed logins for this name; try again in 15 minutes"))
    assert store.windows["login-account:" + canonical_key("Ann")] == 2  # the device's failures are its own
    assert store.windows[f"login-device:{ann.id}:{cookie.split('.')[1]}"] == 2
    # a process that never got the key while Redis is away issues no cookie and takes none (the logins of before)
    redis.down = True
    three = Accounts(db, throttle=RedisLoginThrottle(store), hasher=hasher, clock=clock)
    assert await three.device_cookie(ann) is None
    assert (await three.login("Ann", PW, client="7.7.7.7", device=cookie))[0].id == ann.id  # fails open, as before


async def test_concurrent_registrations_of_one_name(dbf, hasher):
    one, two = Accounts(dbf.engine(), hasher=hasher), Accounts(dbf.engine(), hasher=hasher)
    res = await asyncio.gather(one.register("Zed", PW), two.register("ZED", PW), return_exceptions=True)
    ok = [r for r in res if not isinstance(r, Exception)]
    errs = [r for r in res if isinstance(r, PlayersError)]
    assert len(ok) == 1 and len(errs) == 1 and errs[0].code == "username_taken"


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=24))
def test_a_key_is_its_own_key(text):
    key = canonical_key(text)
    assert canonical_key(key) == key
