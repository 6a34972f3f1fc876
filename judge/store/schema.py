"""Schema management: Alembic upgrades, and the check ``judge serve`` makes before it starts."""

from __future__ import annotations

from alembic import command
from alembic.config import Config as AlembicConfig
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, inspect

from judge.resources import migrations_dir


class SchemaOutOfDate(Exception):
    """The database exists but is not at the code's migration head."""


def alembic_config(engine: Engine) -> AlembicConfig:
    cfg = AlembicConfig()
    cfg.set_main_option("script_location", str(migrations_dir()))
    # Alembic's options are ConfigParser values, where "%" starts an interpolation: a URL's
    # escapes (a socket directory, a password) must be doubled to come back as they were.
    url = engine.url.render_as_string(hide_password=False)
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def head_revision(engine: Engine) -> str | None:
    return ScriptDirectory.from_config(alembic_config(engine)).get_current_head()


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def upgrade(engine: Engine, target: str = "head") -> None:
    cfg = alembic_config(engine)
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, target)


def downgrade(engine: Engine, target: str) -> None:
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
    current, head = current_revision(engine), head_revision(engine)
    if current != head:
        raise SchemaOutOfDate(
            f"the database schema is at revision {current or 'none'}, the code needs {head}: "
            "run 'judge db upgrade' first")
    return "current"
