"""The judge's files are its user's alone (judge.basics.private_files): started with the usual umask
(022), a running ``judge serve`` creates its database and the files SQLite keeps beside it,
its intake spool and its Maildir, folders and mail, owner-only; files a site already had open
to others are made owner-only when it starts, as its log says, and ``judge check-config`` names
them until then."""

from __future__ import annotations

import os
import stat
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

from conftest import RunningJudge, make_mail, on_postgresql, run_cli


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@contextmanager
def umask(mask: int) -> Iterator[None]:
    """This process's umask for a while (a daemon started meanwhile starts with it)."""
    before = os.umask(mask)
    try:
        yield
    finally:
        os.umask(before)


def mailed(judge: RunningJudge, name: str) -> None:
    """A mail answered: the Maildir exists, with a reply in it."""
    judge.send(make_mail("VERSION\n", msgid=f"<{name}@example.org>"))
    judge.reply_to(f"<{name}@example.org>")


def test_a_judge_started_with_umask_022_makes_its_files_owner_only(
        judge_factory: Callable[..., RunningJudge], tmp_path: Path) -> None:
    made = tmp_path / "made"  # where the judge makes its database and spool, from nothing
    made.mkdir()
    overrides = {} if on_postgresql() else {"JUDGE_DATABASE_URL": f"sqlite:///{made / 'judge.db'}"}
    with umask(0o022):
        judge = judge_factory(**overrides)
    mailed(judge, "made")
    files = [*made.iterdir(), judge.maildir, *judge.maildir.rglob("*")]
    names = {path.name for path in files}
    if not on_postgresql():
        assert {"judge.db", "judge.db-wal", "judge.db-shm", "judge.db.spool"} <= names, names
    assert {"tmp", "new", "cur"} <= names and list((judge.maildir / "new").iterdir())
    for path in files:
        assert mode(path) & 0o077 == 0, f"{path}: {mode(path):04o}"
    assert mode(judge.maildir) == 0o700 and mode(next((judge.maildir / "new").iterdir())) == 0o600


def test_files_open_to_others_are_named_then_made_owner_only(
        judge_factory: Callable[..., RunningJudge], tmp_path: Path,
        migrated_db_url: str) -> None:
    maildir = tmp_path / "mail"
    with umask(0o022):  # as an earlier judge left them, or an operator's copy
        for sub in ("tmp", "new", "cur"):
            (maildir / sub).mkdir(parents=True)
        (maildir / "new" / "old-reply").write_text("Subject: an older reply\n\nHello.\n")
    database = tmp_path / "judge.db"
    open_files = [maildir, maildir / "new"]
    if not on_postgresql():
        database.chmod(0o644)
        open_files.append(database)
    env = {**os.environ, "JUDGE_DATABASE_URL": migrated_db_url,
           "JUDGE_OUTBOUND_TRANSPORT": f"maildir:{maildir}"}
    checked = run_cli(["check-config"], env=env)
    assert checked.returncode == 0, checked.stderr
    for path in open_files:
        assert f"warning: {path} is open to other users than its owner" in checked.stdout, \
            checked.stdout
    with umask(0o022):
        judge = judge_factory()
    mailed(judge, "tightened")
    for path in open_files:
        assert f"{path} was open to other users than its owner" in judge.log(), judge.log()
    assert [mode(path) for path in open_files] == \
        [0o700, 0o700] + ([] if on_postgresql() else [0o600])
    checked = run_cli(["check-config"], env=env)
    assert "warning" not in checked.stdout, checked.stdout
