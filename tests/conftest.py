"""Fixtures for every test folder.

- `root`: the repository root (the bundled files themselves are named in paths.py);
- `cli`: runs the `negtui` command line in-process and returns Click's result;
- `server`: a course's table keeper as the training server runs it (tests/keeper.py);
- a test whose call takes over 10 s fails unless it is marked `slow` (tests/slowness.py says how it allows for a
  loaded machine);
- the markers `tmux`, `openssh` and `chromium` skip a test, with the reason, when the tool it drives is not on PATH;
- under pytest-xdist, a test marked `exclusive` runs with no other test beside it (see `pytest_runtest_protocol`);
- the app's pilot helpers: `screen_text(app)` (what the terminal shows now, as plain text), `await
  settle(pilot)` (bot workers finished and their results on the screen), `await wait_until(pilot, cond,
  what)` (poll until `cond()` holds, failing with the screen after a timeout);
- `toy`: tiny random games described independently of the engine, and a plain brute-force reading of the
  specification in docs/design.md and docs/reference.md (exact payoffs, enumeration order, backward
  induction), for the engine, welfare and coach tests.

The toy helpers work on a `ToySpec` — cells numbered player-major, exact arithmetic with Fractions — and
only meet the engine through `ToySpec.scenario()`, which writes an ordinary scenario dict. They are handed
to tests through the `toy` fixture (a namespace), so no test imports this module.
"""

from __future__ import annotations

import fcntl
import io
import shutil
import time
from collections.abc import Callable, Generator
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import combinations
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from click.testing import Result
from rich.console import Console

from negtui.scenario import Scenario, parse_scenario
from tests.paths import ROOT
from tests.slowness import pytest_runtest_makereport  # noqa: F401  (a test over 10 s must be marked slow)
from tests.waiting import wait_for

# marker -> the programs a test so marked runs
TOOLS = {"tmux": ("tmux",), "openssh": ("ssh", "ssh-keygen"), "chromium": ("chromium",)}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip the tests marked `tmux`, `openssh` or `chromium` when their programs are missing (`make tools`
    installs them)."""
    skips = {}
    for marker, programs in TOOLS.items():
        missing = [p for p in programs if shutil.which(p) is None]
        if missing:
            skips[marker] = pytest.mark.skip(reason=f"{' and '.join(missing)} not installed (`make tools` installs it)")
    for item in items:
        for marker, skip in skips.items():
            if item.get_closest_marker(marker) is not None:
                item.add_marker(skip)


def _shared_folder(config: pytest.Config) -> Path | None:
    """Under pytest-xdist, the run's temporary folder, shared by its workers (each worker's --basetemp is a
    folder in it); None in a run without workers."""
    if not hasattr(config, "workerinput") or not config.option.basetemp:
        return None
    return Path(config.option.basetemp).parent


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, object, object]:
    """A readers-writer lock over the workers: every test holds the lock shared from its set-up to its tear-down,
    a test marked `exclusive` holds it alone. The gate makes a waiting exclusive test go next: no shared holder
    gets in behind it."""
    folder = _shared_folder(item.config)
    if folder is None:
        return (yield)
    alone = item.get_closest_marker("exclusive") is not None
    with open(folder / "tests.gate", "a") as gate, open(folder / "tests.lock", "a") as lock:
        fcntl.flock(gate, fcntl.LOCK_EX)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        finally:
            if not alone:
                fcntl.flock(gate, fcntl.LOCK_UN)
        try:
            return (yield)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
            if alone:
                fcntl.flock(gate, fcntl.LOCK_UN)


@pytest.fixture(scope="session")
def root() -> Path:
    """The repository root."""
    return ROOT


@pytest.fixture(scope="session")
def cli() -> Callable[..., Result]:
    """`cli("autoplay", path, "--json")` runs `negtui autoplay PATH --json` in-process and returns the
    result (exit_code, stdout, stderr, output); every argument is passed as a string, keywords go to
    CliRunner.invoke (env=...)."""
    import typer.testing
    from typer.testing import CliRunner

    from negtui.cli import app

    if not hasattr(typer.testing._get_command, "cache_info"):
        # typer builds the whole command tree from the functions' signatures on every invoke (about 70 ms for
        # negtui's); the tree is the same each time, so it is built once per test process
        typer.testing._get_command = lru_cache(maxsize=None)(typer.testing._get_command)
    runner = CliRunner()

    def invoke(*args: object, **kwargs: object) -> Result:
        return runner.invoke(app, [str(a) for a in args], **kwargs)

    return invoke


@pytest.fixture
def server(tmp_path: Path) -> Generator[Any]:
    """A course's table keeper as the training server runs it (tests/keeper.py), for the tests of the server, the
    trainee's app and the trainer's console; a test folder that means another server names its own fixture."""
    from tests.keeper import COURSE, Server

    course = tmp_path / "course.toml"
    course.write_text(COURSE)
    s = Server(tmp_path / "data", course)
    yield s
    s.stop()


# --- tiny games, without the engine -----------------------------------------------------------------------

TIE = 1e-9  # docs/design.md §2: tolerance of the partner's acceptance and of proposer-value ties (paper rules)


@dataclass(frozen=True)
class ToyGoal:
    cells: tuple[int, ...]  # global cell numbers (player-major)
    kind: str  # "linear" | "all_or_nothing"
    tau: int | None  # None: all required cells
    values: tuple[int, ...]  # per player

    @property
    def d(self) -> int:
        return len(self.cells)

    @property
    def threshold(self) -> int:
        return self.tau if self.tau is not None else self.d


@dataclass(frozen=True)
class ToySpec:
    m: tuple[int, ...]
    goals: tuple[ToyGoal, ...]
    exclusive: tuple[tuple[int, ...], ...]
    schedule: tuple[int, ...]
    budget: int
    unilateral: bool

    @property
    def n(self) -> int:
        return len(self.m)

    @property
    def S(self) -> int:
        return sum(self.m)

    @property
    def T(self) -> int:
        return len(self.schedule)

    def offset(self, i: int) -> int:
        return sum(self.m[:i])

    def owner(self, c: int) -> int:
        for i in range(self.n):
            if c < self.offset(i + 1):
                return i
        raise IndexError(c)

    def player_cells(self, i: int) -> int:
        return ((1 << self.m[i]) - 1) << self.offset(i)

    def scenario_dict(self) -> dict:
        def ref(c: int) -> dict:
            i = self.owner(c)
            return {"player": f"P{i}", "action": f"a{c - self.offset(i)}"}

        goals = []
        for j, g in enumerate(self.goals):
            goal = {"id": f"g{j}", "kind": g.kind, "requires": [ref(c) for c in g.cells],
                    "values": {f"P{i}": v for i, v in enumerate(g.values) if v != 0}}
            if g.tau is not None:
                goal["threshold"] = g.tau
            goals.append(goal)
        return {
            "format": "negtui-scenario/1",
            "name": "toy",
            "players": [{"id": f"P{i}", "actions": [{"id": f"a{a}"} for a in range(mi)]}
                        for i, mi in enumerate(self.m)],
            "goals": goals,
            "exclusive": [[ref(c) for c in grp] for grp in self.exclusive],
            "protocol": {"rounds": 1, "budget": self.budget, "schedule": [f"P{p}" for p in self.schedule],
                         "unilateral": self.unilateral},
        }

    def scenario(self) -> Scenario:
        return parse_scenario(self.scenario_dict())


# --- the game, read literally -------------------------------------------------------------------------

def popcount(x: int) -> int:
    return bin(x).count("1")


def satisfaction(g: ToyGoal, mask: int, linear: bool = False) -> Fraction:
    c = sum(1 for cell in g.cells if mask >> cell & 1)
    if linear:
        return Fraction(c, g.d)
    if g.kind == "all_or_nothing":
        return Fraction(int(c >= g.threshold))
    return min(Fraction(1), Fraction(c, g.threshold))


def payoff(spec: ToySpec, mask: int, linear: bool = False) -> tuple[Fraction, ...]:
    s = [satisfaction(g, mask, linear) for g in spec.goals]
    return tuple(sum((g.values[i] * sj for g, sj in zip(spec.goals, s)), Fraction(0)) for i in range(spec.n))


def consistent(spec: ToySpec, mask: int) -> bool:
    """At most one committed cell in every exclusive set."""
    return all(sum(mask >> c & 1 for c in grp) <= 1 for grp in spec.exclusive)


def own_options(spec: ToySpec, i: int, mask: int) -> list[int]:
    """docs/reference.md §3.5: rows x ∨ 1_S for S ⊆ free cells, |S| ≤ budget, ascending as absolute 0/1 tuples."""
    off = spec.offset(i)
    free = [a for a in range(spec.m[i]) if not mask >> (off + a) & 1]
    subsets = [s for r in range(min(spec.budget, len(free)) + 1) for s in combinations(free, r)]

    def absolute_row(s: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(int(bool(mask >> (off + a) & 1) or a in s) for a in range(spec.m[i]))

    subsets.sort(key=absolute_row)
    return [sum(1 << (off + a) for a in s) for s in subsets]


def joint_offers(spec: ToySpec, p: int, q: int, mask: int) -> list[int]:
    """New-cell bitmasks of every feasible offer of p to q, in enumeration order (p outer, q inner)."""
    if q == p:
        offers = own_options(spec, p, mask)
    else:
        qs = own_options(spec, q, mask)
        offers = [x | y for x in own_options(spec, p, mask) for y in qs]
    return [o for o in offers if consistent(spec, mask | o)]


def partners(spec: ToySpec, p: int) -> list[int]:
    return [q for q in range(spec.n) if q != p or spec.unilateral]


def consistent_masks(spec: ToySpec) -> list[int]:
    return [mask for mask in range(1 << spec.S) if consistent(spec, mask)]


class BruteExact:
    """Memoised backward induction over (t, mask), straight from the spec.

    reference rules (docs/reference.md §5.1): incumbent = reject; for q = 0..N-1 keep, among offers the partner
    accepts (V_acc[q] >= V_rej[q], exact compare), the FIRST with the strictly largest V_acc[p]; it replaces
    the incumbent only if strictly better for p.
    paper rules (docs/design.md §2): partner accepts within 1e-9; the proposer maximises its value; values within
    1e-9 of the best tie, and ties go to the proposer's higher payoff right after the move (`realised`, the
    paper rules' `exact_ties_realised`), then to rejection, then fewer new cells, then the lowest partner,
    then the lowest enumeration index.
    """

    def __init__(self, spec: ToySpec, rules: str, linear: bool = False, realised: bool | None = None):
        self.spec, self.rules, self.linear = spec, rules, linear
        self.realised = rules == "paper" if realised is None else realised
        self.value = lru_cache(maxsize=None)(self._value)

    def _value(self, t: int, mask: int) -> tuple[tuple[Fraction, ...], tuple[int, int] | None]:
        spec = self.spec
        if t >= spec.T:
            return payoff(spec, mask, self.linear), None
        p = spec.schedule[t]
        rej = self.value(t + 1, mask)[0]
        if self.rules == "reference":
            inc, move = rej, None
            for q in partners(spec, p):
                best = None
                for o in joint_offers(spec, p, q, mask):
                    child = self.value(t + 1, mask | o)[0]
                    if child[q] >= rej[q] and (best is None or child[p] > best[0][p]):
                        best = (child, o)
                if best is not None and best[0][p] > inc[p]:
                    inc, move = best[0], (q, best[1])
            return inc, move
        def now(mk: int) -> Fraction:  # the proposer's payoff right after the move
            return payoff(spec, mk, self.linear)[p]

        moves = [(rej[p], now(mask), 0, -1, -1, rej, None)]
        for q in partners(spec, p):
            for idx, o in enumerate(joint_offers(spec, p, q, mask)):
                child = self.value(t + 1, mask | o)[0]
                if child[q] >= rej[q] - TIE:
                    moves.append((child[p], now(mask | o), popcount(o), q, idx, child, (q, o)))
        top = max(mv[0] for mv in moves)
        near = [mv for mv in moves if mv[0] >= top - TIE]
        if self.realised:
            most = max(mv[1] for mv in near)
            near = [mv for mv in near if mv[1] >= most - TIE]
        best = min(near, key=lambda mv: mv[2:5])
        return best[5], best[6]

    @property
    def payoffs(self) -> tuple[Fraction, ...]:
        return self.value(0, 0)[0]

    def path(self, t: int = 0, mask: int = 0) -> list[tuple[int | None, int]]:
        """(partner or None, new cells) per turn along the subgame-perfect path."""
        out = []
        for u in range(t, self.spec.T):
            move = self.value(u, mask)[1]
            if move is None:
                out.append((None, 0))
            else:
                out.append(move)
                mask |= move[1]
        return out


# --- random tiny games ----------------------------------------------------------------------------------

def random_spec(rng: np.random.Generator, rules: str, *, exclusions: bool = False, thresholds: bool = False,
                players: tuple[int, int] = (2, 3), rounds: tuple[int, int] = (1, 2),
                allow_forbid_unilateral: bool = False) -> ToySpec:
    """2–3 players with 1–2 actions, 2–4 goals mixing kinds, 1–2 rounds.

    Under reference rules goals require 1, 2 or 4 cells, so every payoff is a dyadic rational that float64
    holds exactly and the reference's exact float comparisons agree with exact arithmetic."""
    n = int(rng.integers(players[0], players[1] + 1))
    m = tuple(int(rng.integers(1, 3)) for _ in range(n))
    S = sum(m)
    goals = []
    for _ in range(int(rng.integers(2, 5))):
        sizes = [s for s in (1, 2, 4) if s <= S] if rules == "reference" else list(range(1, min(S, 4) + 1))
        size = int(rng.choice(sizes))
        cells = tuple(sorted(int(c) for c in rng.choice(S, size=size, replace=False)))
        kind = "all_or_nothing" if rng.random() < 0.4 else "linear"
        tau = None
        if thresholds and size > 1 and rng.random() < 0.5:
            tau = int(rng.integers(1, size + 1))
        values = tuple(int(v) if rng.random() < 0.8 else 0 for v in rng.integers(-10, 11, size=n))
        goals.append(ToyGoal(cells, kind, tau, values))
    exclusive: list[tuple[int, ...]] = []
    if exclusions and S >= 2:
        for _ in range(int(rng.integers(1, 3))):
            k = int(rng.integers(2, min(S, 3) + 1))
            exclusive.append(tuple(sorted(int(c) for c in rng.choice(S, size=k, replace=False))))
    schedule: list[int] = []
    for _ in range(int(rng.integers(rounds[0], rounds[1] + 1))):
        schedule += [int(x) for x in rng.permutation(n)]
    budget = 2 if rng.random() < 0.75 else 1
    unilateral = not (allow_forbid_unilateral and rng.random() < 0.3)
    return ToySpec(m, tuple(goals), tuple(exclusive), tuple(schedule), budget, unilateral)


@pytest.fixture(scope="session")
def toy() -> SimpleNamespace:
    return SimpleNamespace(
        ToyGoal=ToyGoal, ToySpec=ToySpec, BruteExact=BruteExact, random_spec=random_spec, payoff=payoff,
        satisfaction=satisfaction, consistent=consistent, own_options=own_options, joint_offers=joint_offers,
        partners=partners, consistent_masks=consistent_masks, popcount=popcount, TIE=TIE,
    )


# --- the app's pilot ------------------------------------------------------------------------------------


def screen_text(app) -> str:
    """What the terminal shows now, as plain text (the same render an SVG screenshot is made from)."""
    w, h = app.size
    console = Console(width=w, height=h, file=io.StringIO(), force_terminal=True, color_system="truecolor",
                      record=True, legacy_windows=False, safe_box=False)
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    return console.export_text()


async def settle(pilot) -> None:
    """Let bot workers finish and their results reach the screen (a worker hands its decision over with
    call_from_thread, which returns once the screen has handled it)."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def wait_until(pilot, cond: Callable[[], bool], what: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}\n{screen_text(pilot.app)}")
        await pilot.pause(0.05)


@pytest.fixture(name="screen_text", scope="session")
def screen_text_fixture():
    return screen_text


@pytest.fixture(name="settle", scope="session")
def settle_fixture():
    return settle


@pytest.fixture(name="wait_until", scope="session")
def wait_until_fixture():
    return wait_until


@pytest.fixture(name="wait_for", scope="session")
def wait_for_fixture():
    """`wait_for(cond, what, timeout=60, seen=None)` (tests/waiting.py): wait for a state, not for a time."""
    return wait_for
