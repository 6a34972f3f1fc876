"""The tests' forked judge (tests/forked_daemons.py) answers as a real process would: exit
status, output, signals, and a real program where a fork could not honour the environment."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

from conftest import PASSWORD_COST, RunningJudge
from forked_daemons import ForkedDaemon, run_judge, start_judge
from judge import __version__


def env(**extra: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")}
    return {**base, "JUDGE_PASSWORD_COST": PASSWORD_COST, **extra}


def test_a_forked_command_gives_its_status_and_output(tmp_path: Path) -> None:
    done = run_judge(["--version"], env(), tmp_path)
    assert done.returncode == 0 and __version__ in done.stdout and done.stderr == ""
    wrong = run_judge(["no-such-command"], env(), tmp_path)
    assert wrong.returncode == 2 and "No such command" in wrong.stderr and wrong.stdout == ""


def test_a_killed_daemon_reads_as_with_popen(judge: RunningJudge) -> None:
    assert isinstance(judge.proc, ForkedDaemon) or os.environ.get("JUDGE_TEST_EXEC_DAEMONS")
    assert judge.proc is not None and judge.proc.poll() is None
    assert judge.stop(signal.SIGKILL) == -signal.SIGKILL
    judge.proc.send_signal(signal.SIGTERM)  # ended: not signalled, no error


def test_another_password_cost_is_started_as_a_real_program(tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = start_judge(["--version"], env(JUDGE_PASSWORD_COST="12"), tmp_path, out, out)
    assert isinstance(proc, subprocess.Popen)
    assert proc.wait(30) == 0 and __version__ in out.read_text()
