"""deploy/README.md, followed literally, gives a working judge.

The walk-through test runs the README's own command blocks (tests/ops/readme_walkthrough.py),
in order, in one root shell, on a throwaway Debian host made of this one
(tests/ops/sandbox/enter.sh: copy-on-write /etc, /var, /run, /opt, /root and /usr/local, a
loopback network of its own), then mails the judge as another site would and reads its replies
in Postfix's queue.  What cannot be there is stood in for, and only that: systemd
(tests/ops/sandbox/fake_systemd.py runs the unit's ExecStart= as its User= with its sandboxing,
and waits for READY=1), the package archive (tests/ops/sandbox/fake_apt.py: the packages must be
installed on the test host; Postfix is configured as its Debian package does with the README's
answers, and PostgreSQL gets a fresh cluster of its own), the admin's scp (the checkout under
test is packed into /root/judge.tar.gz) and the Python package index (pip installs from wheels
fetched beforehand).  The README has a SQLite path and a PostgreSQL one: the walk-through takes
the PostgreSQL one on the suite's PostgreSQL pass (``JUDGE_TEST_DATABASE_URL`` set; the server
it names is not used), the SQLite one otherwise.

It needs root (it creates a user and mounts overlays, all inside namespaces that vanish with
it), the packages the README installs, and the network once to fetch the wheels (kept in
pytest's cache); otherwise it is skipped with the reason.  The sandbox and its run are in
tests/ops/walkthrough_sandbox.py, which on a suite of several workers starts the run ahead.
The cheaper tests below check that what the README names exists.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from email.message import EmailMessage
from typing import Iterator

import pytest

from conftest import JUDGE_EXE
from readme_walkthrough import DATABASES, ReadmeError, read_blocks, script
from walkthrough_sandbox import (DATABASE, JUDGE, NAMES, README, ROOT, STAND_INS, Walkthrough,
                                 run_or_wait)

# --------------------------------------------------------------------------- what the README names


def test_every_shell_block_of_the_readme_is_marked_run_or_skip() -> None:
    blocks = read_blocks(README.read_text())
    assert blocks and all(b.run or b.reason for b in blocks)
    assert any(b.then and b.then.startswith("await-reply ") for b in blocks)
    for block in blocks:
        if block.then:
            assert block.then.split()[0] in STAND_INS
    for database in DATABASES:
        assert any(b.database == database for b in blocks), database


def test_an_unmarked_block_or_a_missing_name_is_refused() -> None:
    with pytest.raises(ReadmeError, match="line 3: a ```sh block without a walkthrough marker"):
        read_blocks("# x\n\n```sh\necho hi\n```\n")
    with pytest.raises(ReadmeError, match="never closed"):
        read_blocks("<!-- walkthrough: run -->\n```sh\necho hi\n")
    marked = read_blocks("<!-- walkthrough: run -->\n```sh\nJUDGE_DOMAIN=a.example\n```\n")
    with pytest.raises(ReadmeError, match="JUDGE_DOMAIN, JUDGE_NAME once"):
        script(marked, "sqlite", NAMES, "")
    both = read_blocks("<!-- walkthrough: run -->\n```sh\nJUDGE_DOMAIN=a.example\n"
                       "JUDGE_NAME=A\n```\n<!-- walkthrough: run on postgresql -->\n```sh\n"
                       "createdb judge\n```\n")
    on_sqlite = script(both, "sqlite", NAMES, "")
    assert "JUDGE_DOMAIN=diplomacy.test\nJUDGE_NAME=TESTJUDGE\n" in on_sqlite
    assert "createdb" not in on_sqlite and "createdb" in script(both, "postgresql", NAMES, "")


def test_the_files_the_readme_copies_are_in_deploy() -> None:
    text = README.read_text()
    named = set(re.findall(r"/usr/local/src/judge/(deploy/[\w./-]+)", text))
    named |= {f"deploy/{name}" for name in re.findall(r"^\| `([\w./-]+)` \|", text, re.M)}
    assert "deploy/judge.service" in named and "deploy/postfix/main.cf" in named
    for path in named:
        assert (ROOT / path).is_file(), path


def judge_invocations(text: str) -> set[str]:
    """Each ``judge`` command the README shows, in its blocks or inline: the words after the
    helper or the program."""
    snippets = [span.replace("\n", " ") for span in re.findall(r"(?<!`)`([^`]+)`(?!`)", text)]
    snippets += [line for block in read_blocks(text) for line in block.commands.splitlines()]
    found = set()
    for snippet in snippets:
        for match in re.finditer(r"(?:judge-as-service|/opt/judge/bin/judge(?: --config \S+)?) "
                                 r"([a-z][^|;&#]*)", snippet):
            found.add(" ".join(match.group(1).split()))
    return found


def test_the_judge_commands_and_options_the_readme_names_exist() -> None:
    invocations = judge_invocations(README.read_text())
    assert {"db upgrade", "check-config", "outbox list --status failed"} <= invocations
    for invocation in invocations:
        words = invocation.split()
        path = []
        for word in words:
            if not re.fullmatch(r"[a-z][a-z-]*", word):
                break
            path.append(word)
        if "|" in path[-1]:
            continue
        result = subprocess.run([JUDGE_EXE, *path, "--help"], capture_output=True, text=True,
                                timeout=60)
        assert result.returncode == 0, f"judge {' '.join(path)}: {result.stderr}"
        for option in re.findall(r"--[a-z-]+", invocation):
            assert option in result.stdout, f"judge {' '.join(path)} has no {option}"


# --------------------------------------------------------------------------- the walk-through


def body_text(msg: EmailMessage) -> str:
    part = msg.get_body(("plain",))
    assert part is not None
    return part.get_content()


@pytest.fixture
def walkthrough(request: pytest.FixtureRequest) -> Iterator[Walkthrough]:
    done = run_or_wait(request.config)
    try:
        steps = "\n".join(line for line in done.log.splitlines() if line.startswith("### "))
        print(f"README walk-through on {DATABASE}: exit {done.returncode} after "
              f"{done.seconds:.1f} s\n{steps}")
        yield done
    finally:
        shutil.rmtree(done.base, ignore_errors=True)


def answers_mail(walkthrough: Walkthrough) -> None:
    replies = walkthrough.replies()
    assert set(replies) == {"you@example.org", "player@elsewhere.test"}, walkthrough.explain()

    # §5's "try it": the mail given to Postfix's sendmail reached the judge by LMTP, and its
    # reply went back to Postfix, from the address and name the admin set.
    first = replies["you@example.org"]
    assert "(Postfix)" in first["Received"]
    assert first["From"].addresses[0].addr_spec == JUDGE
    assert first["From"].addresses[0].display_name == NAMES["JUDGE_NAME"]
    assert first["Subject"] == "Re: test"
    assert "> VERSION" in body_text(first) and "> HELP" in body_text(first)

    # Mail from another site, after the upgrade and the restore: Postfix takes it for the
    # judge's address (plus a detail), refuses other addresses of its domain, and the judge
    # answers it.
    answers = json.loads(walkthrough.text("mail-from-outside.json"))
    assert answers["judge+probe"] == 250 and answers["data"] == 250
    assert 500 <= answers["nobody"] < 600
    second = replies["player@elsewhere.test"]
    assert second["Subject"] == "Re: from outside"
    assert second["In-Reply-To"] == "<probe-1@elsewhere.test>"


def runs_on_its_database_with_files_of_its_own(walkthrough: Walkthrough) -> None:
    check = walkthrough.text("check-config.txt")
    url = {"sqlite": "sqlite:////var/lib/judge/judge.db'",
           "postgresql": "postgresql+psycopg://judge@/judge?host="}[DATABASE]
    assert f"[database] url = '{url}" in check and "database OK" in check, check
    # both mails are done, the one before the backup and the one after the restore
    inbound = walkthrough.text("inbound.txt")
    assert inbound.count(" done ") == 2, inbound
    owners = dict(line.split(" ", 1) for line in walkthrough.text("ownership.txt").splitlines())
    assert owners["/etc/judge/judge.toml"] == "root:judge 640"
    assert owners["/var/lib/judge"] == "judge:judge 750"
    if DATABASE == "sqlite":
        # the judge's alone: §7 restores it so, and the judge keeps it so (judge.basics.private_files)
        assert owners["/var/lib/judge/judge.db"] == "judge:judge 600", owners


def logs_what_the_readme_says_and_stops_cleanly(walkthrough: Walkthrough) -> None:
    journal = walkthrough.text("journal.txt")
    # §8's typical lines, with the syslog priorities the journal files them under
    assert re.search(rf"^<6>judge\.intake: stored message <[^>]+> from <you@example\.org> "
                     rf"for {re.escape(JUDGE)}$", journal, re.M), journal
    assert re.search(r"^<6>judge\.pipeline: inbound \d+ done: message <[^>]+> from "
                     r"you@example\.org, game -: ", journal, re.M), journal
    assert re.search(r"^<6>judge\.sender: outbox \d+ sent to you@example\.org: message <[^>]+>, "
                     r"'Re: test' \(inbound \d+\)$", journal, re.M), journal
    # `systemctl stop judge` at the end: the judge said STOPPING and exited cleanly.
    final = json.loads(walkthrough.text("final-state.json"))
    assert final["active"] == "inactive", final


def test_following_the_readme_gives_a_judge_that_answers_mail_logs_and_stops_cleanly(
        walkthrough: Walkthrough) -> None:
    # One test, so that the walk-through (half a minute: two pip installs, Postfix's Debian
    # configuration) runs once: the suite's workers would each run a module fixture of their own.
    assert walkthrough.returncode == 0, walkthrough.explain()
    answers_mail(walkthrough)
    runs_on_its_database_with_files_of_its_own(walkthrough)
    logs_what_the_readme_says_and_stops_cleanly(walkthrough)
