"""The judge's files are its own: made owner-only, and made so again where they are not.

Its SQLite database keeps the raw text of mail for ``[retention] raw_mail_days``, passwords
and all; so does the intake spool beside it, and the Maildir holds the judge's replies.  Under
the usual umask (022) they were readable by every user of the host.

:func:`keep_new_files_private` sets the process's umask so that nothing the judge creates can
be read or written by anyone else: the database file and SQLite's own ``-wal``, ``-shm`` and
``-journal`` beside it (SQLite gives them the database's mode), the spool and its own, the
Maildir's folders and files.  The umask is inherited, so the worker process and the sender,
children of ``judge serve``, create theirs so too.  The judge writes no other file: it logs to
standard error, keeps no pid file, and draws map pictures in memory.

Files made before (by an earlier version, or by hand) are not left as they are:
:func:`make_private` takes the group's and others' access away when ``judge serve`` starts,
and says so in the log; ``judge check-config`` names them (:func:`too_open`).  Tightened
rather than only named: they are the judge's own files, nobody else needs to read them (a
backup runs as root or as the judge's user), and a warning alone would leave a site upgraded
from an earlier version open until someone reads its log.
"""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

from sqlalchemy.engine import make_url

from judge.basics.config import Config

log = logging.getLogger("judge.files")

# What the judge's files grant to nobody but their owner.
OTHERS = 0o077
# The files SQLite keeps beside a database file.
_SQLITE_SIDES = ("", "-wal", "-shm", "-journal")


def keep_new_files_private() -> None:
    """Make every file and folder this process (and its children) creates owner-only."""
    os.umask(os.umask(OTHERS) | OTHERS)


def judge_files(config: Config) -> list[Path]:
    """The files and folders the judge keeps, whether they exist yet or not: a SQLite
    database and its spool with the files SQLite keeps beside each, and the Maildir's
    folders."""
    paths: list[Path] = []
    url = make_url(config.database.url)
    database = url.database or ""
    if url.get_backend_name() == "sqlite" and database and database != ":memory:" \
            and not database.startswith("file:"):
        for base in (database, database + ".spool"):
            paths += [Path(base + side) for side in _SQLITE_SIDES]
    transport = config.outbound.transport
    if transport.startswith("maildir:"):
        maildir = Path(transport[len("maildir:"):]).expanduser()
        paths += [maildir, *(maildir / sub for sub in ("tmp", "new", "cur"))]
    return paths


def too_open(paths: list[Path]) -> list[tuple[Path, int]]:
    """The paths that exist and grant anything to others than their owner, with their
    modes."""
    found = []
    for path in paths:
        try:
            mode = stat.S_IMODE(path.stat().st_mode)
        except OSError:
            continue  # not there (yet): made owner-only when it is made
        if mode & OTHERS:
            found.append((path, mode))
    return found


def make_private(config: Config) -> None:
    """Take the group's and others' access to the judge's files away, saying so in the log
    for each (a Maildir's folders guard the mails in them)."""
    for path, mode in too_open(judge_files(config)):
        private = mode & ~OTHERS
        try:
            os.chmod(path, private)
        except OSError as exc:
            log.warning("%s is open to other users than its owner (mode %04o) and cannot be "
                        "made owner-only: %s", path, mode, exc.strerror or exc)
            continue
        log.warning("%s was open to other users than its owner (mode %04o); made it "
                    "owner-only (%04o)", path, mode, private)
