"""Negotiation cases from scoresheets: issues with options, each party's points for each option, a reservation
value per party and an agreement rule (unanimity, a quorum, vetoes), compiled into a scenario of the game
family so that a trainer's case needs no modelling by hand.

The format and its checks are in model.py (and table.py for points kept as CSV), the mapping in compile.py
(its docstring says exactly how a sheet becomes players, actions, exclusive sets and goals), checking and
compiling a decoded sheet in load.py; `negtui.scenario.io.load_scenario` reads a scoresheet file wherever a
scenario is read (and `load_scoresheet` one that must be a scoresheet).
"""

from negtui.scenario.scoresheets.compile import TooLarge, compile_sheet, reservation_shares, settlement_terms
from negtui.scenario.scoresheets.load import SheetRefused, not_a_sheet, sheet_scenario, validate_sheet
from negtui.scenario.scoresheets.model import (
    FORMAT,
    MAX_SHEET_BYTES,
    Scoresheet,
    is_scoresheet,
    salvaged_problems,
    says_scoresheet,
)

__all__ = ["FORMAT", "MAX_SHEET_BYTES", "Scoresheet", "SheetRefused", "TooLarge", "compile_sheet", "is_scoresheet",
           "not_a_sheet", "reservation_shares", "salvaged_problems", "says_scoresheet", "settlement_terms",
           "sheet_scenario", "validate_sheet"]
