"""Packages whose names are imported on first use (negtui.lazy): what type checkers read, what runs and
what `__all__` promises are the same names, each the object of the module it is said to come from."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "negtui"
LAZY = sorted(p.parent for p in PACKAGE.rglob("__init__.py") if "lazy_exports(" in p.read_text())


def _checked_names(tree: ast.Module) -> dict[str, str]:
    """Names imported under `if TYPE_CHECKING:`, and their modules."""
    out = {}
    for node in tree.body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for imp in node.body:
                assert isinstance(imp, ast.ImportFrom) and imp.module
                out.update({alias.name: imp.module for alias in imp.names})
    return out


def test_the_lazy_packages_are_found():
    assert {p.name for p in LAZY} >= {"engine", "agents", "coach"}


@pytest.mark.parametrize("folder", LAZY, ids=lambda p: p.name)
def test_what_type_checkers_read_is_what_runs(folder: Path):
    name = "negtui." + folder.name if folder.parent == PACKAGE else ".".join(folder.relative_to(PACKAGE.parent).parts)
    checked = _checked_names(ast.parse((folder / "__init__.py").read_text()))
    package = importlib.import_module(name)
    assert sorted(checked) == sorted(package.__all__)
    for export, module in checked.items():
        assert getattr(package, export) is getattr(importlib.import_module(module), export), export
    with pytest.raises(AttributeError):
        package.no_such_name  # noqa: B018
