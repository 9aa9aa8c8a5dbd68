"""No function of negtui runs past 80 lines, from its `def` to its last line (docstring and comments
included): a longer one does several things, and each of them wants a name of its own.  Read from the
source, so a function nested in another or a method counts as well."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "negtui"
LONGEST = 80

# folders whose functions are not held to it yet, each with why; keep this short (empty: every folder is)
NOT_YET: dict[str, str] = {}


def long_functions(package: Path = PACKAGE, longest: int = LONGEST, not_yet: dict[str, str] = NOT_YET) -> list[str]:
    """`path:line name (n lines)` of every function longer than `longest` lines outside the folders NOT_YET names."""
    out = []
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package).as_posix()
        if any(rel.startswith(folder) for folder in not_yet):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > longest:
                    out.append(f"negtui/{rel}:{node.lineno} {node.name} ({lines} lines)")
    return out


def test_no_function_is_longer_than_80_lines() -> None:
    too_long = long_functions()
    assert not too_long, (f"functions over {LONGEST} lines: split each by what it does\n  " + "\n  ".join(too_long))


def test_the_count_runs_from_the_def_to_the_last_line_of_nested_functions_and_methods(tmp_path: Path) -> None:
    def body(indent: int) -> str:
        return "".join(f"{' ' * indent}x{k} = {k}\n" for k in range(LONGEST - 1))

    (tmp_path / "fits.py").write_text("def fits():\n" + body(4))  # the def and 79 lines: 80
    (tmp_path / "nested.py").write_text("class C:\n    def m(self):\n        async def inner():\n" + body(12)
                                        + "            return 1\n        return inner\n")
    (tmp_path / "sweep").mkdir()
    (tmp_path / "sweep" / "old.py").write_text("def old():\n" + body(4) + "    y = 1\n    z = 2\n")
    found = long_functions(tmp_path, not_yet={"sweep/": "a folder let off, as one may be for a while"})
    assert found == [f"negtui/nested.py:2 m ({LONGEST + 3} lines)", f"negtui/nested.py:3 inner ({LONGEST + 1} lines)"]
