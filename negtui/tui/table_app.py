"""The app as a person at a table meets it: one table's game, decided at the table, then its debrief."""

from __future__ import annotations

import os

from negtui.table.source import TableSource
from negtui.tui.app import NegtuiApp
from negtui.tui.screens.table import TableScreen


class TableApp(NegtuiApp):
    seat_changes = False  # the table seats people and bots; nobody hands a seat over from an app
    lessons_in_game = False  # the lesson may tell the answer: after the game

    def __init__(self, source: TableSource) -> None:
        super().__init__(None, ask_seats=False, record=False)  # the table writes the record
        self.table = source
        self.live = source

    def open_first(self) -> None:
        self.push_screen(TableScreen(self.table))

    def may_retry(self) -> bool:
        return False  # a shared game is played once; its debrief still shows every decision

    def after_game(self) -> None:
        self.exit()


def run_table_app(source: TableSource) -> int:
    app = TableApp(source)
    app.run(headless=bool(os.environ.get("NEGTUI_HEADLESS")))
    return app.return_code or 0
