"""A mail the judge writes to others than the sender (a broadcast, results, press): its
template, recipients and subject, rendered and queued once the commands of a mail have run."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Outgoing:
    """A mail other than the reply (a broadcast, results, press), rendered after execution."""

    template: str
    to: list[str]
    subject: str
    variables: dict[str, Any] = field(default_factory=dict)
    game: str | None = None
    # the played phase whose map picture the mail carries (results), if any
    map_phase: str | None = None
    # Counted against the per-mail limits on mail to others (not a failed SIGNON's warning
    # to the role's player: nothing may stop that one).
    limited: bool = True
    # The one mail that asks an address to confirm it wants the game's mail: it goes to an
    # address that has not confirmed (judge.service.access.confirmations), which nothing else does.
    asks_confirmation: bool = False
