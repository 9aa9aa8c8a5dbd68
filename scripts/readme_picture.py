"""Draws docs/images/negtui.svg, the picture in the README and on the site's home page: the bundled
river-basin treaty after seven bot turns, at 120×34.  Run it again after a change to the play screen."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from negtui.tui.app import NegtuiApp

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "scenarios/hnc/water/river-basin-treaty.json"


async def draw(turns: int = 7, size: tuple[int, int] = (120, 34)) -> None:
    app = NegtuiApp(SCENARIO, seats={}, ask_seats=False, record=False, partner="greedy", sims=4)
    async with app.run_test(size=size) as pilot:
        await pilot.pause(1.0)
        for k in range(1, turns + 1):
            await pilot.press("n")
            await app.workers.wait_for_complete()
            deadline = time.monotonic() + 20
            while (len(app.game.events) < k or app.screen.thinking) and time.monotonic() < deadline:
                await pilot.pause(0.05)
        await pilot.pause(1.0)
        app.save_screenshot("negtui.svg", path=str(ROOT / "docs/images"))


if __name__ == "__main__":
    asyncio.run(draw())
