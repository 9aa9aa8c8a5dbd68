"""The app driven through Textual's pilot: every flow a player meets, asserted on the session it drives
and on what the screen shows.

The poison pill (A: bait, side; B: bait, poison; A proposes, then B) gives known answers: an optimistic
(upper) B refuses the bundle bait+poison and accepts the bait alone (30/30); a myopic A offers B the
bundle, which leaves A 40 and B 7 if B accepts.
"""

from __future__ import annotations

import io
import json
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from rich.console import Console
from textual.widgets import Input, OptionList, Select, Static, TabbedContent
from typer.testing import CliRunner

from negtui.cli import app as cli
from negtui.record import Replay, load_record, parent_at
from negtui.seats import Seat
from negtui.tui.app import NegtuiApp
from negtui.tui.screens.dialogs import HelpScreen, JumpScreen, PartnerScreen, RespondScreen, SeatsScreen
from negtui.tui.screens.picker import GenerateScreen, PickerScreen
from negtui.tui.screens.play import PlayScreen
from negtui.tui.screens.summary import SummaryScreen
from negtui.tui.screens.welfare import WelfareScreen
from negtui.tui.widgets.keybar import KeyBar
from negtui.tui.widgets.matrix import CommitmentMatrix
from negtui.welfare import WelfareJob
from tests.paths import CLIMATE, HUMANITARIAN, LENS_AGENT, PILL, SIX, TEACHING

# poison-pill cells, player-major: A.bait, A.side, B.bait, B.poison
A_BAIT, A_SIDE, B_BAIT, B_POISON = 0, 1, 2, 3

pytestmark = pytest.mark.asyncio


# --- helpers -----------------------------------------------------------------------------------------------

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


def play_screen(app) -> PlayScreen:
    screens = [s for s in app.screen_stack if isinstance(s, PlayScreen)]
    assert len(screens) == 1, app.screen_stack
    return screens[0]


def pill_app(**seats: Seat) -> NegtuiApp:
    return NegtuiApp(PILL, seats=seats, ask_seats=False, record=False)


def payoffs(app) -> list[float]:
    return [float(v) for v in app.session.neg.returns(app.session.state)]


def record_game(path: Path, scenario: Path = SIX, lens: str = "myopic") -> Path:
    res = CliRunner().invoke(cli, ["autoplay", str(scenario), "--lens", lens, "--partner", "greedy", "--sims", "4",
                                   "--record", str(path), "--quiet"])
    assert res.exit_code == 0, res.output
    return path


# --- starting ----------------------------------------------------------------------------------------------

async def test_start_with_seats_dialog_keyboard_and_start_button():
    app = NegtuiApp(PILL, ask_seats=True, record=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, SeatsScreen)
        assert app.session is None
        sel = app.screen.query_one("#seat-A", Select)
        # 75% of the poison pill's value is positive: the bots start as lower, and the dialog says why
        assert sel.value == "lower" and app.screen.query_one("#seat-B", Select).value == "lower"
        shown = screen_text(app)
        assert "Bots play lower:" in shown and "75% of the value" in shown
        labels = [str(label.render()) for label in app.screen.query(".seat-name")]
        assert labels == ["every seat", "A · Alice", "B · Bob"]  # the scenario's names, beside the ids
        # choose "human" for A with the keyboard: open the drop-down, go to the top entry, pick it
        sel.focus()
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("home", "enter")
        await pilot.pause()
        assert sel.value == "human"
        await pilot.click("#done")
        await pilot.pause()
        assert app.session is not None
        assert app.session.seats["A"].is_human and not app.session.seats["B"].is_human
        assert app.session.seats["B"].propose == "lower"
        # A proposes first and is human: the partner dialog opens by itself
        await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen), "the partner dialog")
        assert screen_text(app).startswith(" ▶ A · Alice (human)")
        assert "A, choose a partner" in screen_text(app)


async def test_start_with_seats_all_bots_and_ctrl_s():
    app = NegtuiApp(PILL, seats={"A": Seat.human()}, ask_seats=True, record=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.screen.query_one("#seat-A", Select).value == "human"
        await pilot.click("#bots")
        await pilot.pause()
        assert app.screen.query_one("#seat-A", Select).value == "upper"
        app.screen.query_one("#seat-B", Select).value = "myopic"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, PlayScreen)
        assert {pid: s.label for pid, s in app.session.seats.items()} == {"A": "upper", "B": "myopic"}
        assert "A · Alice (upper)" in screen_text(app)


async def test_text_colours_meet_a_contrast_of_4_5_to_1_on_every_background():
    from textual.color import Color

    from negtui.tui import palette

    def luminance(c: Color) -> float:
        def channel(v: int) -> float:
            v /= 255
            return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4
        return 0.2126 * channel(c.r) + 0.7152 * channel(c.g) + 0.0722 * channel(c.b)

    app = NegtuiApp(None, record=False)
    async with app.run_test():
        css = app.get_css_variables()
        for background in ("background", "surface", "panel"):
            bg = luminance(Color.parse(css[background]))
            for name in ("POSITIVE", "NEGATIVE", "SKY"):
                fg = luminance(Color.parse(getattr(palette, name)))
                ratio = (max(fg, bg) + 0.05) / (min(fg, bg) + 0.05)
                assert ratio >= 4.5, (name, background, round(ratio, 2))


async def test_escape_on_the_first_seats_dialog_goes_back_to_the_scenarios():
    app = NegtuiApp(PILL, ask_seats=True, record=False)
    async with app.run_test() as pilot:
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert app.session is None and app.return_code is None
        assert isinstance(app.screen, PickerScreen)  # not a silent exit: another scenario can be chosen
        await pilot.press("q")
        await pilot.pause()
        assert app.return_code == 0


async def test_escape_puts_an_offer_aside_and_a_step_shows_it_again():
    app = pill_app(A=Seat.lens("myopic"), B=Seat.human())
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(app.screen, RespondScreen), "A's offer")
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, PlayScreen) and app.session.events == []  # not answered: not rejected
        assert "waits for your answer" in screen_text(app)
        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(app.screen, RespondScreen), "the offer again")
        await pilot.press("r")
        await settle(pilot)
        assert app.session.events[-1].accepted is False


async def test_the_generator_form_starts_in_its_first_field_explains_bad_numbers_and_sets_the_rules(tmp_path):
    app = NegtuiApp(None, record=False, data_dir=tmp_path, scenarios_dir=TEACHING)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("g")
        await wait_until(pilot, lambda: isinstance(app.screen, GenerateScreen), "the generator form")
        await pilot.pause()
        form = app.screen
        assert app.focused is form.query_one("#gen-players", Input)
        form.query_one("#gen-players", Input).value = ""
        form.query_one("#gen-goals", Input).value = "many"
        form.query_one("#gen-rules", Select).value = "reference"
        await pilot.press("enter")
        await pilot.pause()
        error = str(form.query_one("#gen-error", Static).render())
        assert error == "players: a whole number, please (it is empty)" and app.focused.id == "gen-players"
        form.query_one("#gen-players", Input).value = "4"
        await pilot.press("enter")
        await pilot.pause()
        assert str(form.query_one("#gen-error", Static).render()) == "goals: a whole number, not 'many'"
        assert app.focused.id == "gen-goals"
        form.query_one("#gen-goals", Input).value = "5"
        form.query_one("#gen-factors", Input).value = "2"
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, SeatsScreen), "the seat dialog")
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: app.session is not None, "the game")
        assert app.session.neg.rules.name == "reference" and app.session.neg.game.n == 4


async def test_the_picker_lists_games_generated_here_and_records_to_replay(tmp_path):
    (tmp_path / "scenarios").mkdir()
    assert CliRunner().invoke(cli, ["generate", "--players", "4", "--goals", "5", "--factors", "2", "-o",
                                    str(tmp_path / "scenarios" / "mine.json")]).exit_code == 0
    (tmp_path / "records").mkdir()
    rec = record_game(tmp_path / "records" / "game.jsonl", PILL)
    app = NegtuiApp(None, record=False, data_dir=tmp_path, scenarios_dir=TEACHING)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PickerScreen), "the picker")
        text = screen_text(app)
        assert "generated here" in text and "replay game.jsonl" in text
        options = app.screen.query_one(OptionList)
        options.highlighted = options.option_count - 1  # the record, listed last
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, PlayScreen), "the replay")
        assert app.screen.replay is not None and app.screen.replay.record.scenario.name == "poison-pill"
        assert str(rec).endswith("game.jsonl")


async def test_a_question_mark_typed_into_a_field_stays_in_the_field():
    app = NegtuiApp(None, record=False, scenarios_dir=TEACHING)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("g")
        await wait_until(pilot, lambda: isinstance(app.screen, GenerateScreen), "the generator form")
        field = app.screen.query(Input).first()
        field.focus()
        field.value = ""
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, GenerateScreen) and field.value == "?"


@pytest.mark.parametrize("screen", ["seats", "partner", "respond", "welfare", "generate", "summary"])
async def test_quit_and_help_work_on_every_screen(screen, tmp_path):
    """ctrl+q quits and ? opens help (and closes it) whatever dialog is in front."""
    seats = ({"A": Seat.human()} if screen == "partner" else
             {"A": Seat.lens("myopic"), "B": Seat.human()} if screen == "respond" else {})
    app = NegtuiApp(None if screen == "generate" else PILL, seats=seats, ask_seats=screen == "seats",
                    record=False, scenarios_dir=TEACHING)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        if screen == "respond":
            await pilot.press("n")
        elif screen == "welfare":
            await pilot.press("w")
        elif screen == "generate":
            await pilot.press("g")
        elif screen == "summary":
            await pilot.press("r")
        kinds = {"seats": SeatsScreen, "partner": PartnerScreen, "respond": RespondScreen, "welfare": WelfareScreen,
                 "generate": GenerateScreen, "summary": SummaryScreen}
        await wait_until(pilot, lambda: isinstance(app.screen, kinds[screen]), screen)
        await pilot.pause()
        bar = screen_text(app).splitlines()[-1]  # the dialog's own keys, not the play screen's under it
        assert "^q quit" in bar and "? help" in bar and "space step" not in bar and "w welfare" not in bar, bar
        if screen == "generate":  # out of the field it starts in: a ? there is typed (tested below)
            app.screen.query_one("#go").focus()
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "help")
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, kinds[screen]), "help closed")
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert app.return_code == 0


async def test_the_seat_dialog_sets_every_seat_at_once_and_lists_many_players_a_line_each():
    app = NegtuiApp(CLIMATE, ask_seats=True, record=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, SeatsScreen), "the seat dialog")
        dialog = app.screen
        seats = [sel for sel in dialog.query(Select) if sel.id != "seat-all" and sel.id.startswith("seat-")]
        assert len(seats) == 22 and all(sel.compact for sel in seats)  # 22 players: one line each
        dialog.query_one("#seat-all", Select).value = "myopic"
        await pilot.pause()
        assert {sel.value for sel in seats} == {"myopic"}
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: app.session is not None, "the game")
        assert {s.propose for s in app.session.seats.values()} == {"myopic"}
        await pilot.press("s")  # mid-game the same dialog applies, it does not start
        await wait_until(pilot, lambda: isinstance(app.screen, SeatsScreen), "the seat dialog again")
        assert "Apply (ctrl+s)" in screen_text(app) and "Start (ctrl+s)" not in screen_text(app)


async def test_the_seat_dialog_sets_a_bots_answering_lens_apart():
    """A lens bot may propose with one lens and answer with another (the CLI's NAME=LENS/LENS); a person
    or an outside agent has no answering lens to set."""
    app = NegtuiApp(PILL, ask_seats=True, record=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, SeatsScreen), "the seat dialog")
        dialog = app.screen
        assert len(dialog.query(".seat-row")) == 3  # every seat, A and B all in view on 24 rows
        assert dialog.query_one("#seat-B", Select).region.bottom <= 24
        dialog.query_one("#seat-A", Select).value = "upper"
        dialog.query_one("#answer-A", Select).value = "lower"
        dialog.query_one("#seat-B", Select).value = "human"
        await pilot.pause()
        assert dialog.query_one("#answer-B", Select).disabled
        assert not dialog.query_one("#answer-A", Select).disabled
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: app.session is not None, "the game")
        a, b = app.session.seats["A"], app.session.seats["B"]
        assert (a.propose, a.respond) == ("upper", "lower") and a.label == "upper/lower"
        assert b.is_human
        await pilot.press("escape", "s")  # mid-game the split shows as set
        await wait_until(pilot, lambda: isinstance(app.screen, SeatsScreen), "the seat dialog again")
        assert app.screen.query_one("#answer-A", Select).value == "lower"


@pytest.mark.parametrize(("scenario", "offered"), [(PILL, True), (CLIMATE, False)])
async def test_the_seat_dialog_offers_the_exact_lens_only_where_the_game_is_small(scenario, offered):
    app = NegtuiApp(scenario, ask_seats=True, record=False)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, SeatsScreen), "the seat dialog")
        for select in app.screen.query(Select):
            values = [value for _, value in select._options]
            assert ("exact" in values) == offered, values


async def test_an_exact_seat_on_a_large_game_is_refused_before_the_app_opens():
    res = CliRunner().invoke(cli, ["play", str(CLIMATE), "--seat", "Kenya=exact", "--no-record"])
    assert res.exit_code == 2, res.output
    assert "exact solving needs" in res.stderr and "use a lens instead" in res.stderr
    assert "Traceback" not in res.output


async def test_a_session_with_an_exact_bot_in_its_own_process_is_refused_when_the_game_is_large():
    from negtui.agents import AgentOptions
    from negtui.engine import ExactTooLarge, get_rules
    from negtui.scenario import load_scenario
    from negtui.session import Session

    with pytest.raises(ExactTooLarge, match="exact solving needs"):
        Session(load_scenario(CLIMATE), get_rules("paper"), {"Kenya": Seat.lens("exact")},
                options=AgentOptions(remote_bots=True))


# --- a human turn end to end -------------------------------------------------------------------------------

@pytest.mark.parametrize("size", [(80, 24), (160, 50)])
async def test_the_coach_pane_reads_whole_at_every_width(size):
    """After the person refuses the poisoned bundle the coach pane sets the refusal beside each lens;
    narrow, its headers are short and explained, never cut."""
    app = pill_app(A=Seat.lens("myopic"), B=Seat.human())
    async with app.run_test(size=size) as pilot:
        await pilot.press("n")  # A (myopic) offers the bundle
        await wait_until(pilot, lambda: isinstance(app.screen, RespondScreen), "A's offer")
        await pilot.press("r")
        await settle(pilot)
        await wait_until(pilot, lambda: "coach, turn 0" in screen_text(app), "the coaching")
        await pilot.press("escape", "5")  # close the partner dialog of B's own turn; open the coach pane
        await pilot.pause()
        text = screen_text(app)
        pane = text[text.index("coach · turn 0"):text.index("coach, turn 0")]
        assert "…" not in pane
        side = app.screen.query_one("#side").region.x  # the pane's lines, without the matrix beside them
        lines = [ln[side:].strip() for ln in text.splitlines()]
        if size[0] < 104:
            assert any(ln.split() == ["by", "decision", "myo", "up", "low", "ex"] for ln in lines), pane
            assert "myo = myopic" in text.replace("\n", " ")
        else:
            assert any("choice by" in ln and "exact value" in ln for ln in lines), pane
        assert any(ln.split()[:2] == ["you", "reject"] for ln in lines if ln)


async def test_the_cell_under_the_cursor_explains_itself_from_the_start():
    app = pill_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        text = " ".join(screen_text(app).split())
        assert "A · Alice: bait — A's share of the joint" in text  # before any key
        assert "feeds: joint project (+30)" in text  # the goal by its label, its value to the cell's owner


async def test_the_matrix_names_every_action_where_the_height_allows():
    """Tall enough, each action has a line in the scenario's words under its player, the left column
    grows to hold them, and up/down walk the actions across players; short, it is a grid of cells
    with no column numbers, and the panel under it names the cell under the cursor."""
    app = NegtuiApp(HUMANITARIAN, ask_seats=False, record=False)
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.pause()
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
        await pilot.pause(0.3)
        assert not matrix.listed
        assert app.screen.query_one("#left").size.width == 40
        text = screen_text(app)
        assert "actions" in text and " 0  1  2  3" not in text
        assert "Host Government: Authorise the northern corridor" in " ".join(text.split())
        await pilot.press("right")
        await pilot.pause()
        assert matrix.cursor == (1, 2)


async def test_a_resize_relays_the_side_panes_at_once():
    app = NegtuiApp(SIX, ask_seats=False, record=False)
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.pause()
        await pilot.press("2")  # forecasts
        await pilot.pause()
        assert "myopic" in screen_text(app) and " myo " not in screen_text(app)
        await pilot.resize_terminal(80, 24)
        await pilot.pause(0.2)
        assert " myo " in screen_text(app) and "trend" not in screen_text(app)  # no turn played meanwhile
        await pilot.resize_terminal(160, 40)
        await pilot.pause(0.2)
        assert "myopic" in screen_text(app) and "trend" in screen_text(app)


async def test_a_person_with_nothing_left_to_offer_or_ask_for_passes_without_a_dialog(tmp_path):
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
        await wait_until(pilot, lambda: app.session.over, "the game's end")
        assert not any(isinstance(s, PartnerScreen) for s in app.screen_stack)
        last = app.session.events[-1]
        assert (last.proposer, last.offer.is_noop) == (1, True)
        assert payoffs(app) == [10.0, 10.0]


@pytest.mark.parametrize(("size", "beside"), [((160, 50), True), ((80, 24), False)])
async def test_a_bots_offer_leaves_the_matrix_in_view_on_a_wide_terminal(size, beside):
    app = pill_app(A=Seat.lens("myopic"), B=Seat.human())
    async with app.run_test(size=size) as pilot:
        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(app.screen, RespondScreen), "A's offer")
        await pilot.pause()
        assert app.screen.has_class("beside") == beside
        text = screen_text(app)
        assert "thinking" not in text.splitlines()[0]  # the game waits for the person, not for a bot
        if beside:
            lines = text.splitlines()
            b = next(k for k, ln in enumerate(lines) if ln.startswith(" ◆ B · Bob"))
            b_cells = [ln[:40] for ln in lines[b + 1:b + 3]]
            assert any("++ bait" in ln for ln in b_cells), b_cells  # B's offered cells marked beside it


async def test_a_step_of_autoplay_due_on_a_persons_turn_opens_no_second_partner_dialog():
    """Autoplay schedules the next step after a pause; a step that falls due once the person's partner
    dialog is open must leave it alone (else the person's first enter closes an invisible second dialog
    and their next key lands somewhere they did not aim)."""
    app = pill_app(A=Seat.human())
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen), "the partner dialog")
        ps = play_screen(app)
        ps.live_step()  # what a stale autoplay tick does
        await pilot.pause()
        assert [type(s).__name__ for s in app.screen_stack].count("PartnerScreen") == 1
        await pilot.press("down", "enter")  # B
        await pilot.pause()
        assert app.screen is ps and ps.offer_partner == 1
        await pilot.press("enter")
        await pilot.pause()
        assert ps.offer_cells == {A_BAIT}  # the key reached the matrix


async def test_human_offers_bait_alone_b_accepts_and_game_ends_with_summary():
    app = pill_app(A=Seat.human())
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen), "the partner dialog")
        partners = [o.partner for o in app.screen.options]
        assert partners == [0, 1]  # A itself (unilateral) and B
        await pilot.press("down", "enter")  # B
        await pilot.pause()
        ps = play_screen(app)
        assert app.screen is ps and ps.offer_partner == 1
        await pilot.press("enter", "down", "down", "enter")  # A.bait, then B.bait two lines below it
        await pilot.pause()
        assert ps.offer_cells == {A_BAIT, B_BAIT}
        panel = screen_text(app)
        assert "offer A → B: A commits bait; B commits" in panel
        assert "yes ◀" in panel  # B's own lens (upper) accepts
        assert app.session.events == []
        await pilot.press("o")
        await settle(pilot)
        ev = app.session.events[-1]
        assert (ev.t, ev.proposer, ev.partner, ev.accepted) == (0, 0, 1, True)
        assert ev.decided_by == "B (upper)"
        assert app.session.state.t == 1 and app.session.state.bits == (1 << A_BAIT) | (1 << B_BAIT)
        assert payoffs(app) == [30.0, 30.0]
        assert ps.offer_partner is None and ps.offer_cells == set()
        assert "A commits bait; B commits bait — accepted" in screen_text(app)
        assert not app.session.over
        # B's bot turn: one step (space) ends the game
        await pilot.press("space")
        await settle(pilot)
        assert app.session.over and len(app.session.events) == 2
        await wait_until(pilot, lambda: isinstance(app.screen, SummaryScreen), "the summary")
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


async def test_human_offers_poison_bundle_upper_b_rejects():
    app = pill_app(A=Seat.human())
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen), "the partner dialog")
        await pilot.press("down", "enter")
        await pilot.pause()
        ps = play_screen(app)
        await pilot.press("enter", "down", "down", "enter", "down", "enter")  # A.bait, B.bait, B.poison
        await pilot.pause()
        assert ps.offer_cells == {A_BAIT, B_BAIT, B_POISON}
        await pilot.press("o")
        await settle(pilot)
        ev = app.session.events[-1]
        assert ev.accepted is False and ev.offer.bits == 0b1101
        assert app.session.state.t == 1 and app.session.state.bits == 0
        assert payoffs(app) == [0.0, 0.0]
        assert "B commits bait, poison — rejected" in screen_text(app)
        # the side panes: 1-4 switch, v sorts goals, f filters the log by the focused player
        tabs = ps.query_one(TabbedContent)
        assert tabs.active == "forecasts"
        await pilot.press("3")
        assert tabs.active == "log"
        await pilot.pause()
        assert "rejected" in screen_text(app).split("turn log", 1)[1]
        await pilot.press("4")
        assert tabs.active == "network"
        await pilot.press("v")
        await pilot.pause()
        assert tabs.active == "goals" and "by value (v)" in screen_text(app)
        await pilot.press("f")  # the cursor is on B.poison: only B's turns
        await pilot.pause()
        assert tabs.active == "log" and "turn log · only B" in screen_text(app)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen) and "negtui — keys" in screen_text(app)
        await pilot.press("escape")
        assert app.return_code is None
        await pilot.press("q")
        await pilot.pause()
        assert app.return_code == 0

async def test_key_bar_lists_the_usable_keys_and_a_click_presses_one():
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
        await pilot.pause()
        wide = screen_text(app).splitlines()[-1]
        assert " l lesson  ? help  q quit " in wide and wide.rstrip().endswith("^p palette")
        await pilot.click(KeyBar, offset=(wide.index("? help") + 3, 0))
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape", "p")
        await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen), "the partner dialog")
        await pilot.press("enter")  # A itself: now an offer is being built
        await pilot.pause()
        assert ("o", "o", "offer", True, "submit") in bar.shown and " o offer " in screen_text(app).splitlines()[-1]



async def test_offer_building_escape_and_a_unilateral_commitment():
    app = pill_app(A=Seat.human())
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen), "the partner dialog")
        assert "A alone" in screen_text(app)  # the proposer itself, said as such
        await pilot.press("enter")  # A itself: a unilateral commitment
        await pilot.pause()
        ps = play_screen(app)
        assert ps.offer_partner == 0
        await pilot.press("down", "down", "enter")  # B.bait belongs to neither side of A → A
        await pilot.pause()
        assert ps.offer_cells == set()
        assert "belongs to neither side" in ps.query_one("#status").plain
        await pilot.press("up", "up", "space", "space", "space")  # space toggles while an offer is being built
        assert ps.offer_cells == {A_BAIT} and app.session.events == []
        await pilot.pause()
        panel = screen_text(app)
        assert "A alone: A commits bait" in panel and "accepts?" not in panel  # nobody else has to agree
        await pilot.press("escape")  # back to the partner choice, the offer dropped
        await pilot.pause()
        assert isinstance(app.screen, PartnerScreen) and ps.offer_partner is None and ps.offer_cells == set()
        await pilot.press("enter")  # A again
        await pilot.pause()
        await pilot.press("enter", "o")
        await pilot.pause()
        assert not isinstance(app.screen, RespondScreen), "a human was asked to accept their own offer"
        ev = app.session.events[-1]
        assert (ev.proposer, ev.partner, ev.accepted) == (0, 0, True)
        assert app.session.state.bits == 1 << A_BAIT
        assert payoffs(app) == [15.0, 15.0]


# --- a bot's offer to a human ------------------------------------------------------------------------------

async def _bot_offer_to_human_b(pilot, app) -> RespondScreen:
    assert isinstance(app.screen, PlayScreen) and not app.session.is_human(app.session.proposer)
    await pilot.press("n")
    await settle(pilot)
    await wait_until(pilot, lambda: isinstance(app.screen, RespondScreen), "the answer dialog")
    dlg = app.screen
    assert dlg.title_text == "A offers B a deal"
    assert dlg.words == "A commits bait; B commits bait, poison"
    assert dlg.preview.partner["myopic"].accept == pytest.approx(7.0)
    assert dlg.preview.partner["myopic"].reject == pytest.approx(0.0)
    assert "A offers B a deal" in screen_text(app)
    assert app.session.events == []  # nothing happens until B answers
    return dlg


async def test_bot_offer_to_human_accepted():
    app = pill_app(A=Seat.lens("myopic"), B=Seat.human())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await _bot_offer_to_human_b(pilot, app)
        await pilot.press("a")
        await pilot.pause()
        ev = app.session.events[-1]
        assert ev.accepted is True and ev.decided_by == "B (human)"
        assert app.session.state.bits == 0b1101
        assert payoffs(app) == [40.0, 7.0]
        # B's own turn now: the partner dialog; passing ends the game
        await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen), "B's partner dialog")
        await pilot.press("x")
        await wait_until(pilot, lambda: isinstance(app.screen, SummaryScreen), "the summary")
        assert app.session.over
        np.testing.assert_allclose(app.session.neg.returns(app.session.state), [40.0, 7.0])
        text = screen_text(app)
        assert "40.00" in text and "7.00" in text


async def test_bot_offer_to_human_rejected_then_human_offers_bait():
    app = pill_app(A=Seat.lens("myopic"), B=Seat.human())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await _bot_offer_to_human_b(pilot, app)
        await pilot.press("r")
        await pilot.pause()
        ev = app.session.events[-1]
        assert ev.accepted is False and ev.decided_by == "B (human)"
        assert app.session.state.t == 1 and app.session.state.bits == 0  # no commitments from that turn
        assert payoffs(app) == [0.0, 0.0]
        # B proposes the bait alone to A; a myopic A accepts: 30/30
        await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen), "B's partner dialog")
        assert [o.partner for o in app.screen.options] == [0, 1]
        await pilot.press("enter")  # A
        await pilot.pause()
        await pilot.press("enter", "down", "down", "enter", "o")  # A.bait, B.bait
        await settle(pilot)
        assert app.session.over
        assert app.session.events[-1].accepted is True and app.session.events[-1].decided_by == "A (myopic)"
        assert payoffs(app) == [30.0, 30.0]
        await wait_until(pilot, lambda: isinstance(app.screen, SummaryScreen), "the summary")


async def test_an_outside_program_in_a_seat_offers_to_a_person():
    """A is a program speaking the agent protocol (the example lens agent, myopic): its offer reaches the
    person at B through the same reply dialog, and the matrix marks the offered cells behind it."""
    import shlex
    import sys

    agent = LENS_AGENT
    seat = Seat(agent="cmd", command=f"{shlex.quote(sys.executable)} {shlex.quote(str(agent))} --lens myopic")
    app = pill_app(A=seat, B=Seat.human())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        dlg = await _bot_offer_to_human_b(pilot, app)
        assert dlg.preview.partner["myopic"].gain == pytest.approx(7.0)
        assert play_screen(app).snapshot().offer_cells == {A_BAIT, B_BAIT, B_POISON}
        await pilot.press("a")
        await pilot.pause()
        ev = app.session.events[-1]
        assert ev.accepted and ev.decided_by == "B (human)" and payoffs(app) == [40.0, 7.0]
        assert ev.offer.cells == (A_BAIT, B_BAIT, B_POISON) and ev.fault is None
        assert app.session.seats["A"].label.startswith("cmd: ")


# --- autoplay ----------------------------------------------------------------------------------------------

async def test_autoplay_six_party_to_the_end_matches_the_command_line():
    app = NegtuiApp(SIX, ask_seats=False, record=False, sims=4, partner="greedy")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        ps = play_screen(app)
        await pilot.press("plus", "plus")
        assert ps.speed == 0
        await pilot.press("r")
        assert ps.running or app.session.events
        await wait_until(pilot, lambda: isinstance(app.screen, SummaryScreen), "the end of autoplay", timeout=30)
        assert app.session.over and not ps.running
        assert len(app.session.events) == app.session.neg.game.T == 24
        await pilot.pause()
        assert "Game over" in screen_text(app)
        mine = [round(v, 6) for v in payoffs(app)]
    res = CliRunner().invoke(cli, ["autoplay", str(SIX), "--partner", "greedy", "--sims", "4", "--json"])
    assert res.exit_code == 0, res.output
    assert mine == [round(v, 6) for v in json.loads(res.stdout)["payoffs"]]


async def test_autoplay_pause_stops_after_the_current_turn():
    app = NegtuiApp(SIX, ask_seats=False, record=False, sims=4, partner="greedy")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        ps = play_screen(app)
        await pilot.press("minus")  # half a second between turns
        assert ps.speed == 3
        await pilot.press("r")
        await settle(pilot)
        assert ps.running and len(app.session.events) == 1
        assert "▶▶ 0.5s" in screen_text(app)
        await pilot.press("r")  # pause while the next turn waits on its timer
        assert not ps.running
        await pilot.pause(0.9)
        await settle(pilot)
        assert len(app.session.events) == 1, "a turn was played after autoplay was paused"
        await pilot.press("n")  # stepping still works while paused
        await settle(pilot)
        assert len(app.session.events) == 2 and not ps.running


# --- seats mid-game ----------------------------------------------------------------------------------------

async def test_switching_seats_mid_game():
    app = pill_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert not app.session.is_human(0)
        await pilot.press("s")
        await pilot.pause()
        assert isinstance(app.screen, SeatsScreen)
        app.screen.query_one("#seat-A", Select).value = "human"
        app.screen.query_one("#seat-B", Select).value = "myopic"
        await pilot.click("#done")
        await pilot.pause()
        assert app.session.seats["A"] == Seat.human()
        assert app.session.seats["B"] == Seat.lens("myopic", seed=1)  # B keeps its bot's search settings
        assert app.session.is_human(0) and app.session.table.respond_lens(1) == "myopic"
        # it is A's turn and A is human now: the partner dialog opens
        await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen), "the partner dialog")
        await pilot.press("escape")
        # and back to a bot: stepping plays A's turn
        await pilot.press("s")
        await pilot.pause()
        app.screen.query_one("#seat-A", Select).value = "upper"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.session.seats["A"] == Seat.lens("upper")  # a person's seat given to a bot: bot 0's settings
        await pilot.press("space")
        await settle(pilot)
        assert len(app.session.events) == 1 and app.session.events[0].proposer == 0


# --- welfare -----------------------------------------------------------------------------------------------

async def test_the_welfare_optimum_is_marked_on_the_matrix_until_the_next_turn():
    """m on the welfare screen closes it and marks ◇◇ the cells the optimum still needs; the legend names
    the objective; the mark goes with the next turn (the optimum was of the position it was solved at)."""
    app = pill_app(A=Seat.lens("myopic"), B=Seat.lens("myopic"))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        ps = play_screen(app)
        await pilot.press("w")
        await wait_until(pilot, lambda: isinstance(app.screen, WelfareScreen) and app.screen.result is not None,
                         "the welfare result")
        await pilot.press("m")
        await pilot.pause()
        assert app.screen is ps
        text = screen_text(app)
        assert "◇◇ bait" in text and "◇◇ poison" not in text and "◇◇ side" not in text
        assert text.count("◇◇ bait") == 2  # A's bait and B's bait: 30 each
        assert "◇◇ utilitarian optimum" in text
        await pilot.press("n")
        await wait_until(pilot, lambda: app.session.state.t == 1, "the next turn")
        await pilot.pause(0.2)
        assert "◇◇" not in screen_text(app)


# a worker that reads its request and never answers: a solve that lasts until it is killed
_HELD = (sys.executable, "-c", "import sys, time; sys.stdin.read(); time.sleep(600)")


def _held(job) -> subprocess.Popen:
    assert job is not None and not job.done(), "the held solve ended on its own"
    return job._proc


async def test_welfare_optimum_shown_then_a_solve_cancelled(monkeypatch):
    app = pill_app()
    procs: list[subprocess.Popen] = []
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            ps = play_screen(app)
            await pilot.press("w")
            await pilot.pause()
            scr = app.screen
            assert isinstance(scr, WelfareScreen)
            status = scr.query_one("#welfare-status", Static)
            await wait_until(pilot, lambda: "welfare " in str(status.content), "the welfare result")
            assert scr.result.welfare == pytest.approx(60.0)
            assert scr.result.payoffs == pytest.approx([30.0, 30.0])
            shown = str(status.content)
            assert "utilitarian: welfare 60.000, the largest sum of payoffs" in shown
            assert "the optimum adds: A commits bait; B commits bait" in shown  # which commitments reach it
            text = screen_text(app)
            assert "optimum" in text and "30.0" in text and "gap" in text
            # another objective: solved at once, the old table gone, its number explained
            scr.query_one("#objective", Select).value = "nash"
            await pilot.pause()
            assert scr.result is None and "solving nash" in str(status.content)
            await wait_until(pilot, lambda: scr.result is not None, "the Nash result")
            assert "nash: welfare" in str(status.content) and "largest product of payoffs" in str(status.content)
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen is ps

            monkeypatch.setattr(WelfareJob, "command", _HELD)  # from here on, solves last until cancelled
            await pilot.press("w")
            await wait_until(pilot, lambda: isinstance(app.screen, WelfareScreen) and app.screen.job is not None,
                             "the solve to start")
            scr = app.screen
            procs.append(_held(scr.job))
            status = scr.query_one("#welfare-status", Static)
            assert "solving utilitarian" in str(status.content)
            await pilot.press("c")
            await pilot.pause()
            assert "solve cancelled" in str(status.content)
            assert scr.job is None and scr.result is None
            assert procs[-1].wait(timeout=5) == -signal.SIGKILL  # the worker process is gone
            await pilot.pause(0.3)
            assert "solve cancelled" in str(status.content)  # no late result
            # solve again, and quit the app while it runs: the worker process must not outlive the app
            await pilot.click("#solve")
            await wait_until(pilot, lambda: scr.job is not None, "the solve to start again")
            procs.append(_held(scr.job))
            assert "solving utilitarian" in str(status.content)
        assert procs[-1].wait(timeout=5) == -signal.SIGKILL, "the worker process outlived the app"
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()


# --- replay ------------------------------------------------------------------------------------------------

async def test_replay_step_back_jump_and_take_over(tmp_path):
    rec = record_game(tmp_path / "six.jsonl")
    rp = Replay(load_record(rec))
    assert rp.last_turn == 24 and rp.state_at(4).bits != 0
    app = NegtuiApp(replay=rec, record=True, data_dir=tmp_path, partner="greedy", sims=4)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        ps = play_screen(app)
        assert ps.replay is not None and ps.session is None and app.session is None
        assert ps.pos == 0 and "REPLAY 0/24 turns played" in screen_text(app)
        assert not ps.check_action("seats", ()) and not ps.check_action("submit", ())
        await pilot.press("full_stop", "full_stop", "full_stop")
        await pilot.pause()
        assert ps.pos == 3 and ps.state == rp.state_at(3)
        text = screen_text(app)
        assert "REPLAY 3/24 turns played" in text and f"t  2 r1  {rp.record.turns[2].proposer} → {rp.record.turns[2].partner}" in text
        await pilot.press("comma")
        await pilot.pause()
        assert ps.pos == 2 and ps.state == rp.state_at(2)
        await pilot.press("comma", "comma", "comma")  # stops at the first turn
        assert ps.pos == 0
        # jump: out of range is refused, then turn 20
        await pilot.press("g")
        await pilot.pause()
        assert isinstance(app.screen, JumpScreen)
        await pilot.press("9", "9", "enter")
        await pilot.pause()
        assert isinstance(app.screen, JumpScreen) and ps.pos == 0
        await pilot.press("question_mark")  # the turn field takes digits only: ? is help, even while typing
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "help over the jump dialog")
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, JumpScreen), "back to the jump dialog")
        assert app.screen.query_one("#turn").value == "99"
        app.screen.query_one("#turn").value = ""
        await pilot.press("2", "0", "enter")
        await pilot.pause()
        assert app.screen is ps and ps.pos == 20 and ps.state == rp.state_at(20)
        text = screen_text(app)
        assert "REPLAY 20/24 turns played" in text and "turn 21/24" not in text  # one counter, not two
        assert f"t 19 r4  {rp.record.turns[19].proposer}" in text  # the status follows the jump
        # autoplay the replay to its end; stepping past the end does nothing
        await pilot.press("plus", "plus", "r")
        await wait_until(pilot, lambda: not ps.running, "the replay's end")
        assert ps.pos == 24 and ps.state == rp.final
        await pilot.press("full_stop")
        assert ps.pos == 24
        await pilot.pause()
        assert "REPLAY 24/24 turns played" in screen_text(app)
        await pilot.press("g")
        await pilot.press("4", "enter")
        await pilot.pause()
        assert app.screen is ps and ps.pos == 4 and ps.state == rp.state_at(4)
        # take over (fork) from turn 4
        await pilot.press("t")
        await pilot.pause()
        assert isinstance(app.screen, SeatsScreen) and app.screen.title_text == "Take over from turn 4"
        assert all(app.screen.query_one(f"#seat-{pid}", Select).value == "myopic" for pid in rp.neg.game.player_ids)
        await pilot.press("ctrl+s")
        await pilot.pause()
        live = play_screen(app)
        assert live is not ps and live.session is app.session and live.replay is None
        ses = app.session
        assert ses.state == rp.state_at(4) and ses.start == rp.state_at(4)
        assert ses.events == []
        assert ses.record_path is not None and ses.record_path.parent == tmp_path / "records"
        header = json.loads(ses.record_path.read_text().splitlines()[0])
        assert header["parent"]["file"] == str(rec.resolve()) and header["parent"]["turn"] == 4
        assert header["parent"]["digest"] == parent_at(rp, 4).digest
        assert header["start_turn"] == 4
        # the fork plays on from turn 4
        await pilot.press("n")
        await settle(pilot)
        assert len(ses.events) == 1 and ses.events[0].t == 4 and ses.state.t == 5
        assert "REPLAY" not in screen_text(app)
        # the log and the trends keep the game the fork continues: turns 0-3 from the record, then its own
        snap = live.snapshot()
        assert [ev.t for ev in snap.events] == [0, 1, 2, 3, 4] and len(snap.payoff_history) == 6
        same = [(e.t, e.proposer, e.partner, e.offer.bits, e.accepted) for e in rp.events[:4]]
        assert [(e.t, e.proposer, e.partner, e.offer.bits, e.accepted) for e in snap.events[:4]] == same
        await pilot.press("3")  # the log
        await pilot.pause()
        assert f"t  0 r1  {rp.record.turns[0].proposer}" in screen_text(app)
    fork = load_record(ses.record_path)
    assert fork.header.parent.turn == 4 and [t.t for t in fork.turns] == [4]


async def test_broken_record_exits_with_a_message(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "header"}\n')
    app = NegtuiApp(replay=bad, record=False)
    async with app.run_test() as pilot:
        await pilot.pause()
        assert app.return_code == 2 and app.session is None


async def test_a_game_left_before_its_first_turn_leaves_no_record(tmp_path):
    """Quitting at turn 0 removes the empty record; one played turn keeps the file."""
    app = NegtuiApp(PILL, seats={"A": Seat.lens("myopic"), "B": Seat.lens("myopic")}, ask_seats=False,
                    record=True, data_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert len(list((tmp_path / "records").glob("*.jsonl"))) == 1  # written while the game is open
        await pilot.press("ctrl+q")
    assert list((tmp_path / "records").glob("*.jsonl")) == []
    app = NegtuiApp(PILL, seats={"A": Seat.lens("myopic"), "B": Seat.lens("myopic")}, ask_seats=False,
                    record=True, data_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n")
        await wait_until(pilot, lambda: app.session.state.t == 1, "one turn")
        await pilot.press("ctrl+q")
    [kept] = list((tmp_path / "records").glob("*.jsonl"))
    assert len(kept.read_text().splitlines()) == 2  # the header and the turn


def _exact_game(tmp_path: Path, players: int, rounds: int) -> Path:
    """A generated game of 8 players × 2 actions (16 cells): small enough for the app's exact lens,
    too large to solve in a blink (2^16 masks × (turns + 1))."""
    from negtui.generator import GeneratorParams, generate
    from negtui.scenario import write_scenario

    path = tmp_path / f"exact-{players}-{rounds}.json"
    write_scenario(generate(GeneratorParams(players=players, actions=2, rounds=rounds, seed=3)), path)
    return path


async def test_a_larger_exact_solve_runs_in_the_background_and_joins_the_forecasts(tmp_path):
    """Over EXACT_AT_ONCE states the app opens at once, solves the exact game in a worker with its
    progress on the status line, and adds the exact column when it is done."""
    from negtui.engine.exact import state_space
    from negtui.session import EXACT_AT_ONCE, EXACT_IN_APP_LIMIT

    path = _exact_game(tmp_path, 8, 1)
    app = NegtuiApp(path, ask_seats=False, record=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert EXACT_AT_ONCE < state_space(app.session.neg.game) <= EXACT_IN_APP_LIMIT
        await pilot.press("2")
        await wait_until(pilot, lambda: "solving the exact game" in screen_text(app) or app.session.exact_ready,
                         "the solve under way")
        await wait_until(pilot, lambda: app.session.exact_ready, "the exact solution", timeout=60)
        await pilot.pause(0.3)
        assert "exact solution ready" in screen_text(app)
        assert "exact" in app.screen.query_one("#forecast-table").render().plain.split("\n")[1]


async def test_the_background_exact_solve_can_be_cancelled(tmp_path):
    path = _exact_game(tmp_path, 8, 5)
    app = NegtuiApp(path, ask_seats=False, record=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        ps = play_screen(app)
        await wait_until(pilot, lambda: ps.exact_solving, "the solve to start")
        assert "c cancel solve" in screen_text(app)
        await pilot.press("c")
        await wait_until(pilot, lambda: not ps.exact_solving, "the solve to stop", timeout=30)
        assert "exact solve cancelled" in screen_text(app)
        assert not app.session.exact_ready and "exact" not in app.session.lenses
        assert "c cancel solve" not in screen_text(app)
        await pilot.press("n")  # the game goes on without it
        await wait_until(pilot, lambda: app.session.state.t == 1, "a turn")
