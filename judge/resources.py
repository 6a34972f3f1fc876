"""Where the top-level ``templates/`` and ``migrations/`` folders are at run time.

In a source checkout they sit beside the ``judge`` package; an installed wheel carries them
as the data packages ``judge._templates`` and ``judge._migrations`` (see pyproject.toml).
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path

_CHECKOUT = Path(__file__).resolve().parent.parent


def _locate(top_level: str, packaged: str) -> Path:
    candidate = _CHECKOUT / top_level
    if candidate.is_dir():
        return candidate
    installed = Path(str(resources.files("judge") / packaged))
    if installed.is_dir():
        return installed
    raise RuntimeError(f"cannot find the judge's {top_level}/ folder (looked in {candidate} and {installed})")


@cache
def templates_dir() -> Path:
    return _locate("templates", "_templates")


@cache
def migrations_dir() -> Path:
    return _locate("migrations", "_migrations")
