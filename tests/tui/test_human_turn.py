"""A person's turn end to end: the partner dialog, an offer built on the matrix and submitted, the answer
and its coaching, the side panes at every width, the key bar, and a unilateral commitment.

The poison pill (A: bait, side; B: bait, poison; A proposes, then B) gives known answers: an optimistic
(upper) B refuses the bundle bait+poison and accepts the bait alone (30/30); a myopic A offers B the
bundle, which leaves A 40 and B 7 if B accepts."""

from __future__ import annotations

import json

import pytest
from textual.widgets import Static

from negtui.seats import Seat
from negtui.tui.app import NegtuiApp
from negtui.tui.screens.dialogs import ConfirmScreen, HelpScreen, PartnerScreen, RespondScreen
from negtui.tui.screens.summary import SummaryScreen
from negtui.tui.widgets.keybar import KeyBar
from negtui.tui.widgets.matrix import CommitmentMatrix
from negtui.tui.widgets.turn_log import TurnLog
from tests.paths import HUMANITARIAN, SIX

# poison-pill cells, player-major: A.bait, A.side, B.bait, B.poison
A_BAIT, A_SIDE, B_BAIT, B_POISON = 0, 1, 2, 3

pytestmark = pytest.mark.asyncio


@pytest.mark.parametrize("size", [(80, 24), (160, 50)])
async def test_the_coach_pane_reads_whole_at_every_width(screen_text, settle, wait_until, pill_app, size):
    """After the person refuses the poisoned bundle the coach pane sets the refusal beside each lens;
    narrow, its headers are short and explained, never cut."""
    app = pill_app(A=Seat.lens("myopic"), B=Seat.human())
    async with app.run_test(size=size) as pilot:
        await pilot.press("n")  # A (myopic) offers the bundle
        await wait_until(pilot, lambda: isinstance(app.screen, RespondScreen), "A's offer")
        await pilot.press("x")
        await settle(pilot)
        # the coaching comes from a worker, before or after B's own partner dialog opens over the screen (whose
        # dimmed backdrop is the screen as it was): read once the dialog is closed
        await wait_until(pilot, lambda: app.game.assessments, "the coaching")
        await pilot.press("escape", "5")  # close the partner dialog of B's own turn; open the coach pane
        await wait_until(pilot, lambda: "coach · turn 1" in screen_text(app) and "coach, turn 1" in screen_text(app),
                         "the coach pane and the status line's coaching")
        text = screen_text(app)
        pane = text[text.index("coach · turn 1"):text.index("coach, turn 1")]
        assert "…" not in pane
        side = app.screen.query_one("#side").region.x  # the pane's lines, without the matrix beside them
        lines = [ln[side:].strip() for ln in text.splitlines()]
        if size[0] < 104:
            # five columns of values leave the decisions no room beside them: they are listed under the table
            assert any(ln.split() == ["by", "myo", "up", "low", "lrn", "ex"] for ln in lines), pane
            assert "myo = myopic" in text.replace("\n", " ") and "lrn = learned" in text.replace("\n", " "), text
            assert "learned: reject" in pane, pane
        else:
            assert any("choice by" in ln and "exact value" in ln for ln in lines), pane
        assert any(ln.split()[:2] == ["you", "reject"] for ln in lines if ln) or "you: reject ·" in pane, pane


async def test_the_cell_under_the_cursor_explains_itself_from_the_start(screen_text, wait_until, pill_app):
    app = pill_app()
    async with app.run_test(size=(120, 40)) as pilot:
        explained = "A · Alice: bait — A's share of the joint"
        await wait_until(pilot, lambda: explained in " ".join(screen_text(app).split()),
                         "the cell under the cursor explained, before any key")
        text = " ".join(screen_text(app).split())
        assert "feeds: joint project (+30)" in text  # the goal by its label, its value to the cell's owner


async def test_the_matrix_names_every_action_where_the_height_allows(screen_text, wait_until):
    """Tall enough, each action has a line in the scenario's words under its player, the left column
    grows to hold them, and up/down walk the actions across players; short, it is a grid of cells
    with no column numbers, and the panel under it names the cell under the cursor."""
    app = NegtuiApp(HUMANITARIAN, ask_seats=False, record=False)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_until(pilot, lambda: "Fund the corridor operation" in screen_text(app), "the first screen")
        matrix = app.screen.query_one(CommitmentMatrix)
        assert matrix.listed
        assert app.screen.query_one("#left").size.width > 40
        text = screen_text(app)
        assert "·· Fund the corridor operation" in text
        assert "·· Authorise the northern corridor" in text
        assert " 0  1  2  3" not in text
        for _ in range(4):  # the first player's four actions, then the next player's first
            await pilot.press("down")
        await pilot.pause()
        assert matrix.cursor == (0, 1)
        assert "NGO Consortium: Deliver food and medical aid" in " ".join(screen_text(app).split())
        await pilot.press("right")  # the same action of the next player
        await pilot.pause()
        assert matrix.cursor == (0, 2)
        await pilot.resize_terminal(80, 24)
        await wait_until(pilot, lambda: not matrix.listed and app.screen.query_one("#left").size.width == 40
                         and "actions" in screen_text(app)
                         and "Host Government: Authorise the northern corridor" in " ".join(screen_text(app).split()),
                         "the grid of cells at 80×24, the cell under the cursor named under it")
        text = screen_text(app)
        assert "actions" in text and " 0  1  2  3" not in text
        await pilot.press("right")
        await pilot.pause()
        assert matrix.cursor == (1, 2)


async def test_the_cursor_starts_on_your_own_row(screen_text):
    """In a game of many players, a person's first look is at their own actions, not the first player's."""
    seats = {"Armed_Group": Seat.human()}
    app = NegtuiApp(HUMANITARIAN, seats=seats, ask_seats=False, record=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        matrix = app.screen.query_one(CommitmentMatrix)
        assert matrix.cursor == (0, app.game.neg.game.player_ids.index("Armed_Group"))
        assert "Armed Group: Guarantee safe passage" in " ".join(screen_text(app).split())


async def test_the_turn_log_is_drawn_once_and_only_in_its_pane(screen_text, wait_until, pill_app):
    """One log on the screen, however tall: a turn is wrapped once.  On a tall terminal the log is under the
    pane open (the room a short one does not have), and 3 hides it and shows it again; on 80×24 it is a pane."""
    app = pill_app(A=Seat.lens("myopic"), B=Seat.lens("upper"))
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.pause()
        await pilot.press("n")
        await wait_until(pilot, lambda: app.game.events, "the first turn")
        await wait_until(pilot, lambda: "t  1 r1  A → B" in screen_text(app).split("Log · 3 hides it")[-1],
                         "the turn in the log under the forecasts")
        assert "payoffs and forecasts" in screen_text(app)  # the pane open, above the log
        logs = list(app.screen.query(TurnLog))
        assert [log.id for log in logs if log.is_on_screen] == ["aside-log"]
        assert app.screen.query_one("#log", TurnLog).wrapped == 0  # the pane's log, out of sight, wraps nothing
        assert screen_text(app).count("t  1 r1  A → B") == 2  # the log, and the status line saying it
        await pilot.press("3")
        await wait_until(pilot, lambda: "Log · 3 hides it" not in screen_text(app), "the log hidden")
        assert screen_text(app).count("t  1 r1  A → B") == 1 and "payoffs and forecasts" in screen_text(app)
        await pilot.press("3")
        await wait_until(pilot, lambda: "Log · 3 hides it" in screen_text(app), "the log shown again")
        await pilot.resize_terminal(80, 24)
        await wait_until(pilot, lambda: "Log · 3 hides it" not in screen_text(app), "no room for it at 80×24")
        await pilot.press("3")
        await wait_until(pilot, lambda: screen_text(app).count("t  1 r1  A → B") == 2, "the log pane at 80×24")
        assert [log.id for log in app.screen.query(TurnLog) if log.is_on_screen] == ["log"]


async def test_a_resize_relays_the_side_panes_at_once(screen_text, wait_until):
    app = NegtuiApp(SIX, ask_seats=False, record=False)
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.pause()
        await pilot.press("2")  # forecasts
        await pilot.pause()
        assert "   lower" in screen_text(app) and " low " not in screen_text(app)
        await pilot.resize_terminal(80, 24)
        await wait_until(pilot, lambda: " low " in screen_text(app), "the narrow forecasts at 80×24")
        assert "trend" not in screen_text(app) and app.game.events == []  # no turn played meanwhile
        await pilot.resize_terminal(160, 40)
        await wait_until(pilot, lambda: "   lower" in screen_text(app) and "trend" in screen_text(app),
                         "the wide forecasts at 160×40")
        assert app.game.events == []


async def test_a_person_with_nothing_left_to_offer_or_ask_for_passes_without_a_dialog(wait_until, payoffs, tmp_path):
    two = {"format": "negtui-scenario/1", "name": "one-deal",
           "players": [{"id": "A", "actions": [{"id": "x"}]}, {"id": "B", "actions": [{"id": "y"}]}],
           "goals": [{"id": "both", "kind": "all_or_nothing", "requires": [{"player": "A", "action": "x"},
                                                                            {"player": "B", "action": "y"}],
                      "values": {"A": 10, "B": 10}}],
           "protocol": {"rounds": 1, "budget": 1, "schedule": ["A", "B"]}}
    path = tmp_path / "one-deal.json"
    path.write_text(json.dumps(two))
    app = NegtuiApp(path, seats={"A": Seat.lens("myopic"), "B": Seat.human()}, ask_seats=False, record=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("n")  # A offers the whole deal
        await wait_until(pilot, lambda: isinstance(app.screen, RespondScreen), "A's offer")
        await pilot.press("a")
        await wait_until(pilot, lambda: app.game.over, "the game's end")
        assert not any(isinstance(s, PartnerScreen) for s in app.screen_stack)
        last = app.game.events[-1]
        assert (last.proposer, last.offer.is_noop) == (1, True)
        assert payoffs(app) == [10.0, 10.0]


@pytest.mark.parametrize(("size", "beside"), [((160, 50), True), ((80, 24), False)])
async def test_a_bots_offer_leaves_the_matrix_in_view_on_a_wide_terminal(screen_text, wait_until, laid_out, pill_app,
                                                                         size, beside):
    app = pill_app(A=Seat.lens("myopic"), B=Seat.human())

    def b_cells() -> list[str]:
        lines = screen_text(app).splitlines()
        b = next((k for k, ln in enumerate(lines) if ln.startswith(" ◆ B · Bob")), len(lines))
        return [ln[:40] for ln in lines[b + 1:b + 3]]

    async with app.run_test(size=size) as pilot:
        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(app.screen, RespondScreen) and laid_out(app), "A's offer")
        assert app.screen.has_class("beside") == beside
        text = screen_text(app)
        assert "thinking" not in text.splitlines()[0]  # the game waits for the person, not for a bot
        if beside:  # B's offered cells marked beside it
            await wait_until(pilot, lambda: any("++ bait" in ln for ln in b_cells()), "B's offered cells in view")


async def test_a_step_of_autoplay_due_on_a_persons_turn_opens_no_second_partner_dialog(wait_until, play_screen,
                                                                                       pill_app):
    """Autoplay schedules the next step after a pause; a step that falls due once the person's partner
    dialog is open must leave it alone (else the person's first enter closes an invisible second dialog
    and their next key lands somewhere they did not aim)."""
    app = pill_app(A=Seat.human())
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen), "the partner dialog")
        ps = play_screen(app)
        ps.action_step()  # what a stale autoplay tick does
        await pilot.pause()
        assert [type(s).__name__ for s in app.screen_stack].count("PartnerScreen") == 1
        await pilot.press("down", "enter")  # B
        await pilot.pause()
        assert app.screen is ps and ps.source.partner == 1
        await pilot.press("enter")
        await pilot.pause()
        assert ps.source.cells == {A_BAIT}  # the key reached the matrix


async def test_human_offers_bait_alone_b_accepts_and_game_ends_with_summary(screen_text, settle, wait_until,
                                                                            play_screen, pill_app, payoffs):
    app = pill_app(A=Seat.human(), B=Seat.lens("upper"))  # the pill's own default is lower
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen), "the partner dialog")
        partners = [o.partner for o in app.screen.options]
        assert partners == [0, 1]  # A itself (unilateral) and B
        await pilot.press("down", "enter")  # B
        await pilot.pause()
        ps = play_screen(app)
        assert app.screen is ps and ps.source.partner == 1
        await pilot.press("enter", "down", "down", "enter")  # A.bait, then B.bait two lines below it
        await pilot.pause()
        assert ps.source.cells == {A_BAIT, B_BAIT}
        panel = screen_text(app)
        assert "offer to B: A commits bait; B commits" in panel
        assert "yes ◀" in panel  # B's own lens (upper) accepts
        assert app.game.events == []
        await pilot.press("o")
        await settle(pilot)
        ev = app.game.events[-1]
        assert (ev.t, ev.proposer, ev.partner, ev.accepted) == (0, 0, 1, True)
        assert ev.decided_by == "B (upper)"
        assert app.game.state.t == 1 and app.game.state.bits == (1 << A_BAIT) | (1 << B_BAIT)
        assert payoffs(app) == [30.0, 30.0]
        assert ps.source.partner is None and ps.source.cells == set()
        assert "accepted: A commits bait; B commits bait" in screen_text(app)
        assert not app.game.over
        # B's bot turn: one step (space) ends the game
        await pilot.press("space")
        await settle(pilot)
        assert app.game.over and len(app.game.events) == 2
        await wait_until(pilot, lambda: isinstance(app.screen, SummaryScreen), "the summary")
        await wait_until(pilot, lambda: "Game over" in screen_text(app), "the summary drawn")
        text = screen_text(app)
        assert "Game over" in text and "30.00" in text
        assert "game over" in ps.query_one("#topbar").plain
        await wait_until(pilot, lambda: "utilitarian optimum" in str(app.screen.query_one("#summary-welfare",
                                                                                             Static).content),
                         "the summary's welfare optimum")
        assert "utilitarian optimum 60.00" in screen_text(app)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is ps


async def test_human_offers_poison_bundle_upper_b_rejects(screen_text, settle, wait_until, play_screen, pill_app,
                                                          payoffs):
    app = pill_app(A=Seat.human(), B=Seat.lens("upper"))  # the pill's own default is lower
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen), "the partner dialog")
        await pilot.press("down", "enter")
        await pilot.pause()
        ps = play_screen(app)
        await pilot.press("enter", "down", "down", "enter", "down", "enter")  # A.bait, B.bait, B.poison
        await pilot.pause()
        assert ps.source.cells == {A_BAIT, B_BAIT, B_POISON}
        await pilot.press("o")
        await settle(pilot)
        ev = app.game.events[-1]
        assert ev.accepted is False and ev.offer.bits == 0b1101
        assert app.game.state.t == 1 and app.game.state.bits == 0
        assert payoffs(app) == [0.0, 0.0]
        assert "rejected: A commits bait; B commits bait, poison" in screen_text(app)
        # the side panes: 1-4 switch, v sorts goals, f filters the log by the focused player
        view = ps.view
        assert view.pane == "forecasts"
        await pilot.press("3")
        assert view.pane == "log"
        await pilot.pause()
        assert "rejected" in screen_text(app).split("turn log", 1)[1]
        await pilot.press("4")
        assert view.pane == "network"
        await pilot.press("v")
        await pilot.pause()
        assert view.pane == "goals" and "by value (v)" in screen_text(app)
        await pilot.press("f")  # the cursor is on B.poison: only B's turns
        await pilot.pause()
        assert view.pane == "log" and "turn log · only B" in screen_text(app)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await wait_until(pilot, lambda: "negtui — keys" in screen_text(app), "the help drawn")
        await pilot.press("escape")
        assert app.return_code is None
        await pilot.press("q")
        await pilot.pause()
        assert app.return_code == 0

async def test_key_bar_lists_the_usable_keys_and_a_click_presses_one(screen_text, wait_until, play_screen, pill_app):
    app = pill_app(A=Seat.human())
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen), "the partner dialog")
        await pilot.press("escape")
        await pilot.pause()
        ps = play_screen(app)
        bar = ps.query_one(KeyBar)
        shown = {description: enabled for _key, _display, description, enabled, _action in bar.shown}
        assert shown["step"] and shown["help"] and shown["quit"]
        assert list(shown).count("step") == 1, "space and n share an action: one entry"
        assert "offer" not in shown, "o is usable only while an offer is being built"
        line = screen_text(app).splitlines()[-1]
        assert line.startswith(" space step  r run/pause") and line.rstrip().endswith(" … ? help  q quit"), \
            "too narrow for every key: help and quit stay"
        await pilot.resize_terminal(160, 30)
        await wait_until(pilot, lambda: screen_text(app).rstrip().endswith("^p palette"),
                         "the key bar at 160 columns")
        wide = screen_text(app).splitlines()[-1]
        assert " l lesson  ? help  q quit " in wide and wide.rstrip().endswith("^p palette")
        await pilot.click(KeyBar, offset=(wide.index("? help") + 3, 0))
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help the click opened")
        await pilot.press("escape", "p")
        await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen), "the partner dialog")
        await pilot.press("enter")  # A itself: now an offer is being built
        await wait_until(pilot, lambda: " o offer " in screen_text(app).splitlines()[-1], "o offer in the key bar")
        assert ("o", "o", "offer", True, "submit") in bar.shown



async def test_offer_building_escape_and_a_unilateral_commitment(screen_text, wait_until, play_screen, pill_app,
                                                                 payoffs):
    app = pill_app(A=Seat.human())
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen), "the partner dialog")
        await wait_until(pilot, lambda: "A alone" in screen_text(app), "A alone among the partners")  # said as such
        await pilot.press("enter")  # A itself: a unilateral commitment
        await pilot.pause()
        ps = play_screen(app)
        assert ps.source.partner == 0
        await pilot.press("down", "down", "enter")  # B.bait belongs to neither side of A → A
        await pilot.pause()
        assert ps.source.cells == set()
        assert "Bob's “bait” belongs to neither side of this offer (Alice)" in ps.query_one("#status").plain
        await pilot.press("down")  # the cursor moves on: the status line says again what it said before
        await pilot.pause()
        assert "belongs to neither side" not in ps.query_one("#status").plain
        await pilot.press("up")
        await pilot.press("up", "up", "space", "space", "space")  # space toggles while an offer is being built
        assert ps.source.cells == {A_BAIT} and app.game.events == []
        await pilot.pause()
        panel = screen_text(app)
        assert "A alone: A commits bait" in panel and "accepts?" not in panel  # nobody else has to agree
        await pilot.press("escape")  # back to the partner choice, the offer dropped
        await pilot.pause()
        assert isinstance(app.screen, PartnerScreen) and ps.source.partner is None and ps.source.cells == set()
        await pilot.press("enter")  # A again
        await pilot.pause()
        await pilot.press("enter", "o")
        await pilot.pause()
        assert not isinstance(app.screen, RespondScreen), "a human was asked to accept their own offer"
        ev = app.game.events[-1]
        assert (ev.proposer, ev.partner, ev.accepted) == (0, 0, True)
        assert app.game.state.bits == 1 << A_BAIT
        assert payoffs(app) == [15.0, 15.0]


async def test_an_empty_offer_asks_before_it_passes_the_turn(screen_text, wait_until, play_screen, pill_app) -> None:
    app = pill_app(A=Seat.human())
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen), "the partner dialog")
        await pilot.press("down", "enter")  # B, with nothing in the offer yet
        await pilot.pause()
        await pilot.press("o")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        await wait_until(pilot, lambda: "Your offer to B has nothing in it" in screen_text(app), "the question drawn")
        await pilot.press("n")  # back to the offer: nothing was sent
        await pilot.pause()
        ps = play_screen(app)
        assert app.game.events == [] and ps.source.partner == 1
        await pilot.press("o")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question again")
        await pilot.press("y")
        await wait_until(pilot, lambda: len(app.game.events) == 1, "the pass")
        ev = app.game.events[0]
        assert ev.proposer == 0 and ev.offer.is_noop


@pytest.mark.parametrize(("scenario", "size"), [("RIVER_BASIN", (160, 50)), ("CLASSIC", (80, 24))])
async def test_the_matrix_keeps_its_layout_while_an_offer_is_built(screen_text, wait_until, play_screen, scenario,
                                                                   size):
    """The offer's preview takes lines under the matrix from the moment a partner is chosen: cells going
    in and out of the offer leave the matrix's box as it is (no layout, nothing jumps), the list of named
    actions stays (and scrolls) rather than turning into the grid of cells under the cursor, and the
    arrows keep walking the list."""
    from tests import paths

    path = paths.RIVER_BASIN if scenario == "RIVER_BASIN" else paths.CLASSIC / "buyer-seller.json"
    app = NegtuiApp(path, ask_seats=False, record=False)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        ps = play_screen(app)
        whole = ps.query_one("#matrix-box").size.height  # no offer being built
        me = app.game.neg.game.player_ids[app.game.proposer]
        ps.source.set_seats({me: Seat.human()})
        ps.advance()
        await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen), "the partner dialog")
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: ps.source.partner is not None, "a partner")
        box = app.screen.query_one("#matrix-box")
        await wait_until(pilot, lambda: box.size.height < whole, "the matrix's box leaving the preview its room")
        drafting = box.size.height
        matrix = app.screen.query_one(CommitmentMatrix)
        listed = matrix.listed
        fitted: list[int] = []  # the heights of the box the matrix was laid out in, in turn
        fit = matrix.fit

        def fitting(width: int, height: int) -> None:
            fitted.append(height)
            fit(width, height)

        matrix.fit = fitting  # type: ignore[method-assign]
        matrix.cursor = (0, app.game.proposer)
        preview = app.screen.query_one("#offer-panel")
        await pilot.press("enter")  # the first cell of the offer: its preview fills the room kept for it
        await wait_until(pilot, lambda: bool(ps.source.cells), "a cell in the offer")
        await wait_until(pilot, lambda: any("lens" in preview.render_line(y).text for y in range(4)),
                         "the preview's table")
        await pilot.pause()
        assert box.size.height == drafting and all(h == drafting for h in fitted)
        assert matrix.listed == listed
        await pilot.press("enter")  # out again
        await wait_until(pilot, lambda: not ps.source.cells, "the offer empty again")
        await pilot.pause()
        assert box.size.height == drafting and all(h == drafting for h in fitted)
        assert matrix.listed == listed
        if listed:
            await pilot.press("down")
            await pilot.pause()
            assert matrix.cursor == (1, app.game.proposer)  # the next action of the same player
            text = " ".join(screen_text(app).split())
            assert "·· " in text and "▶ " in text
    assert listed  # both list their actions by name on an empty offer


async def test_the_log_filtered_to_a_player_leaves_out_other_players_passes(wait_until, play_screen):
    """A pass names the partner a search settled on; filtered to that partner, the log must not list it."""
    from negtui.names import player_names

    app = NegtuiApp(SIX, seats={p: Seat.lens("myopic", partner="greedy") for p in
                                ("P0", "P1", "P2", "P3", "P4", "P5")}, ask_seats=False, record=False)
    async with app.run_test(size=(160, 50)) as pilot:
        ps = play_screen(app)
        ps.autoplay.speed = 0
        await pilot.press("r")
        await wait_until(pilot, lambda: app.game.over, "the game's end", timeout=120)
        passes = [ev for ev in app.game.events if ev.passed and not ev.accepted and ev.partner != ev.proposer]
        assert passes, "no pass naming another player: the test shows nothing"
        who = passes[0].partner
        log = ps.query_one("#aside-log", TurnLog)  # at 160×50 the log is in view under the pane open
        log.only = who
        only = f"turn log · only {player_names(app.game.neg.game.scenario)[who]}"
        await wait_until(pilot, lambda: log.plain.split("\n")[0] == only, "the log drawn for one player")
        shown = log.plain  # the head, then a line per turn
        g = app.game.neg.game
        lines = [ln for ln in shown.splitlines()[1:] if ln.strip()]
        assert len(lines) == sum(who in ev.players for ev in app.game.events)
        assert not any(f"{g.player_ids[ev.proposer]} passes" in ln for ev in passes if ev.proposer != who
                       for ln in lines)


async def test_b_in_the_offer_builder_starts_again_from_the_suggested_offer(wait_until, play_screen, pill_app):
    """The partner dialog's b loads the suggested offer; in the offer builder b loads it again over the cells
    the person toggled (the lens whose offer to this partner is worth most to the proposer)."""
    app = pill_app(A=Seat.human(), B=Seat.lens("upper"))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen), "the partner dialog")
        await pilot.press("down", "enter")  # B, with no cells
        ps = play_screen(app)
        await wait_until(pilot, lambda: ps.source.partner is not None and app.screen is ps, "the offer builder")
        src = ps.source
        option = next(o for o in src.partner_options() if o.partner == src.partner)
        assert option.suggested is not None and option.suggested.cells
        await pilot.press("enter")  # a cell of the person's own
        await wait_until(pilot, lambda: bool(src.cells), "the toggled cell")
        await pilot.press("b")
        await wait_until(pilot, lambda: src.cells == frozenset(option.suggested.cells), "the suggested offer loaded")
        assert "the suggested offer to B loaded" in " ".join(str(ps.query_one("#status").render()).split())


async def test_o_before_a_partner_is_chosen_says_so_and_asks_for_one(wait_until, pill_app):
    """Escape from the partner dialog, then o: the key is not dead; it says an offer needs a partner and opens
    the dialog again."""
    app = pill_app(A=Seat.human(), B=Seat.lens("upper"))
    notes: list[str] = []
    async with app.run_test(size=(80, 24)) as pilot:
        app.notify = lambda message, **kw: notes.append(str(message))  # type: ignore[method-assign]
        await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen), "A's partner dialog")
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, PartnerScreen), "the dialog closed")
        await pilot.press("o")
        await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen), "the partner dialog again")
        assert any("Choose a partner first" in n for n in notes), notes


async def test_filtering_the_log_in_sight_keeps_the_focused_players_turns(wait_until, play_screen):
    """f on the log pane, open while the turns were played: the focused player's turns stay listed (the log
    taken in before was dropped, and the filtered log said "no turns yet")."""
    app = NegtuiApp(SIX, seats={f"P{i}": Seat.lens("myopic", partner="greedy", sims=4) for i in range(6)},
                    ask_seats=False, record=False)
    async with app.run_test(size=(80, 24)) as pilot:
        ps = play_screen(app)
        await pilot.press("3")
        for _ in range(6):
            await pilot.press("n")
        await wait_until(pilot, lambda: len(app.game.events) >= 6, "six turns")
        log = ps.query_one("#log", TurnLog)
        await wait_until(pilot, lambda: log.plain.count("\n") >= 6, "the turns in the log pane")
        player = int(app.game.neg.game.owner[ps.view.focused_cell])
        await pilot.press("f")
        await wait_until(pilot, lambda: log.plain.startswith("turn log · only"), "the log filtered")
        mine = sum(player in ev.players for ev in app.game.events)
        assert mine and len([ln for ln in log.plain.splitlines()[1:] if ln.strip()]) == mine, log.plain


@pytest.mark.parametrize("seat", ["P1", "Upstream_State"])
async def test_the_focused_cell_says_its_action_once(screen_text, wait_until, seat):
    """A generated game's action 0 of P1 is labelled "P1 action 0": under "P1:" it reads "action 0", once (it
    read "P1: action 0 — P1 action 0"); a label of its own still stands beside a readable id."""
    from negtui.tui.widgets.panes import CellInfo
    from tests.paths import RIVER_BASIN

    path = SIX if seat == "P1" else RIVER_BASIN
    app = NegtuiApp(path, seats={seat: Seat.human()}, ask_seats=False, record=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        info = app.screen.query_one(CellInfo)
        await wait_until(pilot, lambda: ":" in info.plain, "the focused cell explained")
        head = info.plain.split("\nfeeds:")[0]
        g = app.game.neg.game
        i = g.player_ids.index(seat)
        label = " ".join(g.scenario.players[i].actions[0].label.split())
        if seat == "P1":
            assert " ".join(head.split()) == "P1: action 0", head
        else:
            assert " ".join(head.split()) == f"Upstream State: {label}", head
