"""Messages and the console's standings name the people in the seats, not only the seat ids: a trainer
reads "Donor Group (alice)", the way they know the class; its table list shows the round's time left."""

from __future__ import annotations

from negtui.classroom.dbtypes import TableRow
from negtui.console.rows import standing_of
from negtui.scenario import load_scenario
from negtui.table.talk import Said
from negtui.table.views import Occupant, TableView
from negtui.tui.widgets.table_pane import said_line, speakers
from tests.paths import HUMANITARIAN


def _view(you: str | None) -> TableView:
    return TableView("table 3", you, occupants=(
        Occupant("Donor_Group", "human", "alice", True, True),
        Occupant("Armed_Group", "human", "bob", False, True),
        Occupant("NGO_Consortium", "upper", None, False, False),
    ))


def test_a_message_names_the_seat_by_its_label_and_the_person_in_it():
    sc = load_scenario(HUMANITARIAN)
    labels = {p.id: p for p in sc.players}
    assert {"Donor_Group", "Armed_Group", "NGO_Consortium"} <= set(labels), "the test's seats are in the scenario"
    names = speakers(_view("Armed_Group"), sc)
    said = Said(2, "Donor_Group", None, "shall we?")
    line = said_line(said, "Armed_Group", names).plain
    assert line == "t3 Donor Group (alice) → everyone: shall we?"
    assert said_line(Said(2, "NGO_Consortium", "Armed_Group", "hi"), "Armed_Group", names).plain.endswith(" → you: hi")
    assert "(" not in names["NGO_Consortium"], "a bot's seat has no person's name"
    trainer = said_line(Said(3, "trainer", None, "five minutes"), None, names).plain
    assert trainer == "t4 trainer → everyone: five minutes"


def test_the_consoles_standing_names_each_person():
    row = TableRow(3, "class", "aid", "/s", "playing", "2026-01-01T00:00:00", None, None, None,
                   _view(None).occupants, 4, None,
                   payoffs={"Donor_Group": 1.5, "Armed_Group": -0.25, "NGO_Consortium": 0.0},
                   baseline={"Donor_Group": 1.0, "Armed_Group": 0.0, "NGO_Consortium": 0.0})
    text = standing_of(row).plain
    assert text == "alice 1.50 (+0.50)  bob -0.25 (-0.25)  NGO_Consortium 0.00 (+0.00)"


def test_the_consoles_table_list_shows_the_rounds_time_left():
    from datetime import UTC, datetime, timedelta

    from negtui.console.rows import state_of

    ends = (datetime.now(UTC) + timedelta(seconds=725.5)).isoformat()
    row = TableRow(3, "class", "aid", "/s", "playing", "2026-01-01T00:00:00", None, None, None,
                   _view(None).occupants, 4, None, round_ends=ends)
    assert state_of(row, 3).plain in ("playing · 12:06 left", "playing · 12:05 left")
    held = TableRow(3, "class", "aid", "/s", "playing", "2026-01-01T00:00:00", None, None, None,
                    _view(None).occupants, 4, None, paused=True, round_left=42.0)
    assert state_of(held, 3).plain == "paused · 0:42 left"
    free = TableRow(3, "class", "aid", "/s", "playing", "2026-01-01T00:00:00", None, None, None,
                    _view(None).occupants, 4, None)
    assert state_of(free, 3).plain == "playing"
