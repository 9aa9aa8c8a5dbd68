"""The numpy core: compiled games, states, lenses, offers, partner search, exact solver, baseline.

The game API any agent drives (OpenSpiel-shaped): `Negotiation.current_player`, `phase`,
`legal_partners`, `legal_offers`, `is_legal`, `apply`, `returns`, and `observation` for one player;
`Valuation` says what states and offers are worth under each lens; `TurnDriver` runs turns by asking
whoever sits in each seat.

Never imports the app (Textual) or the welfare solver (PuLP); a test enforces it.
"""

from negtui.engine.baseline import Baseline, no_negotiation
from negtui.engine.exact import ExactSolution, ExactTooLarge, solve
from negtui.engine.game import Game, GameError, compile_game, round_robin
from negtui.engine.lenses import LENSES
from negtui.engine.negotiation import TERMINAL_PLAYER, IllegalMove, Negotiation, Phase, State, shown_turn
from negtui.engine.observation import observation, observation_text
from negtui.engine.offers import Offer
from negtui.engine.portable import PortableGame
from negtui.engine.rules import PAPER, REFERENCE, RULES, Rules, get_rules, rules_from
from negtui.engine.turns import Agent, AgentFault, Move, TurnDriver, TurnEvent
from negtui.engine.valuation import Valuation

__all__ = [
    "LENSES",
    "PAPER",
    "REFERENCE",
    "RULES",
    "TERMINAL_PLAYER",
    "Agent",
    "AgentFault",
    "Baseline",
    "ExactSolution",
    "ExactTooLarge",
    "Game",
    "GameError",
    "IllegalMove",
    "Move",
    "Negotiation",
    "Offer",
    "Phase",
    "PortableGame",
    "Rules",
    "State",
    "TurnDriver",
    "TurnEvent",
    "Valuation",
    "compile_game",
    "get_rules",
    "no_negotiation",
    "observation",
    "observation_text",
    "round_robin",
    "rules_from",
    "shown_turn",
    "solve",
]
