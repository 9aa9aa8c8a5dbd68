"""A game as the app plays or replays it, free of any interface: the live game (people and agents in
the seats, the record written turn by turn, coaching), the sources a play screen reads (decisions go
in, snapshots come out) and the view models they carry."""

from negtui.play.live import EXACT_AT_ONCE, EXACT_IN_APP_LIMIT, FORECAST_LENSES, LiveGame, exact_fits
from negtui.play.sources import GameSource, LiveSource, ReplaySource
from negtui.play.views import Earlier, LensView, PartnerOption, Preview, Snapshot

__all__ = ["EXACT_AT_ONCE", "EXACT_IN_APP_LIMIT", "FORECAST_LENSES", "Earlier", "GameSource", "LensView",
           "LiveGame", "LiveSource", "PartnerOption", "Preview", "ReplaySource", "Snapshot", "exact_fits"]
