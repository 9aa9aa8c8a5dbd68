"""The package's layers, top to bottom: a part of negtui may import only from the layers below its own,
never beside it.  One table, read by both the source check (test_import_graph.py) and the run-time check
(test_imports_at_run_time.py).

    cli  >  serve  >  trainee, console  >  tui, classroom, cases  >  table, learn  >  play, sweep  >  coach
         >  agents, record, welfare  >  seats, narrate, generator  >  engine, names  >  scenario
         >  datadir, locks, children, lazy, csvcells, pages
"""

from __future__ import annotations

LAYERS: tuple[tuple[str, ...], ...] = (
    ("cli",),
    ("serve",),
    ("trainee", "console"),
    ("tui", "classroom", "cases"),
    ("table", "learn"),
    ("play", "sweep"),
    ("coach",),
    ("agents", "record", "welfare"),
    ("seats", "narrate", "generator"),
    ("engine", "names"),
    ("scenario",),
    ("datadir", "locks", "children", "lazy", "csvcells", "pages"),
)


def layer(part: str) -> int:
    for k, parts in enumerate(LAYERS):
        if part in parts:
            return k
    raise AssertionError(f"negtui.{part} is in no layer: add it to tests/architecture/layers.py")


def not_below(part: str) -> tuple[str, ...]:
    """The parts `part` must not import: every part of its own layer and of the layers above it."""
    mine = layer(part)
    return tuple(p for k, parts in enumerate(LAYERS) if k <= mine for p in parts if p != part)
