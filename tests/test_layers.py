"""The rooms of docs/architecture.md hold: what may import what, read from the source.

Every ``import`` counts, at the top of a module or inside a function, because a lazy import is
still a dependency.  The judge's rooms, lowest first: core, pictures, store, service, mail,
commands, pipeline, web, daemon and cli, with the basics (configuration, logs, time, zones,
addresses) and the variants' data beside them for all.  No module imports itself back
through others, whichever rooms they are in: an import under ``TYPE_CHECKING`` counts too,
since it ties the modules together as much as a running one.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "judge"
# Beside the rooms, for all of them: the basics and the variants' data.
SHARED = {"basics", "variants"}
# What each room may import besides itself and the shared ones, lowest room first.
ALLOWED = {
    "core": set(),
    "pictures": {"core"},
    "store": set(),
    "service": {"core", "pictures", "store"},
    "mail": {"core", "pictures", "store", "service"},
    "commands": {"core", "pictures", "store", "service", "mail"},
    "pipeline": {"core", "pictures", "store", "service", "mail", "commands"},
    "web": {"core", "pictures", "store", "service", "mail"},
    "daemon": {"core", "pictures", "store", "service", "mail", "commands", "pipeline", "web"},
    "cli": {"core", "pictures", "store", "service", "mail", "commands", "pipeline", "web",
            "daemon"},
    "basics": set(),
    "variants": set(),
}
# The package's face: the modules its root may hold.
ROOT_MODULES_AT_MOST = 5


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _from_target(node: ast.ImportFrom, name: str, path: Path) -> str:
    """The module a ``from … import`` in module ``name`` (file ``path``) imports from."""
    if not node.level:
        return node.module or ""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    base = package.split(".")[: len(package.split(".")) - node.level + 1]
    return ".".join([*base, node.module] if node.module else base)


@cache
def _import_nodes(path: Path) -> tuple[ast.Import | ast.ImportFrom, ...]:
    """Every import statement of a file, at any depth (read once for all the tests)."""
    return tuple(node for node in ast.walk(ast.parse(path.read_text("utf-8")))
                 if isinstance(node, (ast.Import, ast.ImportFrom)))


def _imports(path: Path) -> Iterator[str]:
    """The judge modules a file imports (``judge.x.y``), absolute or relative."""
    name = _module_name(path)
    for node in _import_nodes(path):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names if a.name.startswith("judge"))
        elif isinstance(node, ast.ImportFrom):
            target = _from_target(node, name, path)
            if target.startswith("judge"):
                yield target


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _graph() -> dict[str, set[str]]:
    """Layer → the layers its modules import."""
    graph: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        layer = _layer(_module_name(path))
        graph.setdefault(layer, set()).update(
            _layer(target) for target in _imports(path) if _layer(target) != layer)
    return graph


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_a_layer_imports_only_the_layers_below_it(layer: str) -> None:
    imported = _graph().get(layer, set()) - SHARED - ALLOWED[layer] - {"", layer}
    assert imported == set(), f"judge.{layer} must not import judge.{', judge.'.join(imported)}"


def test_every_room_is_declared_and_the_root_holds_the_packages_face() -> None:
    """A new folder is a new room: it says here what it may import.  The package's root holds
    its face (its version) and little else: a module belongs in a room."""
    rooms = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert rooms - set(ALLOWED) == set(), "rooms missing from ALLOWED"
    assert set(ALLOWED) - rooms == set(), "ALLOWED names a room that is not there"
    root = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(root) <= ROOT_MODULES_AT_MOST, root


# Module names found in several rooms because they hold one idea at the layers that deal with
# it (the core's draws, the service's draws over the store, the commands' draw commands …).
SAME_IDEA = {"draws", "press", "orders", "games", "errors", "game_rules", "state",
             "game_results", "tournaments", "__init__"}


def test_no_two_modules_share_a_name_for_different_things() -> None:
    """A name means one thing: no module is named as a room or package is, and a module name
    found in two places is one idea at two layers (SAME_IDEA)."""
    modules: dict[str, list[str]] = {}
    packages = {p.name for p in PACKAGE.rglob("*") if p.is_dir() and (p / "__init__.py").exists()}
    for path in PACKAGE.rglob("*.py"):
        modules.setdefault(path.stem, []).append(_module_name(path))
    # the Formal Diplomacy commands (commands/handlers/formal.py) beside its core and service
    assert sorted(set(modules) & packages) == ["formal"]
    shared = {name: where for name, where in modules.items()
              if len(where) > 1 and name not in SAME_IDEA}
    assert shared == {}


def test_the_core_imports_no_outside_library_with_side_effects() -> None:
    """The core is pure: no database, mail, template or command-line library."""
    forbidden = {"sqlalchemy", "alembic", "aiosmtpd", "jinja2", "click", "email", "smtplib",
                 "PIL", "aiohttp", "psycopg", "sqlite3"}
    for path in (PACKAGE / "core").rglob("*.py"):
        for node in _import_nodes(path):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level
                     else [])
            for name in names:
                assert name.split(".")[0] not in forbidden, f"{path} imports {name}"


def _cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """Strongly connected groups of more than one layer (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[frozenset[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in graph.get(node, ()):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(frozenset(group))

    for node in list(graph):
        if node not in index:
            visit(node)
    return found


def _module_graph() -> dict[str, set[str]]:
    """Module → the judge modules it imports (``from judge.x import y`` counts as importing
    the module ``judge.x.y`` where there is one, else ``judge.x``)."""
    paths = {_module_name(path): path for path in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        graph[name] = set()
        for node in _import_nodes(path):
            if isinstance(node, ast.ImportFrom):
                targets = [t for t in _imports_of(node, name, path)]
            else:
                targets = [a.name for a in node.names if a.name.startswith("judge")]
            for target in targets:
                while target not in paths and "." in target:
                    target = target.rpartition(".")[0]
                if target != name and target in paths:
                    graph[name].add(target)
    return graph


def _imports_of(node: ast.ImportFrom, name: str, path: Path) -> Iterator[str]:
    target = _from_target(node, name, path)
    if target.startswith("judge"):
        yield from (f"{target}.{alias.name}" for alias in node.names)


def test_no_import_cycle_between_layers() -> None:
    assert _cycles(_graph()) == []


def test_no_import_cycle_between_modules() -> None:
    cycles = [sorted(c) for c in _cycles(_module_graph())]
    assert cycles == [], f"modules that import each other: {cycles}"


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [frozenset("abc")]
