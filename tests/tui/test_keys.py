"""The key table against the screens it drives: every key's action is one its screens have, each screen
binds only its own keys, and each key's rule says when it works."""

from __future__ import annotations

import io
from dataclasses import replace

import pytest
from rich.console import Console

from negtui.tui.keys import (
    GAME_KEYS,
    LIVE,
    REPLAY,
    TABLE,
    KeyContext,
    bindings,
    help_table,
    palette_entries,
    rule,
)
from negtui.tui.screens.live import LiveScreen
from negtui.tui.screens.replay import ReplayScreen
from negtui.tui.screens.table import TableScreen

SCREENS = {LIVE: LiveScreen, REPLAY: ReplayScreen, TABLE: TableScreen}


@pytest.mark.parametrize("mode", [LIVE, REPLAY, TABLE])
def test_every_key_of_a_screen_has_its_action(mode):
    screen = SCREENS[mode]
    for key in GAME_KEYS:
        if key.action and mode in key.modes:
            name = key.action.split("(")[0]
            assert hasattr(screen, f"action_{name}"), f"{screen.__name__} has no action for {key.keys!r}"


@pytest.mark.parametrize("mode", [LIVE, REPLAY, TABLE])
def test_a_screen_binds_only_its_own_keys(mode):
    own = {b.action for b in bindings(mode)}
    only_other = {k.action for k in GAME_KEYS if k.action and mode not in k.modes}
    assert own and not own & only_other
    assert {a for _, _, a in palette_entries(mode)} <= own


@pytest.mark.parametrize("mode", [LIVE, REPLAY, TABLE])
def test_a_palette_entry_says_its_key_and_does_not_repeat_its_title(mode):
    for title, description, _ in palette_entries(mode):
        assert description.startswith("key "), (title, description)
        words = title.removeprefix("Replay: ").lower()
        rest = description.partition(": ")[2].lower()
        assert not rest.startswith(words) and rest != words, (title, description)
    entries = {t: d for t, d, _ in palette_entries(LIVE)}
    assert entries["Submit the offer"] == "key o" and entries["Pass the turn"] == "key x (make no offer)"


def test_the_help_lists_the_keys_of_the_screen_it_opens_over():
    def text(mode: str) -> str:
        console = Console(width=200, file=io.StringIO(), record=True)
        console.print(help_table(mode))
        return console.export_text()

    live, replay = text(LIVE), text(REPLAY)
    assert "submit the offer" in live and "submit the offer" not in replay
    assert "take over from this turn" in replay and "take over from this turn" not in live
    assert "coach" in live and "goals, forecasts, log, network" in replay and "coach" not in replay
    table = text(TABLE)  # at a table: a person's keys and the table's, no stepping or autoplay of bots
    assert "say something at the table" in table and "say something" not in live
    assert "submit the offer" in table and "autoplay" not in table and "seats:" not in table
    assert "coach, table" in table


def test_each_key_works_when_its_rule_says():
    proposing = KeyContext(LIVE, person_to_move=True, person_proposing=True)
    assert rule("partner", LIVE)(proposing) and rule("pass_turn", LIVE)(proposing)
    assert not rule("submit", LIVE)(proposing)  # no partner picked yet
    assert rule("submit", LIVE)(replace(proposing, drafting=True))
    answering = KeyContext(LIVE, person_to_move=True)
    assert not rule("partner", LIVE)(answering) and rule("hint", LIVE)(answering)
    assert not rule("hint", LIVE)(replace(answering, hints=False))  # a course may turn hints off
    over = KeyContext(LIVE, over=True)
    assert not rule("step", LIVE)(over) and not rule("run", LIVE)(over) and rule("step", REPLAY)(KeyContext(REPLAY))
    assert not rule("seats", LIVE)(KeyContext(LIVE, seat_changes=False))
    assert rule("cancel_exact", LIVE)(KeyContext(LIVE, exact_solving=True))
    assert not rule("cancel_exact", LIVE)(KeyContext(LIVE))
    assert not rule("seats", REPLAY)(KeyContext(REPLAY))  # a live key on the replay screen: never
    assert rule("focus_next", LIVE) is None  # not the table's: Textual decides


@pytest.mark.asyncio
async def test_the_key_bar_reads_the_game_once_for_every_key_it_checks(wait_until, pill_app, monkeypatch):
    """Textual checks each binding's action in turn as the key bar asks which keys work: the game is read once
    for them all (a pass read it once per key, twenty times), and each key is judged as before."""
    from negtui.seats import Seat

    app = pill_app(A=Seat.human(), B=Seat.lens("upper"))
    async with app.run_test(size=(100, 32)) as pilot:
        await wait_until(pilot, lambda: len(app.screen_stack) > 2, "A's partner dialog over the game")
        game = app.screen_stack[-2]
        assert isinstance(game, LiveScreen)
        reads: list[KeyContext] = []
        read = game.key_context

        def counted() -> KeyContext:
            reads.append(read())
            return reads[-1]

        monkeypatch.setattr(game, "key_context", counted)
        active = game.active_bindings
        assert len(reads) == 1
        checked = [a for a in game._actions if rule(a, game.MODE) is not None]
        assert len(checked) > 10
        for action in checked:  # outside a pass: read for each, with the same verdicts
            assert game.check_action(action, ()) == rule(action, game.MODE)(reads[0])
        shown = {b.binding.action: b.enabled for b in active.values()}
        assert all(enabled == rule(action, game.MODE)(reads[0]) for action, enabled in shown.items()
                   if rule(action, game.MODE) is not None)


@pytest.mark.asyncio
@pytest.mark.parametrize("size", [(160, 32), (60, 20)])
async def test_the_key_bar_draws_its_line_as_textual_draws_its_text(wait_until, pill_app, size):
    """The bar draws its line as segments (not through Textual's content pipeline): the same cells, a key
    that clicks drawn as a link, as Textual draws its text; kept while nothing it shows changes."""
    from textual.visual import Visual, visualize

    from negtui.seats import Seat
    from negtui.tui.widgets.keybar import KeyBar

    app = pill_app(A=Seat.human(), B=Seat.lens("upper"))
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: len(app.screen_stack) > 2, "A's partner dialog over the game")
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, LiveScreen), "the game screen")
        await pilot.pause()
        bar = app.screen.query_one(KeyBar)
        width = bar.size.width
        ours = bar.render_line(0)
        textual = Visual.to_strips(bar, visualize(bar, bar.render()), width, 1, bar.visual_style)[0]
        assert ours.cell_length <= width and "help" in ours.text

        def look(strip) -> list[tuple[str, object, dict]]:
            """Each cell and its style, the click it makes but not Textual's offsets (for selecting text)."""
            return [(ch, seg.style.clear_meta_and_links() if seg.style else None,
                     {k: v for k, v in (seg.style.meta if seg.style else {}).items() if k != "offset"})
                    for seg in strip for ch in seg.text]

        assert look(ours) == look(textual)
        assert any("@click" in meta for _, _, meta in look(ours))
        assert bar.render_line(0) is ours  # nothing changed: the line kept
        bar._shown = bar._shown[:-1]
        assert bar.render_line(0) is not ours



@pytest.mark.asyncio
async def test_a_click_on_a_usable_key_in_the_key_bar_presses_it_and_a_dimmed_key_does_nothing(wait_until, pill_app):
    """The bar makes its own click regions from the keys it shows: a usable key's cells click and are drawn
    as links; a dimmed key's cells do neither."""
    from negtui.seats import Seat
    from negtui.tui.screens.dialogs import HelpScreen
    from negtui.tui.widgets.keybar import KeyBar

    app = pill_app(A=Seat.human(), B=Seat.lens("upper"))
    async with app.run_test(size=(160, 32)) as pilot:
        await wait_until(pilot, lambda: len(app.screen_stack) > 2, "A's partner dialog over the game")
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, LiveScreen), "the game screen")
        await pilot.pause()
        bar = app.screen.query_one(KeyBar)

        def cells() -> tuple[str, list]:
            line = bar.render_line(0)
            return line.text, [seg.style for seg in line for _ in seg.text]

        def looks_like_a_link(style) -> bool:
            return style + bar.link_style == style  # the link's colour and underline are already there

        text, styles = cells()
        at = text.index(" help ")
        help_cells = styles[at - 2:at + 6]  # " ? help "
        assert all("@click" in st.meta and looks_like_a_link(st) for st in help_cells)
        assert bar.link_style.underline and not looks_like_a_link(styles[text.index("   ") + 1])  # the gap
        await pilot.click(KeyBar, offset=(at + 2, 0))
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help screen, from a click")
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, LiveScreen), "the game screen again")

        bar._shown = tuple((k, d, t, False if a.endswith("help") else e, a) for k, d, t, e, a in bar._shown)
        bar.refresh()
        await pilot.pause()
        text, styles = cells()
        at = text.index(" help ")
        assert not any("@click" in st.meta or looks_like_a_link(st) for st in styles[at - 2:at + 6])
        await pilot.click(KeyBar, offset=(at + 2, 0))
        await pilot.pause()
        assert isinstance(app.screen, LiveScreen)
