"""Schema management: Alembic upgrades, and the check ``judge serve`` makes before it starts.

The check runs at every start of the daemon and of most commands, so it does without Alembic
(importing it and loading every migration script cost a fifth of ``judge serve``'s start): the
code's head is the highest revision among the migration files, which are numbered (``0013_web.py``
holds revision ``"0013"``; tests/store/test_schema.py checks this agrees with Alembic's own
answer), and the database's is the row of ``alembic_version``.  Upgrades and downgrades load
Alembic.
"""

from __future__ import annotations

import re
from functools import cache
from typing import TYPE_CHECKING

from sqlalchemy import Engine, inspect, text

from judge.basics.resources import migrations_dir

if TYPE_CHECKING:
    from alembic.config import Config as AlembicConfig

# a migration file's name: its revision, an underscore, what it does
_NUMBERED = re.compile(r"(\d{4})_\w+\.py")


class SchemaOutOfDate(Exception):
    """The database exists but is not at the code's migration head."""


def alembic_config(engine: Engine) -> AlembicConfig:
    from alembic.config import Config as AlembicConfig

    cfg = AlembicConfig()
    cfg.set_main_option("script_location", str(migrations_dir()))
    # Alembic's options are ConfigParser values, where "%" starts an interpolation: a URL's
    # escapes (a socket directory, a password) must be doubled to come back as they were.
    url = engine.url.render_as_string(hide_password=False)
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


@cache
def head_revision() -> str | None:
    """The revision the code needs: the highest-numbered migration file."""
    numbers = [m.group(1) for p in (migrations_dir() / "versions").iterdir()
               if (m := _NUMBERED.fullmatch(p.name))]
    return max(numbers, default=None)


def alembic_head(engine: Engine) -> str | None:
    """The head as Alembic works it out from the scripts' revision links (slow: it loads them)."""
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config(engine)).get_current_head()


def current_revision(engine: Engine) -> str | None:
    """The revision the database is at (None before the first migration)."""
    with engine.connect() as conn:
        if not inspect(conn).has_table("alembic_version"):
            return None
        return conn.execute(text("SELECT version_num FROM alembic_version")).scalar()


def upgrade(engine: Engine, target: str = "head") -> None:
    from alembic import command

    cfg = alembic_config(engine)
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, target)


def downgrade(engine: Engine, target: str) -> None:
    from alembic import command

    cfg = alembic_config(engine)
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, target)


def is_empty(engine: Engine) -> bool:
    return not inspect(engine).get_table_names()


def ensure_schema(engine: Engine) -> str:
    """Create the schema on an empty database; refuse an out-of-date one. Returns what was done."""
    if is_empty(engine):
        upgrade(engine)
        return "created"
    current, head = current_revision(engine), head_revision()
    if current != head:
        raise SchemaOutOfDate(
            f"the database schema is at revision {current or 'none'}, the code needs {head}: "
            "run 'judge db upgrade' first")
    return "current"
