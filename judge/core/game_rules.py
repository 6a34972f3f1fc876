"""The game-rule registry: DPjudge's game rules and how a chosen set of them resolves.

The rules themselves are data (``judge/variants/rules.json``); this module loads them once and
answers three questions for the command layer: what does ``GET RULES`` list
(:func:`rule_descriptions`), which rules are in force when a master asks for some
(:func:`resolve_rules`), and which of them may still change once the game runs
(:func:`can_change_after_start`, :func:`change_rules_after_start`).

Each rule carries the markers of DPjudge's rule list: ``+X`` (implies X), ``-X`` (removes X),
``!X`` (conflicts
with X) and ``=X`` (implies X unless something removes it).  Resolution never looks at the
order in which rules were listed: it works on sets and computes least fixed points of monotone
closures, so any permutation of the same names gives the same answer.

1. *Candidates*: the requested rules closed under ``+`` and ``=``.
2. *Removed*: every rule that some candidate removes.  A removal is honoured even when the
   remover is itself removed (the conservative reading: a rule that could be in force can
   take another away); no rule of DPjudge's makes this matter.
3. A requested rule that is removed is a conflict: the master asked for both, as with
   ``NO_PRESS`` and ``PUBLIC_PRESS``, whose mutual ``-`` markers would otherwise make the
   outcome depend on which came last.
4. *In force*: the requested rules closed under ``+`` and ``=`` without ever entering a removed
   rule (a removal beats both kinds of implication; ``+`` and ``=`` differ only in wording).
5. Two rules in force of which one names the other with ``!`` are a conflict.

Mistakes (unknown names, conflicts) come back as :class:`RuleError` values, never exceptions,
so that a mail reply can quote them.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from types import MappingProxyType
from typing import Any, Callable, Iterable, Mapping


@dataclass(frozen=True, slots=True)
class Rule:
    """One game rule with its markers (rule names, upper case)."""

    name: str
    description: str
    implies: tuple[str, ...] = ()
    removes: tuple[str, ...] = ()
    conflicts: tuple[str, ...] = ()
    implied_unless_removed: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    changeable_after_start: bool = True

    @property
    def markers(self) -> str:
        """The markers as DPjudge's rule list writes them, e.g. ``"(+NO_DEADLINE +CD_DUMMIES)"``."""
        parts = [f"+{x}" for x in self.implies]
        parts += [f"={x}" for x in self.implied_unless_removed]
        parts += [f"-{x}" for x in self.removes]
        parts += [f"!{x}" for x in self.conflicts]
        return "(" + " ".join(parts) + ")"

    def brings_in(self) -> tuple[str, ...]:
        return self.implies + self.implied_unless_removed


@dataclass(frozen=True, slots=True)
class RuleError:
    """Why a set of rules was refused; ``rules`` are the names involved, sorted."""

    message: str
    rules: tuple[str, ...] = ()

    def __str__(self) -> str:
        return self.message


@dataclass(frozen=True, slots=True)
class RuleSet:
    """The rules in force after resolution.

    ``names`` are all of them, sorted; ``requested`` those asked for; ``brought_in`` maps each
    rule brought in by others to the rules in force that brought it in; ``taken_away`` maps
    each removed rule to the rules that removed it.  All are sorted tuples, so two RuleSets
    from the same request in any order are equal.
    """

    names: tuple[str, ...] = ()
    requested: tuple[str, ...] = ()
    brought_in: tuple[tuple[str, tuple[str, ...]], ...] = ()
    taken_away: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def has(self, name: str) -> bool:
        return _normalize(name) in self.names

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.has(name)

    def explain(self) -> list[str]:
        """One line per rule in force (and per rule taken away) saying where it came from."""
        lines = []
        brought = dict(self.brought_in)
        for name in self.names:
            if name in self.requested:
                lines.append(f"{name}: chosen")
            else:
                lines.append(f"{name}: brought in by {_and(brought.get(name, ()))}")
        for name, by in self.taken_away:
            lines.append(f"{name}: taken away by {_and(by)}")
        return lines


@dataclass(frozen=True, eq=False)
class Registry:
    """All known rules, by name, with aliases and the names of rules not offered."""

    rules: Mapping[str, Rule]
    aliases: Mapping[str, str]
    external: Mapping[str, str]  # rule DPjudge's list mentions but does not define → note

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Registry:
        rules: dict[str, Rule] = {}
        for entry in data["rules"]:
            rule = Rule(
                name=_normalize(entry["name"]),
                description=" ".join(str(entry["description"]).split()),
                implies=_names(entry.get("implies", ())),
                removes=_names(entry.get("removes", ())),
                conflicts=_names(entry.get("conflicts", ())),
                implied_unless_removed=_names(entry.get("implied_unless_removed", ())),
                aliases=_names(entry.get("aliases", ())),
                changeable_after_start=bool(entry.get("changeable_after_start", True)),
            )
            rules[rule.name] = rule
        aliases = {a: r.name for r in rules.values() for a in r.aliases if a not in rules}
        external = {_normalize(k): str(v) for k, v in dict(data.get("external", {})).items()}
        return cls(MappingProxyType(rules), MappingProxyType(aliases), MappingProxyType(external))

    def lookup(self, name: str) -> str | None:
        key = _normalize(name)
        if key in self.rules:
            return key
        return self.aliases.get(key)

    def problems(self) -> list[str]:
        """Markers naming rules that are neither defined nor listed as external."""
        found = []
        for rule in self.rules.values():
            kinds = (("+", rule.implies), ("=", rule.implied_unless_removed),
                     ("-", rule.removes), ("!", rule.conflicts))
            for sign, targets in kinds:
                for target in targets:
                    if target == rule.name:
                        found.append(f"{rule.name} {sign}{target}: names itself")
                    elif target not in self.rules and target not in self.external:
                        found.append(f"{rule.name} {sign}{target}: no such rule")
        return found


def _normalize(name: str) -> str:
    return name.strip().upper().replace("-", "_")


def _names(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(_normalize(v) for v in values)


def _and(names: Iterable[str]) -> str:
    items = list(names)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


@lru_cache(maxsize=1)
def load_registry() -> Registry:
    """The rules of ``judge/variants/rules.json``, loaded once."""
    text = resources.files("judge.variants").joinpath("rules.json").read_text("utf-8")
    return Registry.from_data(json.loads(text))


# -- resolution ---------------------------------------------------------------------------------


def _closure(start: frozenset[str], step: Callable[[str], Iterable[str]]) -> frozenset[str]:
    """Least fixed point of ``S = start ∪ step(S)``: a worklist over sets, order-free."""
    seen = set(start)
    todo = list(start)
    while todo:
        for nxt in step(todo.pop()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return frozenset(seen)


def resolve_rules(
    requested: Iterable[str], registry: Registry | None = None
) -> RuleSet | RuleError:
    """Resolve the rules a master asked for into the rules in force, or say why not.

    Names are case-insensitive (``no-press`` is ``NO_PRESS``); blanks are ignored and a name
    may be given twice.  See the module docstring for the resolution itself.
    """
    reg = registry or load_registry()
    asked = {_normalize(n) for n in requested if n and n.strip()}
    unknown = sorted(n for n in asked if reg.lookup(n) is None)
    if unknown:
        return RuleError("\n".join(_unknown_message(n, reg) for n in unknown), tuple(unknown))
    chosen = frozenset(r for r in map(reg.lookup, asked) if r is not None)
    # Every rule the chosen ones bring in; what those take away; and what stays in force.
    candidates = _closure(chosen, lambda name: _brings_in(name, reg))
    removers = _removers(candidates, reg)
    in_force = _closure(chosen, lambda name: [x for x in _brings_in(name, reg)
                                              if x not in removers])
    problems = _removal_problems(chosen, removers, reg)
    problems += _conflict_problems(in_force, chosen,
                                   {frozenset(names) for _, names in problems}, reg)
    if problems:
        involved = sorted({n for _, names in problems for n in names})
        return RuleError("\n".join(text for text, _ in problems), tuple(involved))
    return _rule_set(chosen, candidates, in_force, removers, reg)


# A reason the rules cannot be used together, and the rules it is about.
_Problem = tuple[str, tuple[str, ...]]


def _brings_in(name: str, reg: Registry) -> list[str]:
    rule = reg.rules.get(name)
    # markers naming rules this judge does not define bring nothing in
    return [x for x in rule.brings_in() if x in reg.rules] if rule else []


def _removers(candidates: frozenset[str], reg: Registry) -> dict[str, set[str]]:
    """Each rule a candidate takes away, and the candidates that take it away."""
    removers: dict[str, set[str]] = {}
    for name in candidates:
        for target in reg.rules[name].removes:
            removers.setdefault(target, set()).add(name)
    return removers


def _removal_problems(chosen: frozenset[str], removers: dict[str, set[str]],
                      reg: Registry) -> list[_Problem]:
    """A rule asked for that a rule in play takes away (two that take each other away: one
    problem, named from the smaller name)."""
    problems: list[_Problem] = []
    pairs = sorted({(r, t) for t in chosen & frozenset(removers) for r in removers[t]})
    for remover, target in pairs:
        if remover != target and (target, remover) in pairs:
            if remover < target:
                problems.append((f"{remover} and {target} take each other away, "
                                 f"so they cannot be used together.", (remover, target)))
            continue
        problems.append((f"{_described(remover, chosen, reg)} takes {target} away, "
                         f"so they cannot be used together.",
                         tuple(sorted((remover, target)))))
    return problems


def _conflict_problems(in_force: frozenset[str], chosen: frozenset[str],
                       reported: set[frozenset[str]], reg: Registry) -> list[_Problem]:
    """Two rules in force that conflict, unless already reported as a removal."""
    clashes = sorted({tuple(sorted((name, other)))
                      for name in in_force for other in reg.rules[name].conflicts
                      if other in in_force and other != name})
    return [(f"{_described(a, chosen, reg)} cannot be used with "
             f"{_described(b, chosen, reg)}: {_conflict_reason(a, b, reg)}.", (a, b))
            for a, b in clashes if frozenset((a, b)) not in reported]


def _rule_set(chosen: frozenset[str], candidates: frozenset[str], in_force: frozenset[str],
              removers: dict[str, set[str]], reg: Registry) -> RuleSet:
    """The rules in force, with what brought each in and what took others away."""
    brought: dict[str, set[str]] = {}
    for name in in_force:
        for target in _brings_in(name, reg):
            if target in in_force and target not in chosen:
                brought.setdefault(target, set()).add(name)
    taken = {t: by for t, by in removers.items() if t in candidates and t not in in_force}
    return RuleSet(
        names=tuple(sorted(in_force)),
        requested=tuple(sorted(chosen)),
        brought_in=tuple(sorted((t, tuple(sorted(by))) for t, by in brought.items())),
        taken_away=tuple(sorted((t, tuple(sorted(by))) for t, by in taken.items())),
    )


def _origin(name: str, chosen: frozenset[str], reg: Registry) -> str:
    """Which chosen rules (directly or through others) bring ``name`` in."""
    sources = sorted(
        c for c in chosen
        if name in _closure(frozenset({c}), lambda n: reg.rules[n].brings_in()
                            if n in reg.rules else ())
    )
    return _and(sources)


def _described(name: str, chosen: frozenset[str], reg: Registry) -> str:
    if name in chosen:
        return name
    return f"{name} (brought in by {_origin(name, chosen, reg)})"


def _conflict_reason(a: str, b: str, reg: Registry) -> str:
    ra, rb = reg.rules[a], reg.rules[b]
    if b in ra.conflicts and a in rb.conflicts:
        return "each rule forbids the other"
    return f"{a if b in ra.conflicts else b} forbids {b if b in ra.conflicts else a}"


def _unknown_message(name: str, reg: Registry) -> str:
    if name in reg.external:
        return f"{name} is a DPjudge rule that this judge does not offer. {reg.external[name]}"
    known = sorted(set(reg.rules) | set(reg.aliases))
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
    if not close:  # compare without separators too: NOPRESS ~ NO_PRESS
        squeezed = {k.replace("_", ""): k for k in known}
        close = [squeezed[k] for k in difflib.get_close_matches(
            name.replace("_", ""), list(squeezed), n=3, cutoff=0.6)]
    hint = f" Did you mean {' or '.join(reg.lookup(c) or c for c in close)}?" if close else ""
    return f"There is no rule {name}.{hint} Send GET RULES for the list."


# -- for GET RULES and SET RULES ------------------------------------------------------------------


def rule_descriptions(registry: Registry | None = None) -> tuple[Rule, ...]:
    """Every rule, in the order of DPjudge's rule list, with its markers and description."""
    return tuple((registry or load_registry()).rules.values())


def can_change_after_start(name: str, registry: Registry | None = None) -> bool:
    """Whether the rule may be added or dropped once the game runs (False if unknown)."""
    reg = registry or load_registry()
    key = reg.lookup(name)
    return key is not None and reg.rules[key].changeable_after_start


def change_rules_after_start(
    current: RuleSet, requested: Iterable[str], registry: Registry | None = None
) -> RuleSet | RuleError:
    """Resolve a master's new rules for a running game: refused if a fixed rule would change."""
    reg = registry or load_registry()
    result = resolve_rules(requested, reg)
    if isinstance(result, RuleError):
        return result
    changed = sorted(set(current.names) ^ set(result.names))
    fixed = [n for n in changed if not can_change_after_start(n, reg)]
    if fixed:
        verb = "is" if len(fixed) == 1 else "are"
        return RuleError(
            f"{_and(fixed)} cannot be added or dropped once the game has started: "
            f"{'it' if len(fixed) == 1 else 'they'} {verb} part of the terms the game began "
            f"with.",
            tuple(fixed),
        )
    return result


def registry_problems(registry: Registry | None = None) -> list[str]:
    """Data errors in the registry (markers naming no rule); empty when all is well."""
    return (registry or load_registry()).problems()
