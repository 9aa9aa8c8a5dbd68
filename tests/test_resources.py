"""Nothing grows without bound and nothing outlives its time: engine caches within their memory budget,
the exact solver sized against the memory at hand before any work, welfare solves within their time
limit, and negtui's child processes gone with their parent."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import negtui.engine.game as game_module
import negtui.engine.valuation as valuation_module
from negtui.agents import Seating
from negtui.engine import PAPER, ExactTooLarge, Negotiation, PortableGame, TurnDriver, compile_game
from negtui.engine.exact import check_size, memory_needed
from negtui.generator import GeneratorParams, generate
from negtui.scenario import write_scenario
from negtui.seats import Seat
from tests.paths import TWENTY_TWO
from tests.waiting import alive, wait_for


def test_engine_caches_stay_within_their_budget(monkeypatch):
    """On a game whose per-pair goal views and state data outgrow a (lowered) budget, the caches never
    hold more than the budget, and the game still plays to the end."""
    monkeypatch.setattr(game_module, "INFO_CACHE_BYTES", 400_000)
    monkeypatch.setattr(game_module, "VIEW_CACHE_BYTES", 300_000)
    monkeypatch.setattr(valuation_module, "_CANDIDATE_CACHE_BYTES", 500_000)
    sc = generate(GeneratorParams(players=40, actions=3, goals=120, factors=5, rounds=1, seed=5))
    neg = Negotiation.from_scenario(sc, PAPER)
    g = neg.game
    seats = [Seat.lens("lower", partner="greedy")] * g.n
    seating = Seating(neg, seats)
    driver = TurnDriver(neg, seating.agents)
    peak = {"info": 0, "views": 0, "candidates": 0}

    def turn(_: object) -> None:
        peak["info"] = max(peak["info"], g.info_cache.bytes)
        peak["views"] = max(peak["views"], g.view_cache.bytes)
        peak["candidates"] = max(peak["candidates"], seating.valuation._candidates.bytes)
        # the budget is what the cache holds at most, and it was needed: without the bound it would pass it
        assert g.info_cache.bytes <= 400_000 and g.view_cache.bytes <= 300_000

    driver.play_out(on_turn=turn)
    assert driver.over
    one_view = game_module._views_bytes(g.pair_views(0, 1))
    assert one_view * g.n * (g.n - 1) / 2 > 300_000  # every pair's views would not fit
    assert peak["views"] > 150_000 and peak["info"] > 200_000


def test_the_exact_solver_refuses_up_front_with_its_estimate():
    sc = generate(GeneratorParams(players=14, actions=1, goals=15, factors=5, rounds=8, seed=1))
    game = compile_game(sc, PAPER)
    need = memory_needed(game)
    assert 200 * 2**20 < need < 400 * 2**20
    with pytest.raises(ExactTooLarge, match=r"needs about 0\.\d\d GiB of memory .* and 0\.10 GiB is available"):
        check_size(game, memory=100 * 2**20)
    assert check_size(game, memory=need + 1) == need


def _peak_rss_of(args: list[str], limit_as: int | None = None) -> tuple[subprocess.CompletedProcess, int]:
    """Run a command in a fresh intermediate process (so RUSAGE_CHILDREN is this command's alone)."""
    code = textwrap.dedent(f"""
        import json, resource, subprocess, sys
        def limit():
            if {limit_as!r} is not None:
                resource.setrlimit(resource.RLIMIT_AS, ({limit_as!r}, {limit_as!r}))
        p = subprocess.run({args!r}, capture_output=True, text=True, preexec_fn=limit)
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
        print(json.dumps({{"code": p.returncode, "out": p.stdout, "err": p.stderr, "peak": peak}}))
    """)
    out = json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                    check=True).stdout)
    return subprocess.CompletedProcess(args, out["code"], out["out"], out["err"]), out["peak"]


@pytest.mark.slow
def test_a_solve_stays_within_its_estimate_and_one_too_large_is_refused_under_a_memory_cap(tmp_path):
    small = tmp_path / "s14.json"
    write_scenario(generate(GeneratorParams(players=14, actions=1, goals=15, factors=5, rounds=8, seed=1)), small)
    res, peak = _peak_rss_of([sys.executable, "-m", "negtui.cli", "solve", str(small), "--json"])
    assert res.returncode == 0, res.stderr
    estimate = json.loads(res.stdout)["memory_estimate"]
    assert peak <= 1.2 * estimate, (peak, estimate)
    big = tmp_path / "s18.json"  # 145 turns x 2^18 masks: 38 M states, under the state limit; about 5.6 GiB
    write_scenario(generate(GeneratorParams(players=18, actions=1, goals=15, factors=5, rounds=8, seed=1)), big)
    started = time.monotonic()
    res, peak = _peak_rss_of([sys.executable, "-m", "negtui.cli", "solve", str(big)], limit_as=int(2.5 * 2**30))
    assert res.returncode == 2 and "Traceback" not in res.stderr, res.stderr
    assert "exact solving this game needs about 5." in res.stderr and "GiB is available" in res.stderr
    assert time.monotonic() - started < 20 and peak < 500 * 2**20  # refused before any of the work


@pytest.fixture(scope="module")
def wide_game(tmp_path_factory) -> Path:
    """150 players: a Nash solve bounds every player's payoff first, one MILP each."""
    path = tmp_path_factory.mktemp("wide") / "wide.json"
    write_scenario(generate(GeneratorParams(players=150, actions=2, goals=200, factors=5, rounds=1, seed=2)), path)
    return path


def test_a_nash_solve_keeps_its_time_limit(wide_game):
    from negtui.scenario import load_scenario
    from negtui.welfare import WelfareJob, WelfareOptions, WelfareRequest

    started = time.monotonic()
    game = PortableGame(load_scenario(wide_game).model_dump(mode="json"), PAPER.as_dict())
    job = WelfareJob(WelfareRequest(game, 0,
                                    WelfareOptions(objective="nash", time_limit=2.0)))
    res = job.result(timeout=60)
    assert res.seconds <= 3.0, res  # one model's build past the limit at most
    assert time.monotonic() - started < 10
    assert res.status in ("no solution", "feasible") and not res.proven_optimal
    if res.status == "no solution":
        assert "time limit of 2 s ran out" in res.message


def _cpu_seconds(pid: int) -> float:
    """The process's CPU time so far (user and system), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _mapped(pid: int, library: str) -> bool:
    try:
        return library in Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return False


@pytest.mark.parametrize("kind", ["welfare", "bots"])
def test_children_do_not_outlive_a_parent_killed_with_sigkill(wide_game, kind):
    code = textwrap.dedent(f"""
        import sys, time
        from negtui.engine import PAPER, Negotiation, PortableGame
        from negtui.scenario import load_scenario
        sc = load_scenario({str(wide_game)!r})
        if {kind!r} == "welfare":
            from negtui.welfare import WelfareJob, WelfareOptions, WelfareRequest
            job = WelfareJob(WelfareRequest(PortableGame(sc.model_dump(mode="json"), PAPER.as_dict()), 0,
                                            WelfareOptions(objective="nash", time_limit=120)))
            pid = job._proc.pid
        else:
            from negtui.agents.process import BotProcess, RemoteError, RemoteLensBot
            from negtui.seats import Seat
            neg = Negotiation.from_scenario(sc, PAPER)
            n = neg.game.n
            proc = BotProcess(neg, [Seat.lens("upper", sims=100000)] * (n - 1) + [Seat.human()])
            pid = proc._proc.pid
            try:  # answered at once, by a child past its start-up (its game and seats set up)
                proc.request("partner", n - 1, neg.initial_state(), neg)
                sys.exit("a seat without a bot was answered")
            except RemoteError as err:
                assert "has no bot" in str(err), err
            import threading
            threading.Thread(target=lambda: RemoteLensBot(proc, neg, 0, "upper").choose_partner(neg.initial_state()),
                             daemon=True).start()
        print(pid, flush=True)
        time.sleep(120)
    """)
    parent = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    child = None
    try:
        child = int(parent.stdout.readline())
        if kind == "welfare":  # the HiGHS library is loaded once the request is read and the solve begins
            wait_for(lambda: _mapped(child, "libhighs") or not alive(child), "the welfare child at its solve")
        else:  # the expensive request is sent: the child works on it
            start = _cpu_seconds(child)
            wait_for(lambda: not alive(child) or _cpu_seconds(child) - start >= 0.3,
                      "the bot child at work (0.3 s of CPU on the request)")
        assert alive(child)  # the child is busy now
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        wait_for(lambda: not alive(child), f"the {kind} process to end with its parent", timeout=5)
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
        if child is not None and alive(child):
            os.kill(child, signal.SIGKILL)  # not left behind by a failing run


def test_the_twenty_two_party_game_plays_with_bounded_caches():
    """The bundled 22-party game fits the default budgets: a guard that the bounds cost no game."""
    from negtui.scenario import load_scenario

    neg = Negotiation.from_scenario(load_scenario(TWENTY_TWO), PAPER)
    driver = TurnDriver(neg, Seating(neg, [Seat.lens("myopic", partner="greedy")] * neg.game.n).agents)
    for _ in range(30):
        driver.step()
    assert neg.game.info_cache.bytes <= game_module.INFO_CACHE_BYTES
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 < 2 * 2**30
