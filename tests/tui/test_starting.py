"""Starting a game in the app: the seat dialog (keyboard, buttons, every seat at once, a bot's answering
lens, the exact lens only where it fits), the picker and the generator form, escape and quit and help on
every screen, and the contrast of the text colours."""

from __future__ import annotations

import re
import threading

import pytest
from textual.widgets import Input, OptionList, Select, Static

from negtui.seats import Seat
from negtui.tui.app import NegtuiApp
from negtui.tui.screens.dialogs import HelpScreen, PartnerScreen, RespondScreen
from negtui.tui.screens.game import GameScreen
from negtui.tui.screens.picker import GenerateScreen, PickerScreen
from negtui.tui.screens.seats import ChoiceMenu, SeatsScreen
from negtui.tui.screens.summary import SummaryScreen
from negtui.tui.screens.welfare import WelfareScreen
from tests.paths import CLIMATE, PILL, RIVER_BASIN, TEACHING

pytestmark = pytest.mark.asyncio


async def test_start_with_seats_dialog_keyboard_and_start_button(screen_text, wait_until):
    app = NegtuiApp(PILL, ask_seats=True, record=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, SeatsScreen)
        assert app.game is None
        dialog = app.screen
        # 75% of the poison pill's value is positive: the bots start as lower, and the dialog says why
        assert dialog.plays("A") == "lower" and dialog.plays("B") == "lower"
        shown = screen_text(app)
        assert "Bots play lower:" in shown and "75% of the value" in shown
        assert [row.label for row in dialog.grid.rows] == ["every seat", "A · Alice", "B · Bob"]  # names, with ids
        assert re.search(r"A · Alice +lower +▾ +its own lens +▾", shown)
        # choose "human" for A with the keyboard: the cursor starts on A's seat; open its choices, go to the
        # top one, pick it
        assert dialog.grid.has_focus
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceMenu), "A's choices")
        await pilot.press("home", "enter")
        await wait_until(pilot, lambda: app.screen is dialog, "the seat dialog again")
        assert dialog.plays("A") == "human" and dialog.answers("A") is None
        await wait_until(pilot, lambda: re.search(r"A · Alice +human", screen_text(app)), "A's seat shown human")
        line = next(ln for ln in screen_text(app).splitlines() if "A · Alice" in ln)
        assert re.search(r"A · Alice +human +▾", line) and "its own lens" not in line  # a person answers as they decide
        await pilot.click("#done")
        await pilot.pause()
        assert app.game is not None
        assert app.game.seats["A"].is_human and not app.game.seats["B"].is_human
        assert app.live.game.seats["B"].propose_lens == "lower"
        # A proposes first and is human: the partner dialog opens by itself
        await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen), "the partner dialog")
        await wait_until(pilot, lambda: "A, choose a partner" in screen_text(app), "the partner dialog drawn")
        assert screen_text(app).startswith(" ▶ A · Alice (human)")


async def test_start_with_seats_all_bots_and_ctrl_s(screen_text, wait_until):
    app = NegtuiApp(PILL, seats={"A": Seat.human()}, ask_seats=True, record=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        dialog = app.screen
        assert dialog.plays("A") == "human"
        assert dialog.plays("B") == "lower"  # the seat not named: the regime's lens
        await pilot.click("#bots")
        await pilot.pause()
        assert dialog.plays("A") == "lower"  # positive goals dominate the pill
        dialog.choose("B", plays="myopic")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, GameScreen)
        assert {pid: s.label for pid, s in app.game.seats.items()} == {"A": "lower", "B": "myopic"}
        await wait_until(pilot, lambda: "A · Alice (lower)" in screen_text(app), "the game's first screen")


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
        assert app.game is None and app.return_code is None
        assert isinstance(app.screen, PickerScreen)  # not a silent exit: another scenario can be chosen
        await pilot.press("q")
        await pilot.pause()
        assert app.return_code == 0


async def test_escape_puts_an_offer_aside_and_a_step_shows_it_again(screen_text, settle, wait_until, pill_app):
    app = pill_app(A=Seat.lens("myopic"), B=Seat.human())
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(app.screen, RespondScreen), "A's offer")
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, GameScreen) and app.game.events == []  # not answered: not rejected
        await wait_until(pilot, lambda: "waits for your answer" in screen_text(app), "the status on the offer aside")
        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(app.screen, RespondScreen), "the offer again")
        await pilot.press("x")
        await settle(pilot)
        assert app.game.events[-1].accepted is False


async def test_the_generator_form_starts_in_its_first_field_explains_bad_numbers_and_sets_the_rules(wait_until,
                                                                                                    tmp_path):
    app = NegtuiApp(None, record=False, data_dir=tmp_path, scenarios_dir=TEACHING)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("g")
        await wait_until(pilot, lambda: isinstance(app.screen, GenerateScreen), "the generator form")
        await pilot.pause()
        form = app.screen
        assert app.focused is form.query_one("#gen-players", Input)
        assert "Enter in any field (or Generate) makes the game" in str(form.query_one(".dialog-note", Static).render())
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
        await wait_until(pilot, lambda: app.game is not None, "the game")
        assert app.game.neg.rules.name == "reference" and app.game.neg.game.n == 4


async def test_the_picker_lists_games_generated_here_and_records_to_replay(screen_text, wait_until, laid_out,
                                                                           record_game, cli, tmp_path):
    (tmp_path / "scenarios").mkdir()
    assert cli("generate", "--players", "4", "--goals", "5", "--factors", "2", "-o",
               str(tmp_path / "scenarios" / "mine.json")).exit_code == 0
    (tmp_path / "records").mkdir()
    rec = record_game(tmp_path / "records" / "game.jsonl", PILL)
    app = NegtuiApp(None, record=False, data_dir=tmp_path, scenarios_dir=TEACHING)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PickerScreen) and laid_out(app), "the picker")
        text = screen_text(app)
        assert "generated here" in text and "replay game.jsonl" in text
        options = app.screen.query_one(OptionList)
        options.highlighted = options.option_count - 1  # the record, listed last
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, GameScreen), "the replay")
        assert app.screen.source.replay is not None and app.screen.source.replay.record.scenario.name == "poison-pill"
        assert str(rec).endswith("game.jsonl")


async def test_a_question_mark_typed_into_a_field_stays_in_the_field(wait_until):
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
async def test_quit_and_help_work_on_every_screen(screen_text, wait_until, screen, tmp_path):
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
        await wait_until(pilot, lambda: "^q quit" in screen_text(app).rstrip().rpartition("\n")[2],
                         f"the {screen} dialog's keys")
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


async def test_the_seat_dialog_sets_every_seat_at_once_and_lists_many_players_a_line_each(screen_text, wait_until,
                                                                                          laid_out):
    app = NegtuiApp(CLIMATE, ask_seats=True, record=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, SeatsScreen) and laid_out(app), "the seat dialog")
        dialog = app.screen
        seats = dialog.grid.seats()
        assert len(seats) == 22 and dialog.grid.size.height == 23  # 22 players and every seat: one line each
        # every seat at once, by keyboard: up to the first row, open its choices, pick myopic
        await pilot.press("up", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceMenu), "every seat's choices")
        await pilot.press("home", "down", "enter")
        await wait_until(pilot, lambda: app.screen is dialog, "the seat dialog again")
        assert {dialog.plays(row.pid) for row in seats} == {"myopic"}
        await pilot.press("end")  # the last seat scrolls into view
        await pilot.pause()
        assert seats[-1].label in screen_text(app) and seats[0].label not in screen_text(app)
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: app.game is not None, "the game")
        assert {s.propose_lens for s in app.game.seats.values()} == {"myopic"}
        await pilot.press("s")  # mid-game the same dialog applies, it does not start
        await wait_until(pilot, lambda: isinstance(app.screen, SeatsScreen) and laid_out(app), "the seat dialog again")
        assert "Apply (ctrl+s)" in screen_text(app) and "Start (ctrl+s)" not in screen_text(app)


async def test_the_seat_dialog_sets_a_bots_answering_lens_apart(wait_until, screen_text, laid_out):
    """A lens bot may propose with one lens and answer with another (the CLI's NAME=LENS/LENS); a person
    or an outside agent has no answering lens to set."""
    app = NegtuiApp(PILL, ask_seats=True, record=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, SeatsScreen) and laid_out(app), "the seat dialog")
        dialog = app.screen
        shown = screen_text(app)
        assert "every seat" in shown and "A · Alice" in shown and "B · Bob" in shown  # all in view on 24 rows
        dialog.choose("A", plays="upper")
        await pilot.press("right", "enter")  # A's answering lens, by keyboard
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceMenu), "A's answering lenses")
        menu = app.screen.query_one(OptionList)
        assert app.screen.labels[:4] == ["its own lens", "myopic", "upper", "lower"]
        await pilot.press("end", "home", "down", "down", "down")
        await pilot.pause()
        assert app.screen.values[menu.highlighted] == "lower"
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.screen is dialog, "the seat dialog again")
        dialog.choose("B", plays="human")
        await pilot.pause()
        assert dialog.answers("B") is None and dialog.answers("A") == "lower"
        assert "its own lens" not in " ".join(ln for ln in screen_text(app).splitlines() if "B · Bob" in ln)
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: app.game is not None, "the game")
        a, b = app.game.seats["A"], app.game.seats["B"]
        assert (a.propose_lens, a.respond_lens) == ("upper", "lower") and a.label == "upper/lower"
        assert b.is_human
        await pilot.press("escape", "s")  # mid-game the split shows as set
        await wait_until(pilot, lambda: isinstance(app.screen, SeatsScreen), "the seat dialog again")
        assert app.screen.answers("A") == "lower"


@pytest.mark.parametrize(("scenario", "offered"), [(PILL, True), (CLIMATE, False)])
async def test_the_seat_dialog_offers_the_exact_lens_only_where_the_game_is_small(wait_until, monkeypatch, scenario,
                                                                                  offered):
    checked = threading.Event()  # whether the exact lens fits is found beside the dialog, in a thread
    check = NegtuiApp._check_game

    def check_game(self, *args):
        try:
            check(self, *args)  # it offers the lens (call_from_thread: on the screen once it returns)
        finally:
            checked.set()

    monkeypatch.setattr(NegtuiApp, "_check_game", check_game)
    app = NegtuiApp(scenario, ask_seats=True, record=False)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, SeatsScreen), "the seat dialog")
        await wait_until(pilot, checked.is_set, "the check of the game beside the dialog", timeout=60)
        await pilot.pause()
        for row in app.screen.grid.rows:
            values = [value for _, value in row.choices] + [value for _, value in row.answer_choices]
            assert ("exact" in values) == offered, values


@pytest.mark.parametrize(("players", "rounds", "says"), [
    (9, 2, "over the 3,000,000 the app solves while you choose; `negtui play FILE --seat NAME=exact` seats it anyway"),
])
async def test_the_seat_dialog_says_why_it_does_not_offer_the_exact_lens(wait_until, screen_text, monkeypatch,
                                                                         tmp_path, players, rounds, says):
    """A game over the app's limit for the exact lens but within the solver's is one `--seat P0=exact` takes on
    the command line: the dialog says so rather than leave the lens missing unexplained (past the solver's
    limit the command line refuses it too, and nothing is said)."""
    from negtui.engine import memory
    from negtui.generator import GeneratorParams, generate
    from negtui.scenario import write_scenario

    monkeypatch.setattr(memory, "available", lambda: 2**40)  # the answer is the game's, not this machine's
    path = tmp_path / "g.json"
    write_scenario(generate(GeneratorParams(players=players, actions=2, rounds=rounds, seed=3)), path)
    app = NegtuiApp(path, ask_seats=True, record=False)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_until(pilot, lambda: "exact is not offered" in screen_text(app), "the dialog's word on exact",
                         timeout=60)
        assert says in " ".join(screen_text(app).replace("█", " ").split())  # the dialog's lines, its border left out
        assert all("exact" not in [v for _, v in row.choices] for row in app.screen.grid.rows)


async def test_an_exact_seat_on_a_large_game_is_refused_before_the_app_opens(cli):
    res = cli("play", str(CLIMATE), "--seat", "Kenya=exact", "--no-record")
    assert res.exit_code == 2, res.output
    assert "exact solving needs" in res.stderr and "use a lens instead" in res.stderr
    assert "Traceback" not in res.output


async def test_a_session_with_an_exact_bot_in_its_own_process_is_refused_when_the_game_is_large():
    from negtui.agents import AgentOptions
    from negtui.engine import ExactTooLarge, get_rules
    from negtui.play import LiveGame
    from negtui.scenario import load_scenario

    with pytest.raises(ExactTooLarge, match="exact solving needs"):
        LiveGame(load_scenario(CLIMATE), get_rules("paper"), {"Kenya": Seat.lens("exact")},
                options=AgentOptions(remote_bots=True))


async def test_the_seat_grid_by_mouse_escape_and_every_seat_answering(wait_until, screen_text, laid_out):
    """A click on a cell opens its choices; escape (or a click beside them) leaves the cell as it was; the
    every-seat row's answering cell sets every bot's answering lens, and leaves a person's seat alone."""
    app = NegtuiApp(PILL, seats={"A": Seat.human()}, ask_seats=True, record=False)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, SeatsScreen) and laid_out(app), "the seat dialog")
        dialog = app.screen
        grid = dialog.grid
        at = grid.cell_region(2, 0)  # B's seat
        await pilot.click(offset=(at.x + 2, at.y))
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceMenu), "B's choices")
        assert grid.cursor == (2, 0)
        await pilot.press("home", "escape")
        await wait_until(pilot, lambda: app.screen is dialog, "the seat dialog again")
        assert dialog.plays("B") == "lower"  # escape changed nothing
        await pilot.click(offset=(at.x + 2, at.y))
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceMenu), "B's choices again")
        await pilot.click(offset=(1, 1))  # beside the menu
        await wait_until(pilot, lambda: app.screen is dialog, "the seat dialog once more")
        assert dialog.plays("B") == "lower"
        await pilot.press("home", "right", "enter")  # every seat's answering lens
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceMenu), "every seat's answering lenses")
        assert app.screen.labels[0] == "its own lens"
        await pilot.press("home", "down", "enter")  # myopic
        await wait_until(pilot, lambda: app.screen is dialog, "the seat dialog at last")
        assert dialog.answers("B") == "myopic" and dialog.answers("A") is None and dialog.plays("A") == "human"
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: app.game is not None, "the game")
        b = app.game.seats["B"]
        assert (b.propose_lens, b.respond_lens) == ("lower", "myopic") and app.game.seats["A"].is_human


async def test_the_seat_table_shows_whole_names_and_says_what_ctrl_s_does(wait_until, screen_text, laid_out):
    """Names up to 27 characters show whole (the table widens for them), and the key bar says start before
    a game and apply during one, as the button does."""
    app = NegtuiApp(RIVER_BASIN, ask_seats=True, record=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, SeatsScreen), "the seat dialog")
        dialog = app.screen
        assert "River Basin Organisation" in [row.label for row in dialog.grid.rows]
        await pilot.press("end")
        await pilot.pause()
        assert "River Basin Organisation " in screen_text(app)  # whole, at 80 columns
        assert "^s start" in screen_text(app).splitlines()[-1]
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: app.game is not None, "the game")
        await pilot.press("s")
        await wait_until(pilot, lambda: isinstance(app.screen, SeatsScreen) and laid_out(app),
                         "the seat dialog mid-game")
        bar = screen_text(app).splitlines()[-1]
        assert "^s apply" in bar and "start" not in bar
        app.screen.choose("Delta_State", plays="myopic")
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: not isinstance(app.screen, SeatsScreen), "the seats applied")
        assert app.game.seats["Delta_State"].propose_lens == "myopic"


async def test_an_enter_typed_before_the_menu_is_up_opens_no_second_menu(wait_until):
    app = NegtuiApp(PILL, ask_seats=True, record=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, SeatsScreen), "the seat dialog")
        dialog = app.screen
        dialog.grid.action_open()  # two enters handled by the grid before the first menu is up
        dialog.grid.action_open()
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceMenu), "A's choices")
        await pilot.pause()
        assert sum(isinstance(s, ChoiceMenu) for s in app.screen_stack) == 1
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is dialog, "the seat dialog again")
