"""Orders as values, and the order parser for every syntax of the mail language.

``parse_order(map, text, phase_type)`` turns one line into an order dataclass or an
:class:`OrderError` value (never an exception) so a mail reply can quote each bad line.
Parsing is phase-aware: ``A Bur-Par`` is a retreat in a retreat phase, ``A Mun D`` a disband
there and a removal in an adjustment phase.  Orders refer to places only; whether the unit
exists and belongs to the power is checked by the adjudicator against a position.

Accepted forms (case-insensitive, full names or unambiguous abbreviations, any coast
spelling ``StP/nc``, ``stp(nc)``, ``St Petersburg (north coast)``, ``StP nc``)::

    A Par-Bur   A Paris - Burgundy   A PAR H   F Trieste Hold   A PAR -> BUR   Tyr into Venice
    F Lon S A Yor-Nwy   A Venice Supports A Tyrolia - Trieste   A PAR S F BRE [H]
    F NTH C A YOR - NWY   F North Sea Convoys A London - Norway
    A Lon-Nth-Nwy (route: checked, implies a convoy)   A LON - NWY VIA [CONVOY]
    retreats: A Bur-Par  A BUR R PAR  A Bur disband  A BUR D
    adjustments: Build A Par  Build F StP/NC  A PAR B  Remove A Mun  A MUN D  Waive
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from difflib import SequenceMatcher
from functools import cache, lru_cache
from types import MappingProxyType

import msgspec

from judge.core.errors import OrderError
from judge.core.maps import ARMY, FLEET, Map, province_of
from judge.core.phases import ADJUSTMENTS, MOVEMENT, RETREATS

# Orders are frozen values built in C (msgspec structs): the parser makes one per line it has
# not seen, the adjudicator reads them by the dozen each phase.  ``gc=False``: they hold only
# strings, tuples of strings and unit specs, so they can never be part of a reference cycle.


class UnitSpec(msgspec.Struct, frozen=True):
    """A unit as written in an order: kind may be omitted (``None``), coast may be absent.

    ``province`` is derived from the location when the spec is made (whatever is given for
    it): binding and legality ask for it constantly."""

    kind: str | None
    location: str
    province: str = ""

    def __post_init__(self) -> None:
        msgspec.structs.force_setattr(self, "province", province_of(self.location))

    def __repr__(self) -> str:  # what makes the spec, not what is derived from it
        return f"UnitSpec(kind={self.kind!r}, location={self.location!r})"

    def text(self) -> str:
        return f"{self.kind} {self.location}" if self.kind else self.location


class Hold(msgspec.Struct, frozen=True, gc=False):
    unit: UnitSpec

    def text(self) -> str:
        return f"{self.unit.text()} H"


class Move(msgspec.Struct, frozen=True, gc=False):
    unit: UnitSpec
    dest: str
    via_convoy: bool = False
    route: tuple[str, ...] = ()  # intermediate sea provinces if the writer gave a path

    def text(self) -> str:
        path = " - ".join((*self.route, self.dest))
        return f"{self.unit.text()} - {path}" + (" VIA" if self.via_convoy and not self.route else "")


class Support(msgspec.Struct, frozen=True, gc=False):
    unit: UnitSpec
    target: UnitSpec
    dest: str | None = None  # None: support to hold

    def text(self) -> str:
        tail = f" - {self.dest}" if self.dest else ""
        return f"{self.unit.text()} S {self.target.text()}{tail}"


class Convoy(msgspec.Struct, frozen=True, gc=False):
    unit: UnitSpec
    target: UnitSpec
    dest: str

    def text(self) -> str:
        return f"{self.unit.text()} C {self.target.text()} - {self.dest}"


class Retreat(msgspec.Struct, frozen=True, gc=False):
    unit: UnitSpec
    dest: str

    def text(self) -> str:
        return f"{self.unit.text()} R {self.dest}"


class Disband(msgspec.Struct, frozen=True, gc=False):
    unit: UnitSpec

    def text(self) -> str:
        return f"{self.unit.text()} D"


class Build(msgspec.Struct, frozen=True, gc=False):
    unit: UnitSpec

    def text(self) -> str:
        return f"{self.unit.text()} B"


class Remove(msgspec.Struct, frozen=True, gc=False):
    unit: UnitSpec

    def text(self) -> str:
        return f"{self.unit.text()} D"


class Waive(msgspec.Struct, frozen=True, gc=False):
    def text(self) -> str:
        return "WAIVE"


Order = Hold | Move | Support | Convoy | Retreat | Disband | Build | Remove | Waive

# -- vocabulary --------------------------------------------------------------------------------
_HOLD = {"h", "hold", "holds", "stand", "stands"}
_MOVE = {"-", "m", "move", "moves", "to", "into"}
_SUPPORT = {"s", "support", "supports", "sup", "supp"}
_CONVOY = {"c", "convoy", "convoys", "con", "conv"}
_VIA = {"via", "by", "vc"}
_RETREAT = {"-", "r", "retreat", "retreats", "to", "into"}
_DISBAND = {"d", "disband", "disbands", "remove", "removes", "destroy"}
_BUILD = {"b", "build", "builds"}
_WAIVE = {"waive", "waives", "waived"}
_KINDS = {"a": ARMY, "army": ARMY, "f": FLEET, "fleet": FLEET}
_COASTS = {"nc": "NC", "sc": "SC", "ec": "EC", "wc": "WC"}
_COAST_WORDS = {"n": "NC", "north": "NC", "s": "SC", "south": "SC", "e": "EC", "east": "EC",
                "w": "WC", "west": "WC", **_COASTS}
# A word is letters of any alphabet, digits, dots and apostrophes: "Désiré" is one word (no
# province), not "d" (disband) and "sir".
_TOKEN_RE = re.compile(r"(?:[^\W_]|[.'])+|[-/(),:]")
# After a move's word, the word that may follow it ("moves to", "moves into").
_TO = {"to", "into"}
# How alike a misspelt province must be to a name to be offered (difflib's ratio, 0 to 1):
# 0.75 offers Ukraine for "Ukriane" and Bohemia for "Bohmia", nothing for "Urk".
_NEAR = 0.75
# The most names offered for one misspelt province.
_MOST_NEAR = 3


class _Fail(Exception):
    """Internal: aborts a parse; turned into an OrderError value at the boundary.  ``near``:
    the provinces a misspelt one may have meant."""

    def __init__(self, message: str, near: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.near = near


def _tokenize(text: str) -> list[str]:
    t = text.lower()
    for arrow in ("->", "=>", "\u2013", "\u2014", "\u2192"):
        t = t.replace(arrow, " - ")
    t = re.sub(r"mid-atl", "mid atl", t)  # the one province name with a hyphen
    toks = [w.strip(".'") for w in _TOKEN_RE.findall(t)]
    return [w for w in toks if w and w not in (",", ":") or w in ("-",)]


class _Parser:
    def __init__(self, m: Map, power_words: frozenset[str], toks: list[str]) -> None:
        self.m, self.power_words, self.toks, self.i = m, power_words, toks, 0

    # cursor helpers
    def peek(self, k: int = 0) -> str | None:
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else None

    def take(self, words: set[str]) -> str | None:
        w = self.peek()
        if w is not None and w in words:
            self.i += 1
            return w
        return None

    def at_end(self) -> bool:
        return self.i >= len(self.toks)

    def expect_end(self) -> None:
        if not self.at_end():
            raise _Fail(f"unexpected {' '.join(self.toks[self.i:])!r} at the end")

    # grammar pieces
    def location(self, what: str = "a province") -> str:
        if self.at_end():
            raise _Fail(f"expected {what}")
        prov = self.province()
        coast = self.coast()
        p = self.m.provinces[prov]
        # DATC 4.B.6: coasts that the province does not have are ignored
        return f"{prov}/{coast}" if coast and coast in p.coasts else prov

    def province(self) -> str:
        toks, i, names = self.toks, self.i, self.m.names
        words = []
        for j in range(i, min(i + 4, len(toks))):
            if not _is_word(toks[j]):
                break
            words.append(toks[j])
        if not words:
            raise _Fail(f"expected a province, found {toks[i]!r}")
        for n in range(len(words), 0, -1):
            prov = names.get(" ".join(words[:n]))
            if prov:
                self.i = i + n
                return prov
        for n in range(len(words), 0, -1):
            phrase = " ".join(words[:n])
            cands = sorted({p for name, p in names.items() if name.startswith(phrase)})
            if len(cands) == 1:
                self.i = i + n
                return cands[0]
            if len(cands) > 1 and n == 1:
                listed = ", ".join(f"{self.m.provinces[c].name} ({c})" for c in cands)
                raise _Fail(f"ambiguous province {words[0]!r}: could be {listed}")
        raise _Fail(f"unknown province {words[0]!r}",
                    near=nearest_provinces(self.m, tuple(words)))

    def coast(self) -> str | None:
        w = self.peek()
        if w in ("/", "("):
            self.i += 1
            c = _COAST_WORDS.get(self.peek() or "")
            if c is None:
                raise _Fail(f"expected a coast after {w!r}")
            self.i += 1
            if self.peek() in ("coast", "c"):
                self.i += 1
            if w == "(" and not self.take({")"}):
                raise _Fail("missing ')' after the coast")
            return c
        if w in _COASTS:
            self.i += 1
            return _COASTS[w]
        if w in _COAST_WORDS and self.peek(1) == "coast":
            self.i += 2
            return _COAST_WORDS[w]
        return None

    def unit(self) -> UnitSpec:
        if self.peek() in self.power_words:
            self.i += 1
        kind = None
        w = self.peek()
        if w in _KINDS and self.peek(1) is not None and _is_word(self.peek(1) or ""):
            kind = _KINDS[w]
            self.i += 1
        return UnitSpec(kind, self.location("a unit's province"))

    # whole orders
    def movement(self) -> Order:
        u = self.unit()
        if self.at_end() or self.take(_HOLD):
            self.expect_end()
            return Hold(u)
        if self.take(_MOVE):
            self.take(_TO)
            stops = [self.location("a destination")]
            while self.take({"-", *_TO}):
                stops.append(self.location("a destination"))
            via = False
            if self.take(_VIA):
                self.take({"convoy", "c"})
                via = True
            self.expect_end()
            route = tuple(province_of(s) for s in stops[:-1])
            if route:
                self._check_route(u.province, route, stops[-1])
            return Move(u, stops[-1], via or bool(route), route)
        if self.take(_SUPPORT):
            target = self.unit()
            dest = None
            if self.take(_HOLD):
                pass
            elif self.take(_MOVE):
                self.take(_TO)
                dest = self.location("the supported move's destination")
            self.expect_end()
            return Support(u, target, dest)
        if self.take(_CONVOY):
            target = self.unit()
            if not self.take(_MOVE):
                raise _Fail("a convoy needs the army's destination, e.g. F NTH C A LON - NWY")
            self.take(_TO)
            dest = self.location("the convoy's destination")
            self.expect_end()
            return Convoy(u, target, dest)
        raise _Fail(f"expected H, -, S or C after the unit, found {self.peek()!r}")

    def _check_route(self, src: str, route: tuple[str, ...], dest: str) -> None:
        m = self.m
        prev = src
        for p in (*route, province_of(dest)):
            if p not in m.any_adj[prev]:
                raise _Fail(f"convoy route: {m.provinces[prev].name} does not touch "
                            f"{m.provinces[p].name}")
            prev = p
        for p in route:
            if not m.provinces[p].is_sea:
                raise _Fail(f"convoy route passes through {m.provinces[p].name}, not a sea")

    def retreat(self) -> Order:
        if self.take(_DISBAND):
            u = self.unit()
            self.expect_end()
            return Disband(u)
        u = self.unit()
        if self.take(_DISBAND):
            self.expect_end()
            return Disband(u)
        if self.take(_RETREAT):
            self.take(_TO)
            dest = self.location("a retreat destination")
            self.expect_end()
            return Retreat(u, dest)
        raise _Fail("a retreat is 'A BUR - PAR', 'A BUR R PAR' or 'A BUR D'")

    def adjustment(self) -> Order:
        if self.take(_WAIVE):
            self.take(_BUILD)
            self.expect_end()
            return Waive()
        if self.take(_BUILD):
            if self.take(_WAIVE):
                self.expect_end()
                return Waive()
            u = self.unit()
            self.expect_end()
            return Build(u)
        if self.take(_DISBAND):
            u = self.unit()
            self.expect_end()
            return Remove(u)
        u = self.unit()
        if self.take(_BUILD):
            self.expect_end()
            return Build(u)
        if self.take(_DISBAND):
            self.expect_end()
            return Remove(u)
        raise _Fail("an adjustment is 'Build A PAR', 'A PAR B', 'Remove A MUN', 'A MUN D' or 'Waive'")


def _is_word(tok: str) -> bool:
    return tok[0].isalnum()


@lru_cache(maxsize=1024)
def nearest_provinces(m: Map, words: tuple[str, ...]) -> tuple[str, ...]:
    """The provinces whose names (or codes, or other names) are nearest to a misspelt one
    (``("ukriane",)``: Ukraine), best first; the writer's words may be the beginning of a
    name of several words (``("norht", "sea")``).  difflib's similarity ratio: the standard
    library's fuzzy match, nothing to maintain.  Remembered: a line refused is parsed for
    each phase type, and this costs a millisecond or two."""
    scored: dict[str, float] = {}
    phrases = {" ".join(words[:n]) for n in range(1, min(len(words), 3) + 1)}
    matcher = SequenceMatcher()
    for phrase in phrases:
        matcher.set_seq2(phrase)
        for name, prov in m.names.items():
            matcher.set_seq1(name)
            # the cheap upper bounds first, as difflib's get_close_matches does
            if matcher.real_quick_ratio() >= _NEAR and matcher.quick_ratio() >= _NEAR:
                ratio = matcher.ratio()
                if ratio >= _NEAR and ratio > scored.get(prov, 0.0):
                    scored[prov] = ratio
    return tuple(sorted(scored, key=lambda p: (-scored[p], p))[:_MOST_NEAR])


@cache
def _power_words(m: Map) -> frozenset[str]:
    words: set[str] = set()
    for p in m.powers.values():
        words.update((p.name.lower(), p.adjective.lower()))
    return frozenset(words)


@cache
def _canonical_locations(m: Map) -> dict[str, str]:
    """Every location the fast form can write (``[A-Z]{3}`` and an optional ``/NC``, ``/SC``,
    ``/EC`` or ``/WC``) → the location it means.

    ``"PAR"`` → ``"PAR"``, ``"STP/NC"`` → ``"STP/NC"``, and a coast the province does not
    have is dropped (``"PAR/NC"`` → ``"PAR"``, DATC 4.B.6).  Unknown provinces are absent.
    One dict lookup per location instead of splitting and checking the coast each time.
    """
    table = {}
    for code, p in m.provinces.items():
        if not re.fullmatch("[A-Z]{3}", code):
            continue
        table[code] = code
        for coast in _COASTS.values():
            table[f"{code}/{coast}"] = f"{code}/{coast}" if coast in p.coasts else code
    return table


_FAST_KINDS = ("A", "F")


@cache
def _fast_units(m: Map) -> dict[str, dict[str, UnitSpec]]:
    """``"A"``/``"F"`` → location word of the fast form → its :class:`UnitSpec`.

    Specs are immutable values, so one shared instance per unit written serves every order;
    looking it up costs a fraction of building it, and orders are parsed a few dozen a phase.
    """
    locs = _canonical_locations(m)
    return {kind: {word: UnitSpec(kind, loc) for word, loc in locs.items()}
            for kind in _FAST_KINDS}


def default_hold(m: Map, kind: str, location: str) -> Hold:
    """The hold order the judge supplies for a unit without orders."""
    spec = _fast_units(m).get(kind, {}).get(location)
    return Hold(spec if spec is not None else UnitSpec(kind, location))


@cache
def default_holds(m: Map) -> Mapping[str, tuple[Hold, str]]:
    """Code of a unit anywhere on the map (``"A PAR"``, ``"F STP/NC"``) → the hold the judge
    supplies for it and its text: a unit without orders costs one lookup."""
    holds = {}
    for prov in m.provinces:
        for loc in dict.fromkeys((prov, *m.locations(prov))):
            for kind in _FAST_KINDS:
                hold = default_hold(m, kind, loc)
                holds[f"{kind} {loc}"] = (hold, hold.text())
    return MappingProxyType(holds)


_CACHE_LIMIT = 65536  # lines remembered per map and phase type; then it starts afresh


class _ParsedLines(dict[str, "Order | OrderError"]):
    """line → its parse, for one map and phase type; a missing line is parsed on lookup.

    Binding looks every order line up here: a hit is one plain dict lookup, and a line not
    seen before costs no more than parsing it (``__missing__``).  Parsing is pure, so a
    parse stays valid for the life of the map.
    """

    __slots__ = ("fast", "locations", "map", "phase_type", "units")

    def __init__(self, m: Map, phase_type: str) -> None:
        super().__init__()
        self.map, self.phase_type = m, phase_type
        self.fast: _FastForm = _FAST_FORMS.get(phase_type, _no_fast_form)
        self.units = _fast_units(m)
        self.locations = _canonical_locations(m)

    def __missing__(self, text: str) -> Order | OrderError:
        o: Order | OrderError | None = self.fast(text.split(), self.units, self.locations)
        if o is None:
            o = _parse_general(self.map, text, self.phase_type)
        if len(self) >= _CACHE_LIMIT:
            self.clear()  # atomic, unlike dropping the oldest line: threads may parse too
        self[text] = o
        return o

    def fast_form(self, text: str) -> Order | None:
        """The parse of a line in the fast form, ``None`` for any other line."""
        return self.fast(text.split(), self.units, self.locations)


# The fast form: the canonical three-letter orders, upper case, words separated by white
# space (which the general parser ignores too), read without the general parser:
#
#     A PAR H   A PAR - BUR [VIA]   A PAR S A MAR [H]   A PAR S A MAR - BUR
#     F NTH C A LON - NWY   A PAR B   A PAR D   A PAR R BUR
#
# Each phase type has its own reader; ``None`` sends the line to the general parser (another
# shape, an unknown province, an order of another phase type).  Matching the split words and
# looking them up in the per-map tables is several times cheaper than a regular expression.
_NO_SPECS: dict[str, UnitSpec] = {}
_Units = dict[str, dict[str, UnitSpec]]


def _fast_movement(words: list[str], units: _Units, locations: dict[str, str]) -> Order | None:
    if len(words) < 3:
        return None
    unit = units.get(words[0], _NO_SPECS).get(words[1])
    if unit is None:
        return None
    match words:
        case [_, _, "-", dest]:
            to = locations.get(dest)
            return Move(unit, to) if to else None
        case [_, _, "H"]:
            return Hold(unit)
        case [_, _, "S", kind, where, "-", dest]:
            target, to = units.get(kind, _NO_SPECS).get(where), locations.get(dest)
            return Support(unit, target, to) if target and to else None
        case [_, _, "S", kind, where] | [_, _, "S", kind, where, "H"]:
            target = units.get(kind, _NO_SPECS).get(where)
            return Support(unit, target) if target else None
        case [_, _, "C", "A", where, "-", dest]:
            army, to = units["A"].get(where), locations.get(dest)
            return Convoy(unit, army, to) if army and to else None
        case [_, _, "-", dest, "VIA"]:
            to = locations.get(dest)
            return Move(unit, to, True) if to else None
    return None


def _fast_retreat(words: list[str], units: _Units, locations: dict[str, str]) -> Order | None:
    if len(words) < 3:
        return None
    unit = units.get(words[0], _NO_SPECS).get(words[1])
    if unit is None:
        return None
    match words:
        case [_, _, "-" | "R", dest]:
            to = locations.get(dest)
            return Retreat(unit, to) if to else None
        case [_, _, "D"]:
            return Disband(unit)
    return None


def _fast_adjustment(words: list[str], units: _Units, locations: dict[str, str]
                     ) -> Order | None:
    if len(words) != 3:
        return None
    unit = units.get(words[0], _NO_SPECS).get(words[1])
    if unit is None:
        return None
    if words[2] == "B":
        return Build(unit)
    if words[2] == "D":
        return Remove(unit)
    return None


def _no_fast_form(words: list[str], units: _Units, locations: dict[str, str]) -> None:
    return None


_FastForm = Callable[[list[str], _Units, dict[str, str]], "Order | None"]
_FAST_FORMS: dict[str, _FastForm] = {MOVEMENT: _fast_movement, RETREATS: _fast_retreat,
                                     ADJUSTMENTS: _fast_adjustment}


_parsed: dict[tuple[Map, str], _ParsedLines] = {}


def parsed_lines(m: Map, phase_type: str = MOVEMENT) -> Mapping[str, Order | OrderError]:
    """The parse cache of a map and phase type: ``parsed_lines(m, "M")[text]`` is
    ``parse_order(m, text, "M")``, for loops that parse many lines (one lookup per line)."""
    lines = _parsed.get((m, phase_type))
    if lines is None:
        lines = _parsed[(m, phase_type)] = _ParsedLines(m, phase_type)
    return lines


def parse_order(m: Map, text: str, phase_type: str = MOVEMENT) -> Order | OrderError:
    """Parse one order line for a phase type (``"M"``, ``"R"`` or ``"A"``).

    Returns an order dataclass, or an :class:`OrderError` whose message names the problem
    (an ambiguous abbreviation lists its candidates).  Pure, so results are cached.
    """
    return parsed_lines(m, phase_type)[text]


def clear_parse_cache() -> None:
    """Forget every parsed line (benchmarks: time parsing afresh).  The per-map tables the
    fast form reads stay: they hold the map's places, not parses."""
    for lines in _parsed.values():
        lines.clear()


# Words an order may begin with besides a unit type, a power or a province.
_ORDER_VERBS = _BUILD | _DISBAND | _WAIVE
# Words that follow a unit's province in an order.
_ORDER_WORDS = _HOLD | _MOVE | _SUPPORT | _CONVOY | _RETREAT | _ORDER_VERBS | {"/", "("}


def reads_as_an_order(m: Map, text: str) -> bool:
    """Whether a line is plainly meant as an order: it begins with a unit type, a power or
    an adjustment word, or it is an order of some phase.  Stricter than
    :func:`looks_like_an_order`: ``Paris, France`` (a signature's town) looks like one and
    is not read as one here."""
    toks = _tokenize(text)
    if not toks:
        return False
    first = toks[0]
    if first in _KINDS or first in _ORDER_VERBS or first in _power_words(m):
        return True
    return any(not isinstance(parse_order(m, text, t), OrderError)
               for t in (MOVEMENT, RETREATS, ADJUSTMENTS))


def has_an_order_word(m: Map, text: str) -> bool:
    """Whether any word of a line is one orders are made of: a province's code or a word of
    its names, a unit type, a power, or an order's word (``Move Paris Burgundy``,
    ``Hold Kiel``; not ``Frank Miller``)."""
    words = _place_words(m)
    return any(t in words or t in _KINDS or t in _ORDER_WORDS or t in _power_words(m)
               for t in _tokenize(text))


@cache
def _place_words(m: Map) -> frozenset[str]:
    return frozenset(word for name in m.names for word in name.split())


def looks_like_an_order(m: Map, text: str) -> bool:
    """Whether a line begins as an order of some phase could: with a unit type (``A``,
    ``Fleet``), a power (``Russian``), an adjustment word (``Build``, ``Remove``,
    ``Waive``) or the beginning of a province's name or code (``Mun-Ruh``).

    A line that does not is no misspelt order but something else (a mistyped command,
    ``SET VACATION``): a judge answers it as such rather than as an unknown province.
    """
    toks = _tokenize(text)
    if not toks or not _is_word(toks[0]):
        return bool(toks)
    first = toks[0]
    if first in _KINDS or first in _ORDER_VERBS or first in _power_words(m):
        return True
    # a misspelt province still reads as an order when an order word follows (Urk-War)
    if len(toks) > 1 and toks[1] in _ORDER_WORDS:
        return True
    return any(name.startswith(first) for name in m.names)


def _parse_general(m: Map, text: str, phase_type: str) -> Order | OrderError:
    toks = _tokenize(text)
    if toks and toks[-1] == "-":
        toks.pop()
    if not toks:
        return OrderError(text, "empty order")
    parser = _Parser(m, _power_words(m), toks)
    try:
        if phase_type == MOVEMENT:
            return parser.movement()
        if phase_type == RETREATS:
            return parser.retreat()
        if phase_type == ADJUSTMENTS:
            return parser.adjustment()
    except _Fail as e:
        return OrderError(text, str(e), e.near)
    return OrderError(text, f"unknown phase type {phase_type!r}")
