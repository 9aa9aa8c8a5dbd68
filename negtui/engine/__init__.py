"""The numpy core: compiled games, states, lenses, offers, partner search, exact solver, baseline.

Never imports the app (Textual) or the welfare solver (PuLP); a test enforces it.
"""

from negtui.engine.baseline import Baseline, no_negotiation
from negtui.engine.exact import ExactSolution, ExactTooLarge, solve
from negtui.engine.game import Game, GameError, compile_game, round_robin
from negtui.engine.lenses import LENSES
from negtui.engine.negotiation import IllegalMove, Negotiation, State
from negtui.engine.offers import Offer
from negtui.engine.protocol import Agent, Match, TurnEvent
from negtui.engine.rules import PAPER, REFERENCE, RULES, Rules, get_rules

__all__ = [
    "Agent", "Baseline", "ExactSolution", "ExactTooLarge", "Game", "GameError", "IllegalMove", "LENSES",
    "Match", "Negotiation", "Offer", "PAPER", "REFERENCE", "RULES", "Rules", "State", "TurnEvent",
    "compile_game", "get_rules", "no_negotiation", "round_robin", "solve",
]
