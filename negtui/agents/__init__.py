"""Who decides a move: lens bots (and, in the app, humans)."""

from negtui.agents.lens_bot import LensBot, parse_lens_pair, parse_seats

__all__ = ["LensBot", "parse_lens_pair", "parse_seats"]
