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
pytest's cache); otherwise it is skipped with the reason.  The cheaper tests below check that
what the README names exists.
"""

from __future__ import annotations

import email
import hashlib
import json
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
import time
from email import policy
from email.message import EmailMessage
from pathlib import Path
from typing import Iterator

import pytest

from conftest import JUDGE_EXE, on_postgresql
from readme_walkthrough import DATABASES, ReadmeError, read_blocks, run_blocks, script

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "deploy" / "README.md"
SANDBOX = Path(__file__).resolve().parent / "sandbox"
SYSTEM_PYTHON = Path("/usr/bin/python3")
# The admin's own names, in place of the README's examples: a step that ignores them fails.
NAMES = {"JUDGE_DOMAIN": "diplomacy.test", "JUDGE_NAME": "TESTJUDGE"}
JUDGE = f"judge@{NAMES['JUDGE_DOMAIN']}"
DATABASE = "postgresql" if on_postgresql() else "sqlite"
# Stand-ins in the sandbox: command name -> (script, its first argument)
STAND_INS = {
    "apt-get": ("fake_apt.py", "apt-get"),
    "systemctl": ("fake_systemd.py", "systemctl"),
    "journalctl": ("fake_systemd.py", "journalctl"),
    "await-reply": ("checkpoints.py", "await-reply"),
    "mail-from-outside": ("checkpoints.py", "mail-from-outside"),
}
HOST_TOOLS = ("unshare", "mount", "ip", "setpriv", "runuser", "useradd", "dpkg-query",
              "debconf-set-selections", "dpkg-reconfigure", "postfix", "postconf", "postmap",
              "postqueue", "postcat", "sendmail", "sqlite3", "systemd-analyze", "git")
# After the walk-through: another site mails the judge, then the evidence is collected and the
# judge stopped the README's way.
AFTER = """\
mail-from-outside
await-reply 2
judge-as-service inbound list --status all > "$WALKTHROUGH_OUT/inbound.txt"
judge-as-service check-config > "$WALKTHROUGH_OUT/check-config.txt"
systemctl stop judge
find /etc/judge /var/lib/judge -printf '%p %u:%g %m\\n' > "$WALKTHROUGH_OUT/ownership.txt"
cp "$WALKTHROUGH_STATE/judge.json" "$WALKTHROUGH_OUT/final-state.json"
cp "$WALKTHROUGH_STATE/judge.journal" "$WALKTHROUGH_OUT/journal.txt"
"""


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


def missing_prerequisites() -> list[str]:
    missing = [tool for tool in HOST_TOOLS
               if shutil.which(tool, path="/usr/sbin:/usr/bin:/sbin:/bin") is None]
    if not SYSTEM_PYTHON.exists():
        missing.append(str(SYSTEM_PYTHON))
    if "overlay" not in Path("/proc/filesystems").read_text():
        missing.append("overlayfs")
    if shutil.which("dpkg-query"):
        for block in run_blocks(README, DATABASE):
            for line in re.findall(r"^apt-get install (.+)$", block.commands, re.M):
                for package in (w for w in line.split() if not w.startswith("-")):
                    status = subprocess.run(
                        ["dpkg-query", "-W", "-f", "${db:Status-Status}", package],
                        capture_output=True, text=True).stdout
                    if status != "installed":
                        missing.append(f"the package {package}")
    return missing


@pytest.fixture(scope="module")
def walkthrough_prerequisites() -> None:
    if os.geteuid() != 0:
        pytest.skip("the README walk-through needs root (it creates a user and mounts overlays, "
                    "inside namespaces of its own)")
    missing = missing_prerequisites()
    if missing:
        pytest.skip(f"the README walk-through on {DATABASE} needs {', '.join(missing)} on this "
                    "host (.ci/run installs Postfix)")


def checkout_files() -> list[str]:
    """The checkout's files as a clone would have them, with uncommitted edits."""
    listing = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                              "--exclude-standard"], cwd=ROOT, capture_output=True, check=False)
    if listing.returncode != 0:
        pytest.skip("the README walk-through packs the checkout with git, and this is not one")
    return [name for name in listing.stdout.decode().split("\0")
            if name and (ROOT / name).is_file()]


def pack_checkout(target: Path) -> None:
    """What the README's `git archive --prefix=judge/` makes, from the files under test."""
    with tarfile.open(target, "w:gz") as tar:
        for name in checkout_files():
            tar.add(ROOT / name, arcname=f"judge/{name}", recursive=False)


def wheelhouse(cache: pytest.Cache) -> Path:
    """The judge's dependencies as wheels for the sandbox's Python (the system one), fetched
    once per version of pyproject.toml: the sandbox has no network."""
    version = subprocess.run([str(SYSTEM_PYTHON), "-c", "import platform; "
                              "print(platform.python_version())"],
                             capture_output=True, text=True, check=True).stdout.strip()
    key = hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + version.encode()).hexdigest()
    folder = cache.mkdir("deploy-walkthrough-wheels")
    stamp = folder / "complete"
    if stamp.exists() and stamp.read_text() == key:
        return folder
    stamp.unlink(missing_ok=True)
    result = subprocess.run(
        [str(Path(JUDGE_EXE).with_name("pip")), "download", "--quiet", "--dest", str(folder),
         "--python-version", version, "--only-binary=:all:",
         f"{ROOT}[postgres]", "setuptools>=68", "wheel"],
        capture_output=True, text=True, timeout=600)
    if result.returncode != 0:
        pytest.skip(f"cannot fetch the judge's dependencies for the offline sandbox: "
                    f"{result.stderr.strip().splitlines()[-1:]}")
    stamp.write_text(key)
    return folder


def stand_ins(bin_dir: Path, sandbox: Path) -> None:
    bin_dir.mkdir()
    for command, (module, tool) in STAND_INS.items():
        wrapper = bin_dir / command
        wrapper.write_text(f'#!/bin/sh\nexec {SYSTEM_PYTHON} {sandbox / module} {tool} "$@"\n')
        wrapper.chmod(0o755)


def read_reply(path: Path) -> EmailMessage:
    """A mail as ``postcat -h -b`` prints it: the header and body records, one per line."""
    lines = path.read_bytes().decode(errors="replace").splitlines()
    kept = [line for line in lines if not line.startswith("*** ")]
    return email.message_from_string("\n".join(kept) + "\n", policy=policy.default)


def body_text(msg: EmailMessage) -> str:
    part = msg.get_body(("plain",))
    assert part is not None
    return part.get_content()


class Walkthrough:
    """One run of the README in the sandbox: its output, and what it left in ``out``."""

    def __init__(self, base: Path, returncode: int, seconds: float) -> None:
        self.base = base
        self.out = base / "out"
        self.returncode = returncode
        self.seconds = seconds
        self.log = (base / "walkthrough.log").read_text(errors="replace")

    def text(self, name: str) -> str:
        path = self.out / name
        return path.read_text(errors="replace") if path.exists() else ""

    def replies(self) -> dict[str, EmailMessage]:
        """Each mail the judge handed to Postfix, by its recipient."""
        folder = self.out / "replies"
        found = {}
        for path in sorted(folder.iterdir()) if folder.is_dir() else []:
            msg = read_reply(path)
            found[str(msg["To"].addresses[0].addr_spec)] = msg
        return found

    def explain(self) -> str:
        state = self.base / "state" / "judge.journal"
        journal = state.read_text(errors="replace") if state.exists() else ""
        return f"{self.log[-6000:]}\n--- judge's journal ---\n{journal[-4000:]}"


@pytest.fixture
def walkthrough(walkthrough_prerequisites: None,
                request: pytest.FixtureRequest) -> Iterator[Walkthrough]:
    base = Path(tempfile.mkdtemp(prefix="judge-walkthrough-"))
    try:
        (base / "out").mkdir()
        (base / "state").mkdir()
        sandbox = base / "sandbox"
        shutil.copytree(SANDBOX, sandbox)
        stand_ins(base / "bin", sandbox)
        pack_checkout(base / "judge.tar.gz")
        cache = getattr(request.config, "cache", None)
        if cache is None:
            pytest.skip("the README walk-through keeps its wheels in pytest's cache, which is "
                        "turned off (-p no:cacheprovider)")
        (base / "wheelhouse").symlink_to(wheelhouse(cache))
        (base / "walkthrough.sh").write_text(
            script(read_blocks(README.read_text()), DATABASE, NAMES, AFTER))
        started = time.monotonic()
        with open(base / "walkthrough.log", "wb") as log:
            # --kill-child: whatever happens to the test, nothing started inside outlives it.
            result = subprocess.run(
                ["unshare", "--mount", "--net", "--pid", "--uts", "--fork", "--kill-child",
                 "--mount-proc", "--propagation", "private",
                 "bash", str(sandbox / "enter.sh"), str(base)],
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, timeout=300)
        done = Walkthrough(base, result.returncode, time.monotonic() - started)
        steps = "\n".join(line for line in done.log.splitlines() if line.startswith("### "))
        print(f"README walk-through on {DATABASE}: exit {done.returncode} after "
              f"{done.seconds:.1f} s\n{steps}")
        yield done
    finally:
        shutil.rmtree(base, ignore_errors=True)


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
        assert owners["/var/lib/judge/judge.db"] == "judge:judge 640", owners


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
