"""The bundled scenario library: where it lives and what is in it."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

from negtui.scenario.io import ScenarioError, load_scenario


def bundled_root() -> Path:
    """The `scenarios/` folder shipped beside the package."""
    return Path(__file__).resolve().parents[2] / "scenarios"


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
    """Every valid scenario (or HNC topfile) under root, by folder then file name; invalid files skipped."""
    out = []
    for f in sorted(root.rglob("*.json")):
        try:
            sc = load_scenario(f)
        except ScenarioError:
            continue
        kind = f.relative_to(root).parts[0] if len(f.relative_to(root).parts) > 1 else "other"
        out.append(Entry(sc.name, str(f), kind, len(sc.players), sum(len(p.actions) for p in sc.players),
                         len(sc.goals), _first_sentence(sc.description or sc.lesson)))
    return out
