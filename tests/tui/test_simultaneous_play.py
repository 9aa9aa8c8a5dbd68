"""People play simultaneous turns in the app (`--rules paper+simultaneous`, docs/simultaneous.md): a person
proposing picks a partner and builds the offer as in a sequential turn, while the bots' offers stay hidden; a
person who is the partner of offers answers each, seeing only those; the turn settles once every answer is in,
and the status line, the headline and the turn log say what became of every offer, void ones with why.  The
record verifies; a simultaneous record replays in the app.

scenarios/teaching/simultaneous-race.json (cells A.fund 0, B.dock 1, C.berth1..4 2-5, D.dock 6; one turn,
proposers A then B): plain greedy bots send A and B both to the port C, whose budget voids the second deal.
The poison pill under the same rules has a person proposing and answering in one turn."""

from __future__ import annotations

import pytest
from textual.widgets import Static

from negtui.seats import Seat
from negtui.tui.app import NegtuiApp
from negtui.tui.screens.debrief import DebriefScreen
from negtui.tui.screens.dialogs import PartnerScreen, RespondScreen
from negtui.tui.screens.replay import ReplayScreen
from negtui.tui.widgets.matrix import CommitmentMatrix
from negtui.tui.widgets.turn_log import TurnLog
from tests.paths import PILL, TEACHING

RACE = TEACHING / "simultaneous-race.json"
SIM = "paper+simultaneous"
BERTH3, BERTH4 = 4, 5
BUDGET_VOID = "C would make 4 new commitments in this turn; the budget is 2"

pytestmark = pytest.mark.asyncio


def bot(lens: str = "myopic") -> Seat:
    return Seat.lens(lens, partner="greedy", sims=4)


def race(tmp_path, record: bool = False, **people: Seat) -> NegtuiApp:
    seats = {pid: people.get(pid, bot()) for pid in "ABCD"}
    return NegtuiApp(RACE, rules=SIM, seats=seats, ask_seats=False, record=record, data_dir=tmp_path)


def flat(text: str) -> str:
    return " ".join(text.split())


async def choose_partner(pilot, app, partner: int) -> None:
    dlg = app.screen
    assert isinstance(dlg, PartnerScreen)
    k = [o.partner for o in dlg.options].index(partner)
    await pilot.press(*["down"] * k, "enter")
    while app.screen is dlg:
        await pilot.pause(0.05)


async def toggle(pilot, app, *cells: int) -> None:
    """The cells into the offer from the matrix, by the key the person uses (enter on the cell)."""
    matrix = app.screen.query_one(CommitmentMatrix)
    g = app.game.neg.game
    for c in cells:
        i = int(g.owner[c])
        matrix.cursor = (c - int(g.offset[i]), i)
        await pilot.press("enter")


async def read_log(pilot, app, wait_until) -> str:
    """The turn log's entries, once the end-of-game screen is closed: the log under the panes of a tall
    terminal, or the pane 3 opens."""
    await wait_until(pilot, lambda: isinstance(app.screen, DebriefScreen), "the debrief")
    await pilot.press("escape")
    await wait_until(pilot, lambda: not isinstance(app.screen, DebriefScreen), "the game screen again")
    tall = app.screen.view.has_class("roomy")
    if not tall:
        await pilot.press("3")
    log = app.screen.query_one("#aside-log" if tall else "#log", TurnLog)
    await wait_until(pilot, lambda: "proposers at once" in log.plain, "the turn in the log")
    return log.plain


@pytest.mark.parametrize("size", [(80, 24), (160, 50)])
async def test_b_offers_the_port_and_the_ports_budget_voids_the_deal(size, screen_text, wait_until, cli, tmp_path):
    app = race(tmp_path, record=True, B=Seat.human())
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen), "B's partner dialog")
        await choose_partner(pilot, app, 2)
        await wait_until(pilot, lambda: "offer to C" in screen_text(app), "the offer builder")
        text = screen_text(app)
        head = text.splitlines()[0]
        assert "▶ A, B: 2 proposers" in head and "turn 1/1" in head and "awaiting offers from A, B" in head
        assert app.game.events == [] and app.game.state.flight.offers == (None, None)  # nothing offered yet
        await toggle(pilot, app, BERTH3, BERTH4)
        await pilot.press("o")
        await wait_until(pilot, lambda: app.game.over, "the turn settled")
        [ev] = app.game.events
        assert [(o.status, o.reason) for o in ev.outcomes] == [("applied", ""), ("void", BUDGET_VOID)]
        assert [o.decided_by for o in ev.outcomes] == ["C (myopic)", "C (myopic)"]
        assert [float(v) for v in app.game.neg.returns(app.game.state)] == [10.0, 0.0, 2.0, 0.0]
        await wait_until(pilot, lambda: isinstance(app.screen, DebriefScreen), "the debrief")
        notes = " ".join(str(w.content) for w in app.screen.query(Static))
        assert "Simultaneous rules: the lens bots' games are played under the same rules" in notes
        log = await read_log(pilot, app, wait_until)
        assert "t  1 r1  2 proposers at once: 1 applied, 1 void" in log
        assert f"B → C accepted but void ({BUDGET_VOID})" in log
        assert "A → C accepted" in log
        # each offer's words wrap under its own indent
        drawn = next(log for log in app.screen.query(TurnLog) if log.is_on_screen).lines
        first = next(k for k, line in enumerate(drawn) if line.startswith(" " * 9 + "A → C"))
        assert len(drawn) > first + 2 and all(line.startswith(" " * 9) for line in drawn[first:] if line.strip())
        status = flat(app.screen.query_one("#status").plain)
        assert status.startswith(f"turn 1 settled: 1 applied, 1 void. B → C accepted but void ({BUDGET_VOID})")
        assert "turn 1 settled: 1 applied, 1 void. B → C accepted but void (C would make 4" in flat(screen_text(app))
        record = app.game.record_path
    res = cli("replay", "--verify", record)
    assert res.exit_code == 0, res.output
    assert "verified" in res.output


async def test_a_partner_answers_the_offer_made_to_it_and_sees_no_other(screen_text, play_screen, wait_until,
                                                                         tmp_path):
    """D is the partner of an anticipating B's offer (the feeder); A's offer to C stays hidden from D until the
    turn settles.  A turn without a person proposing waits for a key, as a bot's sequential turn does."""
    app = race(tmp_path, B=bot("anticipate:myopic"), D=Seat.human())
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: "awaiting offers from A, B" in screen_text(app), "the first screen")
        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(app.screen, RespondScreen), "B's offer to D")
        dlg = app.screen
        assert dlg.title_text == "B offers D a deal"
        assert dlg.words.startswith("B commits dock; D commits dock\n(2 proposers at once: you see only the offers "
                                    "made to you; the accepted ones are applied in the turn's order")
        snap = play_screen(app).source.snapshot()
        assert snap.offer_cells == {1, 6} and snap.focus == 1  # B's offer only: A's to C is not D's to see
        assert snap.awaited == "awaiting answers: D to B, 1 more"
        await pilot.press("a")
        await wait_until(pilot, lambda: app.game.over, "the turn settled")
        [ev] = app.game.events
        assert [o.status for o in ev.outcomes] == ["applied", "applied"]
        assert [o.decided_by for o in ev.outcomes] == ["C (myopic)", "D (human)"]
        assert [float(v) for v in app.game.neg.returns(app.game.state)] == [10.0, 6.0, 2.0, 1.0]
        log = await read_log(pilot, app, wait_until)
        assert "B → D accepted" in log and "A → C accepted" in log


async def test_the_port_answers_both_offers_one_after_the_other(play_screen, wait_until, tmp_path):
    """C, a person, is the partner of both offers: it answers A's, then B's, each in the answer dialog; it
    accepts both, and B's is void for C's own budget."""
    app = race(tmp_path, C=Seat.human())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(app.screen, RespondScreen), "A's offer to C")
        first = app.screen
        assert first.title_text == "A offers C a deal" and "(offer 1 of 2 made to you; " in first.words
        snap = play_screen(app).source.snapshot()
        assert snap.offer_cells == {0, 2, 3, BERTH3, BERTH4}  # both offers are C's to see
        assert snap.awaited == "awaiting answers: C to A, C to B"
        await pilot.press("a")
        await wait_until(pilot, lambda: isinstance(app.screen, RespondScreen)
                         and app.screen.title_text == "B offers C a deal", "B's offer to C")
        assert app.screen.title_text == "B offers C a deal" and "(offer 2 of 2 made to you; " in app.screen.words
        assert app.game.events == []
        await pilot.press("a")
        await wait_until(pilot, lambda: app.game.over, "the turn settled")
        [ev] = app.game.events
        assert [(o.status, o.decided_by) for o in ev.outcomes] == [("applied", "C (human)"), ("void", "C (human)")]
        await wait_until(pilot, lambda: len(app.game.assessments) == 2, "both answers assessed")
        assert app.game.assessments[1].caveat.startswith(f"the offer you accepted was void ({BUDGET_VOID})")


async def test_a_person_proposes_and_answers_in_the_same_turn(screen_text, play_screen, wait_until, tmp_path):
    """The poison pill under paper+simultaneous: B offers A the project; A, proposing at once, offers B the
    project with the poison; B accepts it, and as A's offer comes first in the turn B's own is void.  The
    coach says so beside values that count it as the turn's only deal."""
    app = NegtuiApp(PILL, rules=SIM, seats={"A": bot(), "B": Seat.human()}, ask_seats=False, record=False,
                    data_dir=tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen), "B's partner dialog")
        await choose_partner(pilot, app, 0)
        await toggle(pilot, app, 0, 2)  # A.bait, B.bait
        await pilot.press("o")
        await wait_until(pilot, lambda: isinstance(app.screen, RespondScreen), "A's offer to B")
        assert app.screen.title_text == "A offers B a deal"
        assert play_screen(app).source.snapshot().offer_cells == {0, 2, 3}  # B's own offer and A's to B
        assert flat(play_screen(app).query_one("#status").plain) == (
            "B's offer is made: the others see it only if it is made to them; the turn settles once every offer is "
            "made and answered")
        await pilot.press("a")
        await wait_until(pilot, lambda: app.game.over, "the turn settled")
        [ev] = app.game.events
        assert [(o.status, o.reason) for o in ev.outcomes] == [
            ("applied", ""), ("void", "A.bait was committed earlier in this turn")]
        assert [float(v) for v in app.game.neg.returns(app.game.state)] == [40.0, 7.0]
        await wait_until(pilot, lambda: len(app.game.assessments) == 2, "both decisions assessed")
        offer, answer = app.game.assessments
        assert offer.caveat.startswith("your offer was void (A's bait was committed earlier in this turn)")
        assert answer.caveat == ""
        status = play_screen(app).query_one("#status")  # the game screen's, under the debrief
        await wait_until(pilot, lambda: "a void offer: the coach pane (5)" in status.plain, "the coaching")
        assert flat(status.plain).startswith("turn 1 settled: 1 applied, 1 void. A → B accepted; B → A accepted but "
                                             "void (A's bait was committed earlier in this turn)")
        log = await read_log(pilot, app, wait_until)
        assert "B → A accepted but void (A's bait was committed earlier in this turn)" in log
        await pilot.press("5")
        await wait_until(pilot, lambda: "your offer was void" in flat(screen_text(app)), "the coach pane")
        assert "valued as if it were the turn's only deal" in flat(screen_text(app))


async def test_a_simultaneous_record_replays_in_the_app(screen_text, wait_until, cli, tmp_path):
    path = tmp_path / "race.jsonl"
    res = cli("autoplay", RACE, "--rules", SIM, "--lens", "myopic", "--partner", "greedy", "--record", path,
              "--quiet")
    assert res.exit_code == 0, res.output
    app = NegtuiApp(replay=path, record=False, data_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ReplayScreen), "the replay")
        await wait_until(pilot, lambda: "REPLAY 0/1 turns played" in screen_text(app), "its first screen")
        assert "▶ A, B: 2 proposers" in screen_text(app).splitlines()[0]
        await pilot.press("full_stop")
        await wait_until(pilot, lambda: "turn 1 settled" in flat(screen_text(app)), "the turn")
        assert f"1 applied, 1 void. A → C accepted; B → C accepted but void ({BUDGET_VOID})" in flat(screen_text(app))


async def test_the_debrief_does_not_clear_decisions_the_bots_in_the_seat_beat(wait_until, tmp_path):
    """B goes to the port and its deal is voided (0), where a lens bot in B's seat, searching its partner as the
    app's bots do (MCTS), docks with D (6): each decision judged alone cost nothing, and the debrief says so
    beside what the bots did better, not as a clean bill."""
    from rich.console import Console

    from negtui.coach.assess import coach_lenses

    seats = {pid: Seat.lens("myopic") for pid in "ACD"} | {"B": Seat.human()}  # 50 simulations: B docks with D
    app = NegtuiApp(RACE, rules=SIM, seats=seats, ask_seats=False, record=False, data_dir=tmp_path)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen), "B's partner dialog")
        await choose_partner(pilot, app, 2)
        await toggle(pilot, app, BERTH3, BERTH4)
        await pilot.press("o")
        await wait_until(pilot, lambda: isinstance(app.screen, DebriefScreen), "the debrief")
        debrief = app.screen
        bots = coach_lenses(app.game.neg.game)  # the closed-form lenses and the learned one
        await wait_until(pilot, lambda: len(debrief.debriefs[1].counterfactual) == len(bots), "the lens bots' games",
                         timeout=60)
        d = debrief.debriefs[1]
        assert d.payoff == 0.0 and max(d.counterfactual.values()) == 6.0, d.counterfactual
        console = Console(width=200, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
        console.print(debrief._debrief_view(1))
        said = flat(console.export_text())
        assert "no decision of yours cost anything against" not in said
        assert "yet every lens bot in your seat did 6.00 better over the whole game" in said, said
