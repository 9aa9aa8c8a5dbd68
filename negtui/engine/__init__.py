"""The numpy core: compiled games, states, lenses, offers, partner search, exact solver, baseline.

The game API any agent drives (OpenSpiel-shaped): `Negotiation.current_player`, `phase`,
`legal_partners`, `legal_offers`, `is_legal`, `apply`, `returns`, and `observation` for one player;
`Valuation` says what states and offers are worth under each lens; `TurnDriver` runs turns by asking
whoever sits in each seat.

Never imports the app (Textual) or the welfare solver (PuLP); a test enforces it.
"""

from typing import TYPE_CHECKING

from negtui.lazy import lazy_exports

if TYPE_CHECKING:
    from negtui.engine.baseline import Baseline, no_negotiation
    from negtui.engine.exact import ExactSolution, ExactTooLarge, solve
    from negtui.engine.game import Game, GameError, compile_game, round_robin
    from negtui.engine.negotiation import TERMINAL_PLAYER, IllegalMove, Negotiation, Phase, State, shown_turn
    from negtui.engine.observation import observation, observation_text
    from negtui.engine.offers import Offer
    from negtui.engine.portable import PortableGame
    from negtui.engine.rules import PAPER, REFERENCE, RULES, Rules, get_rules, rules_from
    from negtui.engine.turns import Agent, AgentFault, Move, TurnDriver, TurnEvent
    from negtui.engine.valuation import Valuation
    from negtui.engine.vocabulary import LENSES

__getattr__, __dir__ = lazy_exports(globals(), {
    "negtui.engine.baseline": ("Baseline", "no_negotiation"),
    "negtui.engine.exact": ("ExactSolution", "ExactTooLarge", "solve"),
    "negtui.engine.game": ("Game", "GameError", "compile_game", "round_robin"),
    "negtui.engine.vocabulary": ("LENSES",),
    "negtui.engine.negotiation": ("TERMINAL_PLAYER", "IllegalMove", "Negotiation", "Phase", "State", "shown_turn"),
    "negtui.engine.observation": ("observation", "observation_text"),
    "negtui.engine.offers": ("Offer",),
    "negtui.engine.portable": ("PortableGame",),
    "negtui.engine.rules": ("PAPER", "REFERENCE", "RULES", "Rules", "get_rules", "rules_from"),
    "negtui.engine.turns": ("Agent", "AgentFault", "Move", "TurnDriver", "TurnEvent"),
    "negtui.engine.valuation": ("Valuation",),
})

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
