"""Press as mail: the readers' copy and the master's copy of a :class:`PressSent`, and the
words that name a press's sender and recipients (also used by the reply and by HISTORY).

Subjects follow the other game mail: ``JUDGE:war1901 - S1901M Press from France``,
``… Broadcast from someone`` (grey), ``… Grey press from France`` (the master's copy).
"""

from __future__ import annotations

from typing import Iterable

from judge.mail.writing.mail_to_others import Outgoing
from judge.core.press import MASTER, OBSERVER
from judge.service.events import PressSent


def sender_label(sender: str | None) -> str:
    """``France``, ``the master``, ``an observer``; ``someone`` when hidden (None)."""
    if sender is None:
        return "someone"
    if sender == MASTER:
        return "the master"
    if sender == OBSERVER:
        return "an observer"
    return sender.capitalize()


def recipients_label(powers: Iterable[str], to_master: bool, broadcast: bool,
                     game: str) -> str:
    """``England``, ``England, Germany and the master``, ``everyone in war1901``."""
    if broadcast:
        return f"everyone in {game}"
    names = [p.capitalize() for p in powers] + (["the master"] if to_master else [])
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def kind_label(broadcast: bool, grey: bool, revealed: bool) -> str:
    """``Press`` or ``Broadcast``; ``Grey press`` where a grey sender is named anyway."""
    kind = "Broadcast" if broadcast else "Press"
    return f"Grey {kind.lower()}" if grey and revealed else kind


def press_outgoing(e: PressSent, judge_name: str) -> list[Outgoing]:
    """One mail for the readers (sender hidden if grey) and one for the master."""
    out: list[Outgoing] = []
    for to, master_copy in ((e.to, False), (e.master_to, True)):
        if not to:
            continue
        shown = master_copy or not e.grey
        sender = sender_label(e.sender if shown else None)
        kind = kind_label(e.broadcast, e.grey, master_copy)
        variables = dict(event=e, kind=kind, sender=sender, master_copy=master_copy,
                         recipients=recipients_label(e.powers, e.to_master, e.broadcast,
                                                     e.game))
        out.append(Outgoing("game/press.txt", list(to),
                            f"{judge_name}:{e.game} - {e.phase} {kind} from {sender}",
                            variables, e.game))
    return out
