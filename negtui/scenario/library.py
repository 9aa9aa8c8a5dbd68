"""The bundled scenario library: where it lives and what is in it."""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path

from negtui.scenario.io import ScenarioError, load_scenario


def bundled_root() -> Path:
    """The `scenarios/` folder shipped beside the package."""
    return Path(__file__).resolve().parents[2] / "scenarios"


def shown_path(path: str | Path) -> str:
    """A scenario's path as results keep it: `scenarios/…` for a bundled one, relative to the working
    folder under it, else as given; so result tables read the same on every machine.  A library name
    (`poison-pill`) is the bundled file it names."""
    p = resolve(path)
    try:
        full, here = p.resolve(), Path.cwd().resolve()
    except OSError:  # a working folder since removed, a path too deep to resolve
        return str(p)
    for root, shown in ((bundled_root(), Path("scenarios")), (here, Path())):
        if full.is_relative_to(root):
            return str(shown / full.relative_to(root))
    return str(p)


@dataclass(frozen=True)
class Entry:
    name: str
    path: str
    kind: str  # the library folder: generated, hnc, teaching, classic
    players: int
    actions: int
    goals: int
    line: str  # the first sentence of the description or lesson

    def as_dict(self) -> dict:
        return asdict(self)


def _first_sentence(text: str) -> str:
    text = " ".join(text.split())
    cut = text.find(". ")
    return text if cut < 0 else text[: cut + 1]


def catalogue(root: Path) -> list[Entry]:
    """Every valid scenario (an HNC topfile, a scoresheet) under root, by folder then file name; invalid files
    skipped: every game that `find` finds by its name.
    Read once while no file under root changes: a course naming a scenario by its name is resolved in
    every session's app on a training server (the fork server reads the library before it forks)."""
    files = sorted([*root.rglob("*.json"), *root.rglob("*.toml")])
    return list(_catalogue(root, tuple((f, _stamp(f)) for f in files)))


def _stamp(f: Path) -> tuple[int, int] | None:
    try:
        st = f.stat()
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


@lru_cache(maxsize=4)
def _catalogue(root: Path, files: tuple[tuple[Path, tuple[int, int] | None], ...]) -> tuple[Entry, ...]:
    out = []
    for f, _ in files:
        try:
            sc = load_scenario(f)
        except ScenarioError:
            continue
        kind = f.relative_to(root).parts[0] if len(f.relative_to(root).parts) > 1 else "other"
        out.append(Entry(sc.name, str(f), kind, len(sc.players), sum(len(p.actions) for p in sc.players),
                         len(sc.goals), _first_sentence(sc.description or sc.lesson)))
    return tuple(out)


def find(name: str, root: Path | None = None) -> Path | None:
    """A bundled scenario by the name `negtui scenarios` lists, or by its file name without `.json` (or
    `.toml`, a scoresheet's)."""
    root = root or bundled_root()
    by_stem = [f for f in sorted([*root.rglob("*.json"), *root.rglob("*.toml")]) if f.stem == name]
    if len(by_stem) == 1:
        return by_stem[0]
    for e in catalogue(root):
        if e.name == name:
            return Path(e.path)
    return None


def near_names(text: str, root: Path | None = None, most: int = 3) -> list[str]:
    """The bundled scenarios whose names (or file names) are close to `text`: what a typo meant."""
    import difflib

    root = root or bundled_root()
    names = {e.name for e in catalogue(root)} | {f.stem for f in [*root.rglob("*.json"), *root.rglob("*.toml")]}
    stem = Path(text).stem if Path(text).suffix in (".json", ".toml") else text
    return difflib.get_close_matches(stem, sorted(names), n=most, cutoff=0.6)


def present(path: Path) -> bool:
    """Whether there is something at `path` for reading to try (a dangling link too).  A name the system
    will not look up (a part over 255 bytes, a NUL, a loop of links) counts as present: reading it then
    says what is wrong, where "not found" would be false."""
    try:
        os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return False
    except (OSError, ValueError):
        return True
    return True


def resolve(text: str | Path, base: Path | None = None) -> Path:
    """Where a scenario named on the command line or in a course is: an existing file (relative to
    `base` if given, else to the bundled library: `cases/….toml`), else a bundled scenario of that name;
    else the path as given (its loading then says it is not found)."""
    p = Path(text)
    candidates = [base / p, p] if base is not None and not p.is_absolute() else [p]
    library = [] if p.is_absolute() else [bundled_root() / p]
    for c in candidates + library:
        if _exists(c):
            return c
    if p.suffix != ".json" and len(p.parts) == 1:
        hit = find(str(p))
        if hit is not None:
            return hit
    return candidates[0]


def _exists(path: Path) -> bool:
    """Path.exists(), except that a name the system will not look up (too long, say) is taken as there:
    reading it then says what is wrong."""
    try:
        return path.exists()
    except (OSError, ValueError):
        return True
