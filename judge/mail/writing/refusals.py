"""The words of a refusal: a :class:`~judge.service.errors.GameError` carries a code and facts,
and ``templates/refusals.txt`` holds one macro per code; :func:`refusal_text` calls it.

Every reply, CLI message or mail that tells a person why a request was refused goes through
here, so the service never words one (docs/architecture.md).
"""

from __future__ import annotations

from typing import Any

from judge.mail.writing.compose import make_environment
from judge.service.errors import GameError

TEMPLATE = "refusals.txt"


def refusals() -> Any:
    """The template's module: one macro per refusal code (Jinja caches it with the template)."""
    return make_environment().get_template(TEMPLATE).module


def refusal_text(error: GameError) -> str:
    """What a person reads of ``error``: its code's macro rendered with its facts."""
    return str(getattr(refusals(), error.code)(**error.facts))
