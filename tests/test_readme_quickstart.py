"""The README's quickstart mails, sent as the README sends them, are answered in their thread:
each carries a Message-ID, and the reply's In-Reply-To names it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Callable

from conftest import JUDGE_EXE, RunningJudge, body_of, free_port, judge_env, read_maildir

README = Path(__file__).resolve().parents[1] / "README.md"


def _quickstart() -> str:
    return README.read_text(encoding="utf-8").split("## Quickstart")[1].split("\n## ")[0]


def test_the_python_sample_mail_is_answered_in_its_thread(
        judge_factory: Callable[..., RunningJudge]) -> None:
    judge = judge_factory(JUDGE_JUDGE_ADDRESS="judge@localhost")  # the README's address
    (script,) = re.findall(r"\.venv/bin/python - <<'PY'\n(.*?)\nPY\n", _quickstart(), re.S)
    assert 'msg["Message-ID"]' in script
    script = script.replace('("127.0.0.1", 2525)', f'("127.0.0.1", {judge.port})')
    script += "\nprint(msg['Message-ID'])\n"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    sent = done.stdout.strip()
    (reply,) = judge.wait_replies(1)
    assert reply["In-Reply-To"] == sent
    assert sent in str(reply["References"])
    assert "VERSION" in body_of(reply)


def test_the_inject_sample_mail_is_answered_in_its_thread(tmp_path: Path) -> None:
    (line,) = [ln for ln in _quickstart().splitlines() if ln.startswith("printf 'From:")]
    assert "Message-ID: <" in line
    env = judge_env(tmp_path, free_port(), JUDGE_JUDGE_ADDRESS="judge@localhost")
    command = line.replace(".venv/bin/judge", JUDGE_EXE)
    for _ in range(2):  # run twice, as a reader trying it again would: two mails, two ids
        done = subprocess.run(["bash", "-c", command], env=env, cwd=tmp_path,
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert "stored 1 (duplicates skipped: 0)" in done.stdout, done.stdout
    replies = read_maildir(tmp_path / "mail")
    assert len(replies) == 2
    ids = [str(r["In-Reply-To"]) for r in replies]
    assert all(re.fullmatch(r"<hi\.[0-9.]+@example\.org>", i) for i in ids), ids
    assert ids[0] != ids[1]
