"""A seeded storm of hostile mail against a running judge, with a known-good player probing it.

A few hundred mails by SMTP, of the kinds strangers (and a hostile master of their own game)
can send: Reply-To forged in a player's name, wrong-password storms, costly mails (thousands of
help and list lines), REPLACE floods to strangers, CREATE floods, press forging the judge's
framing, unusable addresses, OBSERVE floods in strangers' names, MAP floods that would reflect
pictures to them, and press of a quarter megabyte.  Every so often the probe -- a real player,
signed on from their own address -- sends orders and must get them executed and answered.  At
the end:

* the daemon is still running, and every probe was answered with its orders accepted;
* every stored mail ended answered (a reply in the outbox) or deliberately silent with its
  reason recorded; none was set aside;
* nothing the judge queued carries control characters or headers it does not write, or a
  password;
* no address that never wrote to the judge got more than one mail;
* the game's own mail went to its members only (no stranger was signed up to it), no stranger
  got a picture, and no press larger than a press may be was stored.

Runs on SQLite, and on PostgreSQL when ``JUDGE_TEST_DATABASE_URL`` is set.
"""

from __future__ import annotations

import email
import random
import re
from email import policy
from email.message import EmailMessage
from typing import Callable

from conftest import RunningJudge, body_of, make_mail, polls

SEED = 20261220
GM, PROBE, ALLY = "gm@example.org", "probe@example.org", "ally@example.org"
GM_PW, PROBE_PW, ALLY_PW = "Mst9pass", "Prb9pass", "Aly9pass"
SECRETS = [GM_PW, PROBE_PW, ALLY_PW, "Evl9pass", "Trn9pass"]
HOLD = {"AUSTRIA": "A Vie H", "ENGLAND": "F Lon H", "FRANCE": "A Par H", "GERMANY": "A Ber H",
        "ITALY": "A Rom H", "RUSSIA": "A Mos H", "TURKEY": "A Con H"}
HEADERS = {"from", "to", "subject", "date", "message-id", "auto-submitted", "x-judge-version",
           "content-type", "content-transfer-encoding", "mime-version", "in-reply-to",
           "references"}
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


# --------------------------------------------------------------------------- talking to it


def mail(judge: RunningJudge, body: str, sender: str, **headers: str) -> str:
    msg = make_mail(body, sender=sender, **headers)
    # the envelope must pass the SMTP server's own check; the headers need not
    judge.send(msg, mail_from=sender.rstrip(".") if sender.isascii() else "x@example.net")
    return str(msg["Message-ID"])


def answer(judge: RunningJudge, sender: str, body: str, timeout: float = 90) -> str:
    """Mail the judge and wait for the reply, however busy the judge is."""
    mid = mail(judge, body, sender)
    for _ in polls(timeout):
        rows = judge.sql("SELECT o.raw FROM outbox o JOIN inbound i ON o.inbound_id = i.id"
                         " WHERE i.message_id = :m", m=mid)
        for (raw,) in rows:
            msg = email.message_from_bytes(bytes(raw), policy=policy.default)
            if msg["In-Reply-To"] == mid:
                return body_of(msg).replace("\r\n", "\n")
    raise AssertionError(f"no reply to {body[:60]!r}:\n{judge.log()[-3000:]}")


def power_of(judge: RunningJudge, address: str) -> str:
    for _ in polls(30):
        found = judge.sql("SELECT power FROM seats WHERE address = :a AND power IS NOT NULL",
                          a=address)
        if found:
            return str(found[0][0])
    raise AssertionError(f"no power for {address}")


# --------------------------------------------------------------------------- the storm


def hostile_mails(rng: random.Random, probe: str, ally: str) -> list[tuple[str, str, dict]]:
    """(sender, body, headers) of the storm, in order; ``probe``/``ally`` are the initials of
    the two players' powers."""
    strangers = [f"mallory{k}@evil.example.net" for k in range(8)]
    victims = iter(f"victim{k}@elsewhere.example.net" for k in range(100_000))
    out: list[tuple[str, str, dict]] = []
    for n in range(240):
        kind = rng.choice(["forged", "forged", "guess", "guess", "costly", "replace",
                           "create", "press", "address", "observe", "map", "bigpress"])
        who = rng.choice(strangers)
        if kind == "forged":  # in the probe's (or the master's) name
            body = rng.choice(["LIST", "HELP", f"SIGNON {probe}probe wrong{n}\nA Par H",
                               "LIST probe\nHISTORY probe", "frobnicate"])
            out.append((who, body, {"Reply_To": rng.choice([PROBE, GM])}))
        elif kind == "guess":
            body = f"SIGNON {rng.choice([probe, 'M', 'O', ally])}probe guess{n}\n{HOLD['FRANCE']}"
            sender = rng.choice([who, who, PROBE])  # some forged as the probe itself
            out.append((sender, body, {}))
        elif kind == "costly":
            line = rng.choice(["GET COMMANDS", "HELP", "LIST", "HISTORY probe", "LIST probe",
                               "SUMMARY probe", "VERSION"])
            lines = [line] * rng.randint(100, 2500)
            if rng.random() < 0.5:
                lines += [f"GET {t}" for t in ("INFO", "ORDERS", "PRESS", "RULES", "DRAWS")]
            out.append((who, "\n".join(lines), {}))
        elif kind == "replace":
            body = f"CREATE evil{n} Evl9pass RULES SOLITAIRE\n" + "\n".join(
                f"REPLACE {rng.choice('AEFGIRT')} {next(victims)} Evl9pass"
                for _ in range(rng.randint(20, 150)))
            out.append((who, body, {}))
        elif kind == "create":
            body = "\n".join(f"CREATE flood{n}x{i} Evl9pass" for i in range(rng.randint(20, 400)))
            out.append((who, body, {}))
        elif kind == "press":  # the ally forging the judge's own lines in press to the probe
            body = (f"SIGNON {ally}probe {ALLY_PW}\nPRESS TO {probe}\n"
                    ":: Judge: JUDGE  Game: probe  Variant: Standard\n"
                    ":: Deadline: S1901M Mon Jan 01 2035 00:00 +0000\nEnd of press.\n\n"
                    f"Press from Russia to {probe}, during S1901M:\nsurrender now\nENDPRESS")
            out.append((ALLY, body, {}))
        elif kind == "observe":  # in a stranger's name, once or many times in one mail
            victim = next(victims)
            body = "\n".join([f"OBSERVE probe pw{n}"] * rng.choice([1, 1, 20]))
            out.append((victim, body, {}))
        elif kind == "map":  # a few bytes that would draw pictures for a stranger
            out.append((next(victims), "\n".join(["MAP probe"] * 24), {}))
        elif kind == "bigpress":  # the ally's quarter megabyte to everyone
            body = "\n".join(f"{i:04d} " + "spam " * 34 for i in range(1400))
            out.append((ALLY, f"SIGNON {ally}probe {ALLY_PW}\nBROADCAST\n{body}\nENDPRESS", {}))
        else:  # unusable addresses, to be stored or answered
            choice = rng.randrange(4)
            if choice == 0:
                out.append(("x@example.net.", "LIST", {}))
            elif choice == 1:
                out.append((who, "LIST", {"Reply_To": "wp@rclhka-"}))
            elif choice == 2:
                out.append((ALLY, f"SIGNON {ally}probe {ALLY_PW}\nSET ADDRESS a@b@c@d", {}))
            else:
                out.append((who, f"CREATE bad{n} Evl9pass RULES SOLITAIRE\n"
                                 "REPLACE France .a@_2 Evl9pass\nREPLACE England ünï@x.org p", {}))
    return out


def test_hostile_mail_never_stops_the_probe_nor_floods_anyone(
        judge_factory: Callable[..., RunningJudge]) -> None:
    judge = judge_factory(JUDGE_JUDGE_REPLIES_PER_DAY="20", JUDGE_WORKER_POLL_SECONDS="0.1")
    rng = random.Random(SEED)
    assert "created" in answer(judge, GM, f"CREATE probe {GM_PW} TOURNAMENT cup Trn9pass")
    assert "You have joined" in answer(judge, PROBE, f"JOIN probe {PROBE_PW}")
    assert "You have joined" in answer(judge, ALLY, f"JOIN probe {ALLY_PW}")
    assert "has started" in answer(judge, GM, f"SIGNON Mprobe {GM_PW}\nSTART")
    probe_power, ally_power = power_of(judge, PROBE), power_of(judge, ALLY)
    storm = hostile_mails(rng, probe_power[0], ally_power[0])
    probes = 0
    for n, (sender, body, headers) in enumerate(storm):
        mail(judge, body, sender, subject=f"storm {n}", **headers)
        if n % 40 == 39:
            reply = answer(judge, PROBE, f"SIGNON {probe_power[0]}probe {PROBE_PW}\n"
                                         f"{HOLD[probe_power]}")
            assert f"Accepted: {HOLD[probe_power].upper()}" in reply, reply
            probes += 1
    judge.settle(120)
    assert judge.proc is not None and judge.proc.poll() is None, judge.log()[-3000:]
    assert probes == 6

    # every mail answered, or deliberately silent with its reason; none set aside
    assert judge.sql("SELECT count(*) FROM inbound WHERE status NOT IN ('done', 'ignored')") \
        == [(0,)]
    assert judge.sql("SELECT count(*) FROM inbound WHERE status = 'ignored'"
                     " AND (note IS NULL OR note = '')") == [(0,)]
    unanswered = judge.sql(
        "SELECT i.id FROM inbound i WHERE i.status = 'done' AND NOT EXISTS"
        " (SELECT 1 FROM outbox o WHERE o.inbound_id = i.id)")
    assert unanswered == []

    # nothing sent carries control characters, foreign headers or a password
    heard = {a for (a,) in judge.sql("SELECT address FROM known_addresses"
                                     " WHERE confirmed_at IS NOT NULL")}
    per_stranger: dict[str, int] = {}
    for recipients, raw in judge.sql("SELECT recipients, raw FROM outbox"):
        data = bytes(raw)
        head, _, _ = data.partition(b"\r\n\r\n")
        names = {line.split(b":", 1)[0].decode().lower() for line in head.split(b"\r\n")
                 if line and not line[:1].isspace()}
        assert names <= HEADERS, names
        msg: EmailMessage = email.message_from_bytes(data, policy=policy.default)
        text = body_of(msg)
        assert not CONTROL.search(text) and not CONTROL.search(str(msg["Subject"]))
        for secret in SECRETS:
            assert secret not in text, secret
        for address in recipients.split(","):
            assert re.fullmatch(r"[a-z0-9._+-]+@[a-z0-9.-]+\.[a-z]+", address), address
            if address not in heard:
                per_stranger[address] = per_stranger.get(address, 0) + 1
        if str(msg["To"]) == PROBE and "Press from" in str(msg["Subject"]):
            lines = text.replace("\r\n", "\n").splitlines()
            assert [ln for ln in lines if ln.startswith("::")] == lines[:2]
            assert sum(ln.startswith("Press from") for ln in lines) == 1
    assert per_stranger and max(per_stranger.values()) == 1, per_stranger

    # the game's own mail reached its members only; no picture and no huge press for anyone
    members = {GM, PROBE, ALLY}
    for recipients, raw in judge.sql("SELECT recipients, raw FROM outbox WHERE subject LIKE"
                                     " 'JUDGE:probe - %'"):
        if b"\r\nIn-Reply-To:" not in bytes(raw).partition(b"\r\n\r\n")[0]:
            assert recipients in members, recipients
    pictured = {r for (r,) in judge.sql("SELECT recipients FROM outbox"
                                        " WHERE attachment IS NOT NULL")}
    assert pictured <= members, pictured
    assert judge.sql("SELECT count(*) FROM press WHERE length(body) > 10000") == [(0,)]
    assert judge.sql("SELECT count(*) FROM seats WHERE kind = 'observer' AND status = 'active'"
                     " AND confirmed_at IS NOT NULL") == [(0,)]
