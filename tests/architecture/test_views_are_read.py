"""What the play views offer is read somewhere: a property of `Snapshot` (or of any view in negtui/play/views.py)
that no part of negtui reads is dead weight every screen's snapshot carries and every reader must learn."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "negtui"
VIEWS = PACKAGE / "play" / "views.py"


def _members(tree: ast.Module) -> list[tuple[str, str]]:
    """(class, member) for every method, property and field a class of the module defines (not dunders)."""
    out = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and not item.name.startswith("__"):
                    out.append((node.name, item.name))
                elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    out.append((node.name, item.target.id))
    return out


def test_every_member_of_the_play_views_is_read_somewhere() -> None:
    source = "\n".join(p.read_text(encoding="utf-8") for p in sorted(PACKAGE.rglob("*.py")))
    members = _members(ast.parse(VIEWS.read_text(encoding="utf-8")))
    assert ("Snapshot", "person_proposing") in members  # the scan sees the views' properties
    unread = [f"{cls}.{name}" for cls, name in members if not re.search(rf"\.{re.escape(name)}\b", source)]
    assert unread == []
