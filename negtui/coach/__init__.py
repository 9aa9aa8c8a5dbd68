"""Coaching: each decision of a person set beside what the lens bots and the exact solution would have
done, and the end-of-game debrief (against the baseline, a bot in the same seat, the welfare optimum)."""

from negtui.coach.assess import YOU, Assessment, Choice, Coach, describe

__all__ = ["YOU", "Assessment", "Choice", "Coach", "describe"]
