"""Who a mail has signed on as.

An :class:`Identity` is set by SIGNON (or CREATE, for the master) and kept between the
transactions of a long mail as plain data; the executor asks it for the game's state when
checking a command.  What happens to the lines that are not commands is in
judge.commands.order_lines.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from judge.commands.registry import Role
from judge.store.models import Game


@dataclass
class Identity:
    role: Role
    game_id: int
    game_name: str
    seat_id: int
    session: Session
    power: str | None = None  # the power ordered for (a player's, or the master's BECOME)
    power_seat_id: int | None = None

    def saved(self) -> dict[str, Any]:
        return dict(role=self.role.value, game_id=self.game_id, game_name=self.game_name,
                    seat_id=self.seat_id, power=self.power, power_seat_id=self.power_seat_id)

    @classmethod
    def restored(cls, state: dict[str, Any], session: Session) -> "Identity":
        return cls(Role(state["role"]), state["game_id"], state["game_name"], state["seat_id"],
                   session, state["power"], state["power_seat_id"])

    @property
    def game_state(self) -> str:
        # read each time: a command earlier in the same mail may have changed it (START)
        game = self.session.get(Game, self.game_id)
        return game.state if game else "gone"

    def describe(self) -> str:
        if self.role & Role.MASTER:
            return f"the master of {self.game_name}"
        if self.role & Role.OBSERVER:
            return f"an observer of {self.game_name}"
        return f"{(self.power or 'a player').capitalize()} in {self.game_name}"
