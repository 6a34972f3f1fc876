"""Rule 8: powers at war may not send each other private press; broadcasts are always fine."""

from __future__ import annotations

from typing import Iterable

from judge.core.formal.state import FormalState


def may_send_private_press(state: FormalState, sender: str, recipient: str) -> bool:
    """Whether ``sender`` may send private press to ``recipient`` (not while at war)."""
    return not state.at_war(sender, recipient)


def press_refusals(state: FormalState, sender: str, recipients: Iterable[str]) -> tuple[str, ...]:
    """The recipients of a private press that ``sender`` may not write to (its enemies)."""
    return tuple(r for r in recipients if not may_send_private_press(state, sender, r))
