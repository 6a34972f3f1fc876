"""The Formal Diplomacy state kept beside the board: wars, spheres, victory points, game length.

A :class:`FormalState` is immutable; :func:`judge.core.formal.adjudicate_formal` returns the
next one.  ``to_dict``/``from_dict`` give a JSON-friendly form for the store.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Iterable, Mapping

from judge.core.errors import InputError
from judge.core.maps import Map
from judge.core.phases import Phase

DEFAULT_TURNS = 10


def war_pair(a: str, b: str) -> frozenset[str]:
    """The unordered pair of two powers at war."""
    return frozenset((a, b))


@dataclass(frozen=True)
class PendingClaim:
    """A claim that won its contest in a movement phase and waits for the retreats.

    Rule 9 settles new spheres after the retreats: the claim still fails if a foreign unit
    retreats into the province.
    """

    power: str
    province: str
    unit: str  # the claiming unit's code, e.g. "A PIC"


@dataclass(frozen=True)
class FormalState:
    """Wars, spheres of influence and victory points of a Formal Diplomacy game.

    ``wars`` holds unordered pairs of powers; ``spheres`` maps province → owning power;
    ``vp`` maps every power of the map → victory points.  The game ends after the Fall turn of
    ``last_year`` (``first_year + turns - 1``).  ``winners`` is set once the game is over.
    """

    first_year: int
    turns: int = DEFAULT_TURNS
    wars: frozenset[frozenset[str]] = frozenset()
    spheres: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    vp: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    pending_claims: tuple[PendingClaim, ...] = ()
    over: bool = False
    winners: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # accept plain dicts/sets from callers, store read-only forms
        object.__setattr__(self, "spheres", MappingProxyType(dict(self.spheres)))
        object.__setattr__(self, "vp", MappingProxyType(dict(self.vp)))
        object.__setattr__(self, "wars", frozenset(frozenset(p) for p in self.wars))
        if self.turns < 1:
            raise InputError("TURNS must be at least 1")
        for pair in self.wars:
            if len(pair) != 2:
                raise InputError(f"a war needs two different powers, not {sorted(pair)}")

    # -- queries ------------------------------------------------------------------------------
    @property
    def last_year(self) -> int:
        return self.first_year + self.turns - 1

    def at_war(self, a: str, b: str) -> bool:
        return a != b and war_pair(a, b) in self.wars

    def enemies(self, power: str) -> tuple[str, ...]:
        """The powers ``power`` is at war with, sorted by name."""
        return tuple(sorted(p for pair in self.wars if power in pair for p in pair
                            if p != power))

    def spheres_of(self, power: str) -> tuple[str, ...]:
        return tuple(sorted(p for p, o in self.spheres.items() if o == power))

    def points(self, power: str) -> int:
        return self.vp.get(power, 0)

    # -- serialisation ------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "first_year": self.first_year,
            "turns": self.turns,
            "wars": sorted(sorted(p) for p in self.wars),
            "spheres": dict(sorted(self.spheres.items())),
            "vp": dict(self.vp),
            "pending_claims": [[c.power, c.province, c.unit] for c in self.pending_claims],
            "over": self.over,
            "winners": list(self.winners),
        }

    @staticmethod
    def from_dict(doc: Mapping[str, Any]) -> "FormalState":
        try:
            return FormalState(
                first_year=int(doc["first_year"]), turns=int(doc.get("turns", DEFAULT_TURNS)),
                wars=frozenset(frozenset(p) for p in doc.get("wars", ())),
                spheres=dict(doc.get("spheres", {})), vp=dict(doc.get("vp", {})),
                pending_claims=tuple(PendingClaim(*c) for c in doc.get("pending_claims", ())),
                over=bool(doc.get("over", False)), winners=tuple(doc.get("winners", ())))
        except (KeyError, TypeError, ValueError) as e:
            raise InputError(f"bad Formal Diplomacy state: {e}") from None

    # -- changes (used by the turn processing) -------------------------------------------------
    def evolve(self, **changes: Any) -> "FormalState":
        return replace(self, **changes)


def initial_formal_state(m: Map, turns: int | None = None, first_year: int | None = None,
                         ) -> FormalState:
    """The state at the start of a game: no wars, no spheres, 0 points for every power.

    ``turns`` is the game length in years (``CREATE … VARIANT formal TURNS n``, default 10);
    ``first_year`` defaults to the map's first year, so the standard game ends after F1910.
    """
    year = first_year if first_year is not None else Phase.parse(m.start_phase).year
    return FormalState(first_year=year, turns=DEFAULT_TURNS if turns is None else int(turns),
                       vp={p: 0 for p in m.powers})


def make_formal_state(m: Map, *, wars: Iterable[Iterable[str]] = (),
                      spheres: Mapping[str, str] | None = None,
                      vp: Mapping[str, int] | None = None, turns: int | None = None,
                      first_year: int | None = None) -> FormalState:
    """A checked state from plain values (tests, repairs): unknown powers or provinces raise."""
    base = initial_formal_state(m, turns, first_year)
    pairs = []
    for w in wars:
        pair = [str(p).upper() for p in w]
        for p in pair:
            if p not in m.powers:
                raise InputError(f"unknown power {p!r}")
        pairs.append(frozenset(pair))
    sph = {}
    for prov, owner in (spheres or {}).items():
        prov, owner = prov.upper(), owner.upper()
        if prov not in m.provinces:
            raise InputError(f"unknown province {prov!r}")
        if owner not in m.powers:
            raise InputError(f"unknown power {owner!r}")
        sph[prov] = owner
    points = dict(base.vp)
    for p, n in (vp or {}).items():
        if p.upper() not in m.powers:
            raise InputError(f"unknown power {p!r}")
        points[p.upper()] = int(n)
    return base.evolve(wars=frozenset(pairs), spheres=sph, vp=points)
