"""Who decides a move: lens bots, outside programs over stdio, language models; humans decide at the app.

`Seating` builds the agents of a game's seats from their `Seat` descriptions (`negtui.seats`).  Nothing
here is imported until used: the app reads `AgentOptions` before any game, or numpy, is loaded."""

from typing import TYPE_CHECKING

from negtui.lazy import lazy_exports

if TYPE_CHECKING:
    from negtui.agents.lens_bot import LensBot
    from negtui.agents.options import AgentOptions
    from negtui.agents.seating import Seating, lens_bot

__getattr__, __dir__ = lazy_exports(globals(), {
    "negtui.agents.lens_bot": ("LensBot",),
    "negtui.agents.options": ("AgentOptions",),
    "negtui.agents.seating": ("Seating", "lens_bot"),
})

__all__ = ["AgentOptions", "LensBot", "Seating", "lens_bot"]
