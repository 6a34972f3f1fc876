"""Alembic environment: runs the judge's migrations on the connection the judge hands over.

``judge.store.schema`` passes an open connection in ``config.attributes["connection"]``; the
``alembic`` command line (for developers) gets the URL from ``sqlalchemy.url`` instead.
"""

from alembic import context
from sqlalchemy import create_engine

from judge.store.models import Base

config = context.config
target_metadata = Base.metadata


def _run(connection) -> None:
    context.configure(connection=connection, target_metadata=target_metadata,
                      render_as_batch=connection.dialect.name == "sqlite",
                      compare_type=True)
    with context.begin_transaction():
        context.run_migrations()


connection = config.attributes.get("connection")
if connection is not None:
    _run(connection)
else:
    engine = create_engine(config.get_main_option("sqlalchemy.url"))
    with engine.connect() as conn:
        _run(conn)
