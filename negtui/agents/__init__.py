"""Who decides a move: lens bots, outside programs over stdio, language models; humans decide at the app.

`Seating` builds the agents of a game's seats from their `Seat` descriptions (`negtui.seats`)."""

from negtui.agents.lens_bot import LensBot
from negtui.agents.seating import AgentOptions, Seating, lens_bot

__all__ = ["AgentOptions", "LensBot", "Seating", "lens_bot"]
