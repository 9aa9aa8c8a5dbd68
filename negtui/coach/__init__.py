"""Coaching: each decision of a person set beside what the lens bots and the exact solution would have
done, and the end-of-game debrief (against the baseline, a bot in the same seat, the welfare optimum).

`negtui.coach.regime` (which lens suits a game) is read before a game starts: nothing here is imported
until used."""

from typing import TYPE_CHECKING

from negtui.lazy import lazy_exports

if TYPE_CHECKING:
    from negtui.coach.assess import YOU, Assessment, Choice, Coach, describe

__getattr__, __dir__ = lazy_exports(globals(), {
    "negtui.coach.assess": ("YOU", "Assessment", "Choice", "Coach", "describe"),
})

__all__ = ["YOU", "Assessment", "Choice", "Coach", "describe"]
