"""The autoplay clock: run or pause, a speed, and the next step scheduled after the pause.

One step at a time, the next scheduled only when the previous one is done (pausing is simply not
rescheduling); a step scheduled before a pause and resume belongs to the old run and is dropped."""

from __future__ import annotations

from collections.abc import Callable

from textual.dom import DOMNode

SPEEDS = (0.0, 0.05, 0.2, 0.5, 1.0, 2.0)  # seconds between autoplayed turns


class Autoplay:
    def __init__(self, owner: DOMNode, speed: int = 2) -> None:
        self.owner = owner
        self.running = False
        self.speed = speed
        self._run = 0

    @property
    def delay(self) -> float:
        return SPEEDS[self.speed]

    def toggle(self) -> bool:
        self.running = not self.running
        self._run += 1
        return self.running

    def stop(self) -> None:
        if self.running:
            self.toggle()

    def faster(self) -> None:
        self.speed = max(0, self.speed - 1)

    def slower(self) -> None:
        self.speed = min(len(SPEEDS) - 1, self.speed + 1)

    def later(self, callback: Callable[[], None]) -> None:
        """Run `callback` after the pause (at full speed: after the next repaint), unless paused meanwhile."""
        run = self._run

        def tick() -> None:
            if self.running and self._run == run:
                callback()

        if self.delay > 0:
            self.owner.set_timer(self.delay, tick)
        else:
            self.owner.call_after_refresh(tick)
