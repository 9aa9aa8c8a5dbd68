"""negtui reads no private attribute of Rich's or Textual's objects: a private name can change or vanish in any
release, so an upgrade of either would break us without a word.  A read is `x._name` where Rich or Textual
defines `_name` on its objects and no class of negtui does (negtui's own `self._name` is its business).

The reads below are known and named, each to be replaced by public API; nothing may join them."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import rich
import textual

PACKAGE = Path(__file__).resolve().parents[2] / "negtui"

KNOWN = {  # file under negtui/ -> the private names of Textual's it still reads
    "tui/screen_base.py": {"_compositor", "_batch_count", "_prune", "_dirty_widgets", "_mounted_event",
                           "_layout_widgets", "_dirty_regions", "_repaint_regions", "_parent",
                           "_exchange_repaint_regions"},  # a resized widget's repaint the layout already drew
    "tui/screens/modal.py": {"_compositor", "_render_chops"},
    "tui/stylesheet.py": {"_EXCLUDE_PSEUDO_CLASSES_FROM_CACHE", "_get_default_css", "_variables", "_selector_names",
                          "_id", "_process_component_classes", "_classes", "_css_bases"},
    "tui/widgets/options.py": {"_line_cache"},
}


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _trees(root: Path) -> Iterator[tuple[Path, ast.AST]]:
    for path in sorted(root.rglob("*.py")):
        try:
            yield path, ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError):  # a template or a test fixture among a library's files
            continue


def _defined(root: Path) -> set[str]:
    """Private names the package's objects carry: attributes it assigns (`x._a = …`) and members of its
    classes (methods, class attributes)."""
    names = set()
    for _path, tree in _trees(root):
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and _private(node.attr):
                names.add(node.attr)
            elif isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                        names.add(item.name)
                    targets = item.targets if isinstance(item, ast.Assign) else \
                        [item.target] if isinstance(item, ast.AnnAssign) else []
                    names.update(t.id for t in targets if isinstance(t, ast.Name))
    return {n for n in names if _private(n)}


def _other_modules(tree: ast.AST) -> set[str]:
    """Names a module binds to modules other than Rich's and Textual's (`os._exit` is no object of theirs)."""
    return {alias.asname or alias.name.partition(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
            for alias in node.names if alias.name.partition(".")[0] not in ("rich", "textual")}


def _reads(package: Path) -> dict[str, set[str]]:
    """file -> the private names of Rich's and Textual's objects it reads."""
    theirs = _defined(Path(rich.__file__).parent) | _defined(Path(textual.__file__).parent)
    theirs -= _defined(PACKAGE)
    found: dict[str, set[str]] = {}
    for path, tree in _trees(package):
        modules = _other_modules(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Store) and node.attr in theirs \
                    and not (isinstance(node.value, ast.Name) and node.value.id in modules):
                found.setdefault(path.relative_to(package).as_posix(), set()).add(node.attr)
    return found


def test_negtui_reads_no_private_attribute_of_rich_or_textual() -> None:
    reads = _reads(PACKAGE)
    new = {f: sorted(names - KNOWN.get(f, set())) for f, names in reads.items() if names - KNOWN.get(f, set())}
    assert new == {}


def test_the_scan_sees_a_read_of_a_private_style_attribute(tmp_path: Path) -> None:
    """The key bar once read `Style._meta` to skip unpickling a style's meta: a read like it is found, and
    negtui's own private names are not."""
    (tmp_path / "bar.py").write_text("def clicks(style, bar):\n    return style._meta is not None, bar._drawn\n",
                                     encoding="utf-8")
    assert _reads(tmp_path) == {"bar.py": {"_meta"}}
