"""``judge serve`` for the tests, forked from a process that has already imported the judge.

A daemon test starts the real command: ``judge.cli.launch.main()``, the console script's entry
point, with the test's arguments, environment, working directory, umask and log file, in a
process of its own that the test mails over SMTP and signals like any other.  What it skips is
the interpreter's start and the imports (SQLAlchemy, the templates' machinery, the pipeline):
half a second of CPU of each of the suite's sixty daemon starts, a sixth of the whole suite's
CPU.

Each test process starts one *preloader* (this file run as a script) the first time a test asks
for a daemon.  It imports what ``judge serve`` imports, then waits for requests on its standard
input; for each it forks a child that becomes the daemon, and it reports each child's end (it
is their parent, so it reaps them).  It holds no thread, no database connection, no event loop
and no configuration, so a fork starts from what a fresh ``judge serve`` would have built.

Some tests still start the installed program with ``subprocess``: the README walk-through
(whose stand-in for systemd runs the unit's ``ExecStart``), the web view's import-order test,
the file-descriptor limit and same-pid restart tests, and one operations test.
``JUDGE_TEST_EXEC_DAEMONS=1`` makes every daemon a real process again.

One thing a fork cannot take from a request is a value a module read from the environment when
it was imported: JUDGE_PASSWORD_COST is the one (judge.service.access.passwords); a daemon asked for
with another value than the preloader's is started as a real process.  And like the in-process
kits, a forked daemon hashes passwords at 2**4 (the real floor is 2**10).
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO, Any, Mapping, Sequence

# read by a judge module when it is imported: a fork cannot change them
READ_AT_IMPORT = ("JUDGE_PASSWORD_COST",)


# --------------------------------------------------------------------------- the test's side

class ForkedDaemon:
    """A daemon started by the preloader; answers like a ``subprocess.Popen``."""

    def __init__(self, preloader: "Preloader", pid: int, args: Sequence[str]) -> None:
        self.preloader = preloader
        self.pid = pid
        self.args = ["judge", *args]
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            self.returncode = self.preloader.ended.get(self.pid)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        with self.preloader.changed:
            if not self.preloader.changed.wait_for(lambda: self.poll() is not None, timeout):
                raise subprocess.TimeoutExpired(self.args, timeout or 0)
        assert self.returncode is not None
        return self.returncode

    def send_signal(self, sig: int) -> None:
        # as with Popen, a daemon that ended is not signalled; the one window Popen does not
        # have (reaped by the preloader, its report not yet read) lasts microseconds, and the
        # pid is not reused as soon as that
        if self.poll() is None:
            os.kill(self.pid, sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


class Preloader:
    """The test process's preloader: starts daemons, hears of their ends."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, __file__], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, env=dict(os.environ))
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.requests: IO[bytes] = self.proc.stdin
        self.ended: dict[int, int] = {}
        self.changed = threading.Condition()
        self.started: list[int] = []
        self.lock = threading.Lock()  # one request at a time
        ready = self.proc.stdout.readline()
        if json.loads(ready or b"null") != {"ready": True}:
            raise RuntimeError(f"the daemon preloader did not start: {ready!r}")
        threading.Thread(target=self._hear, args=(self.proc.stdout,), daemon=True,
                         name="preloader-reports").start()

    def _hear(self, reports: IO[bytes]) -> None:
        for line in reports:
            report = json.loads(line)
            with self.changed:
                if "started" in report:
                    self.started.append(report["started"])
                else:
                    self.ended[report["pid"]] = report["code"]
                self.changed.notify_all()
        # The preloader is gone.  It kills its children when its input closes; had it
        # crashed, they would run on, and this process could not wait for them: either way
        # they count as killed.
        with self.changed:
            self.ended.update({pid: -signal.SIGKILL for pid in self.started
                               if pid not in self.ended})
            self.changed.notify_all()

    def start(self, args: Sequence[str], env: Mapping[str, str], cwd: Path, stdout: Path,
              stderr: Path) -> ForkedDaemon:
        # the umask too, as a process this one started would inherit it
        umask = os.umask(0o077)
        os.umask(umask)
        request = {"args": list(args), "env": dict(env), "cwd": str(cwd),
                   "stdout": str(stdout), "stderr": str(stderr), "umask": umask}
        with self.lock, self.changed:
            count = len(self.started)
            self.requests.write(json.dumps(request).encode() + b"\n")
            self.requests.flush()
            if not self.changed.wait_for(lambda: len(self.started) > count, 20):
                raise RuntimeError("the daemon preloader did not answer")
            return ForkedDaemon(self, self.started[count], args)


_preloader: Preloader | None = None
_preloader_lock = threading.Lock()


def start_judge(args: Sequence[str], env: Mapping[str, str], cwd: Path, stdout: Path,
                stderr: Path) -> ForkedDaemon | subprocess.Popen[bytes]:
    """``judge <args>`` started with its output appended to the files ``stdout`` and ``stderr``
    (they may be the same): forked from the preloader, or a real process when asked for
    (JUDGE_TEST_EXEC_DAEMONS=1) or when the environment differs from the preloader's in what
    a fork cannot change."""
    global _preloader
    exe = str(Path(sys.executable).with_name("judge"))
    if os.environ.get("JUDGE_TEST_EXEC_DAEMONS") == "1" or any(
            env.get(name) != os.environ.get(name) for name in READ_AT_IMPORT):
        with open(stdout, "ab") as out, open(stderr, "ab") as err:
            return subprocess.Popen([exe, *args], env=dict(env), cwd=cwd, stdout=out,
                                    stderr=err)
    with _preloader_lock:
        if _preloader is None or _preloader.proc.poll() is not None:
            _preloader = Preloader()
    return _preloader.start(args, env, cwd, stdout, stderr)


def start_serve(args: Sequence[str], env: Mapping[str, str], cwd: Path,
                log: Path) -> ForkedDaemon | subprocess.Popen[bytes]:
    """``judge <args>`` (``serve``) as a test's daemon, logging to ``log``."""
    return start_judge(args, env, cwd, log, log)


def run_judge(args: Sequence[str], env: Mapping[str, str], cwd: Path,
              timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """``judge <args>`` run to its end; the result reads like ``subprocess.run(...,
    capture_output=True, text=True)``'s (the output goes through two files in a temporary
    directory: a forked child cannot be handed a pipe of this process)."""
    with tempfile.TemporaryDirectory(prefix="judge-run-") as place:
        out, err = Path(place) / "stdout", Path(place) / "stderr"
        proc = start_judge(args, env, cwd, out, err)
        try:
            code = proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise
        return subprocess.CompletedProcess(["judge", *args], code,
                                           out.read_text(errors="replace"),
                                           err.read_text(errors="replace"))


# --------------------------------------------------------------------------- the preloader

def _preload() -> None:
    """Import what ``judge serve`` imports before it starts to listen."""
    import judge.daemon.worker_process  # noqa: F401
    import judge.cli.main  # noqa: F401
    import judge.daemon.intake_process  # noqa: F401
    import judge.cli.launch  # noqa: F401
    import judge.mail.sending.sender  # noqa: F401
    import judge.mail.sending.transports  # noqa: F401
    import judge.pipeline.stages  # noqa: F401
    import judge.store.leases  # noqa: F401
    import judge.web.app  # noqa: F401  (the web view, on by default)
    # Hashes as cheap as the in-process kits' (tests/conftest.py): a hash records its own
    # cost, so nothing a test proves depends on it, and at the judge's floor of 2**10 the
    # daemons' sign-ons were a thirtieth of the suite's CPU.
    import judge.service.access.passwords
    judge.service.access.passwords._N = 2 ** 4
    try:  # the PostgreSQL driver, which SQLAlchemy imports when a daemon's URL names one
        import psycopg  # noqa: F401
    except ImportError:
        pass


def _become_daemon(request: dict[str, Any], keep_out: list[int]) -> None:
    """In the forked child: take the request's place, arguments and environment, and run
    the console script's entry point; never returns."""
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        for fd in keep_out:  # the preloader's own pipes (its requests and reports are
            os.close(fd)     # standard input and output, replaced below)
        os.chdir(request["cwd"])
        os.umask(request["umask"])
        os.environ.clear()
        os.environ.update(request["env"])
        time.tzset()
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        for fd, name in ((1, "stdout"), (2, "stderr")):
            out = os.open(request[name], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            os.dup2(out, fd)
            os.close(out)
        sys.argv = ["judge", *request["args"]]
        from judge.cli.launch import main
        main()  # ends the process
    finally:
        os._exit(70)  # only if the above failed before the judge took over


def _serve_requests() -> None:
    _preload()
    requests, reports = sys.stdin.buffer.raw.fileno(), sys.stdout.buffer
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)  # wakes the loop through the pipe
    children: set[int] = set()

    def report(message: dict[str, Any]) -> None:
        reports.write(json.dumps(message).encode() + b"\n")
        reports.flush()

    report({"ready": True})
    pending = b""
    while True:
        readable, _, _ = select.select([requests, wake_r], [], [])
        if wake_r in readable:
            os.read(wake_r, 4096)
        while children:
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                break
            children.discard(pid)
            report({"pid": pid, "code": os.waitstatus_to_exitcode(status)})
        if requests in readable:
            chunk = os.read(requests, 65536)
            if not chunk:  # the test process is gone: so are its daemons
                for pid in children:
                    os.kill(pid, signal.SIGKILL)
                return
            pending += chunk
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                sys.stdout.flush()
                pid = os.fork()
                if pid == 0:
                    _become_daemon(json.loads(line), [wake_r, wake_w])
                children.add(pid)
                report({"started": pid})


if __name__ == "__main__":
    _serve_requests()
