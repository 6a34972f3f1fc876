"""The README walk-through's run in its sandbox (tests/ops/test_deploy_walkthrough.py), and a
plugin of the suite that starts it ahead of the tests.

The walk-through takes half a minute and spends most of it waiting: Debian's configuration of
Postfix waits, command after command, until main.cf is two seconds old.  Run as a test, it held
one of the suite's two workers for all that time, and the machine idled.  So when the suite runs
on several workers and this test is among those it runs, the main process starts the walk-through
as soon as the session starts, in a thread of its own (``pytest_sessionstart`` below), and the
test, whichever worker runs it, reads the result from the run's folder (``run_or_wait``),
waiting if it is not done yet.  Run any other way (one process, ``-k``), the test runs it
itself.  Either way it is the same run: the same sandbox, script and checks.
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
import threading
import time
from email import policy
from email.message import EmailMessage
from pathlib import Path
from typing import Callable

import pytest

from conftest import JUDGE_EXE, on_postgresql
from readme_walkthrough import read_blocks, run_blocks, script

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "deploy" / "README.md"
SANDBOX = Path(__file__).resolve().parent / "sandbox"
SYSTEM_PYTHON = Path("/usr/bin/python3")
FETCH_SECONDS = 600  # at most, to fetch the wheels (once per version of pyproject.toml)
RUN_SECONDS = 300  # at most, for the walk-through in its sandbox
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
        capture_output=True, text=True, timeout=FETCH_SECONDS)
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


def skip_reason() -> str | None:
    """Why the walk-through cannot run on this host, or None."""
    if os.geteuid() != 0:
        return ("the README walk-through needs root (it creates a user and mounts overlays, "
                "inside namespaces of its own)")
    missing = missing_prerequisites()
    if missing:
        return (f"the README walk-through on {DATABASE} needs {', '.join(missing)} on this "
                "host (.ci/run installs Postfix)")
    return None


def run(base: Path, cache: pytest.Cache,
        started: Callable[[subprocess.Popen[bytes]], None] = lambda _: None) -> Walkthrough:
    """Prepare the sandbox in ``base`` (an empty folder) and run the walk-through in it;
    ``started`` is given the process.  Raises pytest's skip when a piece is missing."""
    (base / "out").mkdir()
    (base / "state").mkdir()
    sandbox = base / "sandbox"
    shutil.copytree(SANDBOX, sandbox)
    stand_ins(base / "bin", sandbox)
    pack_checkout(base / "judge.tar.gz")
    (base / "wheelhouse").symlink_to(wheelhouse(cache))
    (base / "walkthrough.sh").write_text(
        script(read_blocks(README.read_text()), DATABASE, NAMES, AFTER))
    begun = time.monotonic()
    with open(base / "walkthrough.log", "wb") as log:
        # --kill-child: whatever happens to the test, nothing started inside outlives it.
        process = subprocess.Popen(
            ["unshare", "--mount", "--net", "--pid", "--uts", "--fork", "--kill-child",
             "--mount-proc", "--propagation", "private",
             "bash", str(sandbox / "enter.sh"), str(base)],
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
        started(process)
        try:
            returncode = process.wait(RUN_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            returncode = process.wait()
    return Walkthrough(base, returncode, time.monotonic() - begun)


# --------------------------------------------------------------------------- started ahead

AHEAD = "JUDGE_TEST_WALKTHROUGH_AHEAD"  # the folder of the run started ahead (to the workers)
RESULT = "result.json"
TEST_FILE = Path(__file__).resolve().with_name("test_deploy_walkthrough.py")


def run_or_wait(config: pytest.Config) -> Walkthrough:
    """The walk-through's result: the run started ahead, once it is done, or a run of its own.
    The caller removes ``result.base`` when done with it."""
    ahead = os.environ.get(AHEAD)
    if ahead and Path(ahead).is_dir():
        base = Path(ahead)
        # the run started ahead may still be fetching the wheels (a fresh cache), then running
        deadline = time.monotonic() + FETCH_SECONDS + RUN_SECONDS + 60
        while not (base / RESULT).exists():
            if time.monotonic() > deadline:
                raise AssertionError(f"the walk-through started ahead did not end: {base}")
            time.sleep(0.2)
        result = json.loads((base / RESULT).read_text())
        if "skip" in result:
            pytest.skip(result["skip"])
        if "error" in result:
            raise AssertionError(f"the walk-through could not start: {result['error']}")
        return Walkthrough(base, result["returncode"], result["seconds"])
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    cache = getattr(config, "cache", None)
    if cache is None:
        pytest.skip("the README walk-through keeps its wheels in pytest's cache, which is "
                    "turned off (-p no:cacheprovider)")
    base = Path(tempfile.mkdtemp(prefix="judge-walkthrough-"))
    try:
        return run(base, cache)
    except BaseException:
        shutil.rmtree(base, ignore_errors=True)
        raise


class _Ahead:
    """The run started by the suite's main process, in a thread."""

    def __init__(self, cache: pytest.Cache) -> None:
        self.base = Path(tempfile.mkdtemp(prefix="judge-walkthrough-"))
        self.process: subprocess.Popen[bytes] | None = None
        self.thread = threading.Thread(target=self._run, args=(cache,), daemon=True)
        self.thread.start()

    def _started(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process

    def _run(self, cache: pytest.Cache) -> None:
        try:
            done = run(self.base, cache, self._started)
            result: dict[str, object] = {"returncode": done.returncode, "seconds": done.seconds}
        except pytest.skip.Exception as skipped:
            result = {"skip": str(skipped.msg)}
        except Exception as error:  # the test reports it
            result = {"error": repr(error)}
        partial = self.base / (RESULT + ".part")
        partial.write_text(json.dumps(result))
        partial.rename(self.base / RESULT)

    def end(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
        self.thread.join(30)
        shutil.rmtree(self.base, ignore_errors=True)


def _runs_the_walkthrough(config: pytest.Config) -> bool:
    """Whether this session will (very likely) run the walk-through test on its workers."""
    if not getattr(config.option, "numprocesses", None) or hasattr(config, "workerinput"):
        return False
    if config.option.keyword or config.option.markexpr or config.option.collectonly:
        return False
    here = config.invocation_params.dir
    excluded = [*(config.getoption("ignore") or []), *(config.getoption("deselect") or [])]
    for path in excluded:
        target = (here / str(path).split("::")[0]).resolve()
        if target == TEST_FILE or target in TEST_FILE.parents:
            return False
    for arg in config.args:
        target = (here / arg.split("::")[0]).resolve()
        if (target == TEST_FILE and "::" not in arg) or target in TEST_FILE.parents:
            return True
    return False


@pytest.hookimpl(tryfirst=True)  # before xdist starts the workers: they inherit AHEAD
def pytest_sessionstart(session: pytest.Session) -> None:
    config = session.config
    cache = getattr(config, "cache", None)
    if cache is None or not _runs_the_walkthrough(config) or skip_reason() is not None:
        return  # the test runs it itself, or skips saying why
    ahead = _Ahead(cache)
    config.stash[_AHEAD_KEY] = ahead
    os.environ[AHEAD] = str(ahead.base)


def pytest_sessionfinish(session: pytest.Session) -> None:
    ahead = session.config.stash.get(_AHEAD_KEY, None)
    if ahead is not None:
        ahead.end()


_AHEAD_KEY = pytest.StashKey[_Ahead]()
