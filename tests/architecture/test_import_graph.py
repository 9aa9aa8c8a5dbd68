"""The package's import graph read from the source, not run: every import statement counts, a
function-level one included (only `if TYPE_CHECKING:` blocks, which never run, are left out), so a
lazy import cannot hide a cycle or a layer reaching up.  A name imported from a package that exports its
names on first use (negtui.lazy) counts as an import of the module that defines it, so a cycle through such
a package is seen too.  test_imports_at_run_time.py checks the same layers (layers.py) at run time, in a fresh
interpreter.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

from tests.architecture.layers import layer as _layer

PACKAGE = Path(__file__).resolve().parents[2] / "negtui"

# third-party packages a part of negtui must never import, wherever the import statement stands
UI_AND_SOLVER = ("textual", "pulp", "highspy")
RESEARCH = ("distributed", "dask", "pyarrow", "matplotlib")
THIRD_PARTY: dict[str, tuple[str, ...]] = {
    "scenario": UI_AND_SOLVER + RESEARCH + ("asyncssh", "httpx"),
    # the learned lens's model is arrays the engine reads in numpy; scikit-learn trains it (negtui.learn) alone
    "engine": UI_AND_SOLVER + RESEARCH + ("asyncssh", "httpx", "networkx", "sklearn"),
    "generator": UI_AND_SOLVER + RESEARCH + ("asyncssh", "httpx"),
    "seats": UI_AND_SOLVER + RESEARCH + ("asyncssh", "httpx"),
    "record": UI_AND_SOLVER + RESEARCH + ("asyncssh", "httpx"),
    "agents": ("textual", "pulp", "highspy") + RESEARCH + ("asyncssh",),  # httpx: llm seats, imported on use
    "coach": UI_AND_SOLVER + RESEARCH + ("asyncssh", "httpx"),
    "play": UI_AND_SOLVER + RESEARCH + ("asyncssh", "httpx"),
    "table": UI_AND_SOLVER + RESEARCH + ("asyncssh", "httpx"),
    "welfare": ("textual",) + RESEARCH + ("asyncssh", "httpx"),
    "sweep": ("textual", "asyncssh", "httpx", "sklearn"),
    "learn": UI_AND_SOLVER + ("asyncssh", "httpx", "distributed", "dask", "matplotlib"),
    "tui": RESEARCH + ("asyncssh", "pulp", "highspy"),  # the MILP runs in a worker process
    # the class export draws with matplotlib, imported inside the export alone (`negtui serve` never loads it)
    "classroom": UI_AND_SOLVER + ("distributed", "dask", "pyarrow", "httpx"),
    "console": RESEARCH + ("pulp", "highspy", "asyncssh", "httpx"),  # its plot is text
    # role sheets and teaching notes: the engine, the bots and the welfare solver (through negtui.welfare), Jinja2
    "cases": UI_AND_SOLVER + RESEARCH + ("asyncssh", "httpx"),
}


def _module(package: Path, path: Path) -> str:
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _runs(node: ast.AST) -> bool:
    """False for an `if TYPE_CHECKING:` test (its body never runs)."""
    test = getattr(node, "test", None)
    return not (isinstance(node, ast.If) and (
        (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
        or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")))


def _imported(tree: ast.AST, module: str, package: bool, typing: bool = False) -> list[tuple[str, int]]:
    """(dotted name, line) of every import statement that can run, at any depth (`typing`: those of
    `if TYPE_CHECKING:` blocks too)."""
    out: list[tuple[str, int]] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if not typing and not _runs(child):
                for alt in child.orelse:  # type: ignore[attr-defined]
                    visit_one(alt)
                continue
            visit_one(child)

    def visit_one(node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            out.extend((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the module's own package up
                here = module.split(".") if package else module.split(".")[:-1]
                here = here[: len(here) - node.level + 1]
                base = ".".join(here + ([base] if base else []))
            # `from p import y`: module p.y where there is one, else a name p defines (resolved in _read)
            out.extend((f"{base}.{alias.name}", node.lineno) for alias in node.names)
        visit(node)

    visit(tree)
    return out


def _lazy_homes(tree: ast.AST) -> dict[str, str]:
    """A lazy package's exports (`lazy_exports(globals(), {module: (names…)})`): name -> the module defining it."""
    homes: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "lazy_exports" and len(node.args) == 2 \
                and isinstance(node.args[1], ast.Dict):
            for key, value in zip(node.args[1].keys, node.args[1].values):
                if isinstance(key, ast.Constant) and isinstance(value, ast.Tuple):
                    homes.update({elt.value: key.value for elt in value.elts if isinstance(elt, ast.Constant)})
    return homes


def _read(package: Path = PACKAGE, typing: bool = False,
          ) -> tuple[set[str], dict[str, dict[str, int]], dict[str, set[str]]]:
    """The package's modules; per module, the package's modules it imports (the deepest module each
    imported name reaches, through a lazy package's exports to the module that defines the name, with the
    line) and the third-party top-level packages it imports."""
    paths = {_module(package, p): p for p in sorted(package.rglob("*.py"))}
    trees = {name: ast.parse(path.read_text(), str(path)) for name, path in paths.items()}
    homes = {name: found for name, tree in trees.items() if paths[name].name == "__init__.py"
             and (found := _lazy_homes(tree))}
    inner: dict[str, dict[str, int]] = {}
    outer: dict[str, set[str]] = {}
    for name, path in paths.items():
        inner[name], outer[name] = {}, set()
        for dotted, line in _imported(trees[name], name, path.name == "__init__.py", typing):
            if dotted.split(".")[0] != package.name:
                outer[name].add(dotted.split(".")[0])
                continue
            base, _, last = dotted.rpartition(".")
            if base in homes and last in homes[base]:  # a lazy package's export: its module is what is imported
                dotted = homes[base][last]
            parts = dotted.split(".")
            while parts and ".".join(parts) not in paths:
                parts.pop()
            target = ".".join(parts)
            if target != name:
                inner[name].setdefault(target, line)
    return set(paths), inner, outer


MODULES, IMPORTS, THIRD = _read()


def _part(module: str) -> str:
    """The package (or top-level module) of negtui a module belongs to: engine, tui, datadir, …"""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_every_part_of_the_package_has_a_layer() -> None:
    for module in MODULES:
        if _part(module):
            _layer(_part(module))


def _cycles(imports: dict[str, dict[str, int]]) -> list[str]:
    """One loop of every strongly connected group of modules, each step with the line of its import."""
    g = nx.DiGraph((a, b) for a, targets in imports.items() for b in targets)
    out = []
    for group in nx.strongly_connected_components(g):
        if len(group) > 1:
            loop = next(nx.simple_cycles(g.subgraph(group)))
            out.append(" -> ".join(f"{m} (line {imports[m][loop[(k + 1) % len(loop)]]})"
                                   for k, m in enumerate(loop)) + f" -> {loop[0]}")
    return out


def test_no_import_cycle_between_modules() -> None:
    assert _cycles(IMPORTS) == []


@pytest.mark.slow
def test_no_cycle_even_through_names_imported_for_type_hints() -> None:
    """A module that names another's types for its hints depends on it as a reader follows it: two modules
    that name each other read as one, whatever runs.  What one needs of the other is a Protocol of its own
    (engine.anticipation's Valuation, console.host's ConsoleHost)."""
    assert _cycles(_read(typing=True)[1]) == []


def test_a_cycle_hidden_in_a_function_is_found(tmp_path: Path) -> None:
    """What the check exists for: two modules that import each other, one of them only when a function
    runs (a run-time check imports one and sees nothing wrong); a TYPE_CHECKING import is no cycle."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "low.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.high import H\n\n"
                                "def f():\n    from pkg import high\n    return high\n")
    (pkg / "high.py").write_text("from pkg.low import f\nimport numpy\n")
    (pkg / "typed.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pkg.high\n")
    modules, imports, third = _read(pkg)
    assert modules == {"pkg", "pkg.low", "pkg.high", "pkg.typed"}
    assert imports["pkg.low"] == {"pkg.high": 6} and imports["pkg.typed"] == {} and third["pkg.high"] == {"numpy"}
    assert _cycles(imports) == ["pkg.low (line 6) -> pkg.high (line 1) -> pkg.low"] or \
        _cycles(imports) == ["pkg.high (line 1) -> pkg.low (line 6) -> pkg.high"]


@pytest.mark.parametrize("part", sorted({_part(m) for m in MODULES} - {""}))
def test_a_part_imports_only_the_layers_below_it(part: str) -> None:
    mine = _layer(part)
    bad = sorted(f"{m} imports {t} (line {line})" for m, targets in IMPORTS.items() if _part(m) == part
                 for t, line in targets.items() if _part(t) and _part(t) != part and _layer(_part(t)) <= mine)
    assert bad == []


@pytest.mark.parametrize("part", sorted(THIRD_PARTY))
def test_a_part_never_imports_what_it_must_not(part: str) -> None:
    bad = sorted(f"{m} imports {pkg}" for m, pkgs in THIRD.items() if _part(m) == part
                 for pkg in pkgs if pkg in THIRD_PARTY[part])
    assert bad == []


def test_the_check_reads_function_level_imports() -> None:
    """The point of reading the source: the command line imports the app only inside `open_app`."""
    assert "negtui.tui.app" in IMPORTS["negtui.cli.common"]


def test_a_cycle_through_a_lazy_package_is_found(tmp_path: Path) -> None:
    """`from pkg import thing`, where pkg's __init__ only says which module defines `thing` (negtui.lazy):
    the import is of that module, so a loop between two modules of one lazy package is a cycle."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from pkg.lazy import lazy_exports\n__getattr__, __dir__ = lazy_exports("
                                     "globals(), {'pkg.a': ('A',), 'pkg.b': ('B',)})\n")
    (pkg / "lazy.py").write_text("def lazy_exports(namespace, where):\n    return None, None\n")
    (pkg / "a.py").write_text("from pkg import B\nA = 1\n")
    (pkg / "b.py").write_text("def f():\n    from pkg import A\n    return A\nB = 2\n")
    _, imports, _ = _read(pkg)
    assert imports["pkg.a"] == {"pkg.b": 1} and imports["pkg.b"] == {"pkg.a": 2}
    assert len(_cycles(imports)) == 1
    assert "negtui.engine.negotiation" in IMPORTS["negtui.engine.turns"]  # within the engine too
