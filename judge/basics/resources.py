"""Where the top-level ``templates/`` and ``migrations/`` folders are at run time.

In a source checkout they sit beside the ``judge`` package; an installed wheel carries them
as the data packages ``judge._templates`` and ``judge._migrations`` (see pyproject.toml).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent  # judge/basics/ → judge/
_CHECKOUT = _PACKAGE.parent


def _locate(top_level: str, packaged: str) -> Path:
    """The installed data package first; a source checkout's folder only when the package's
    parent really is this project's checkout (it has our pyproject.toml).  Never a folder
    that merely sits beside the package: in site-packages any other project's top-level
    ``templates/`` would be found there."""
    # A wheel puts the data package inside the judge package.  (importlib.resources is not
    # used: these folders have no __init__.py, so it answers with a namespace MultiplexedPath
    # whose str() is its repr, not a path.)
    installed = _PACKAGE / packaged
    if installed.is_dir():
        return installed
    marker = _CHECKOUT / "pyproject.toml"
    candidate = _CHECKOUT / top_level
    if candidate.is_dir() and marker.is_file() and 'name = "judge"' in marker.read_text("utf-8"):
        return candidate
    raise RuntimeError(f"cannot find the judge's {top_level}/ folder (not installed as "
                       f"judge.{packaged}, and {_CHECKOUT} is not the judge's checkout)")


@cache
def templates_dir() -> Path:
    return _locate("templates", "_templates")


@cache
def migrations_dir() -> Path:
    return _locate("migrations", "_migrations")
