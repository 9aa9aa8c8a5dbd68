"""The app: play any seats, let agents play the others."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from negtui.cli.common import (
    AgentTimeoutOpt,
    LlmKeyOpt,
    LlmPromptOpt,
    LlmTemperatureOpt,
    LlmUrlOpt,
    RulesOpt,
    SeatOpt,
    base_seat,
    locate,
    negotiation,
    open_app,
)
from negtui.cli.errors import fail, user_errors
from negtui.cli.root import app


@app.command()
def play(
    scenario: Annotated[Path | None, typer.Argument(help="Scenario file; omit to pick one.")] = None,
    seat: SeatOpt = None,
    rules: RulesOpt = "paper",
    partner: Annotated[str, typer.Option(help="Bots' partner choice: mcts, greedy or random.")] = "mcts",
    sims: Annotated[int, typer.Option(help="MCTS simulations per turn.")] = 50,
    agent_timeout: AgentTimeoutOpt = None,
    llm_base_url: LlmUrlOpt = None,
    llm_prompt: LlmPromptOpt = None,
    llm_temperature: LlmTemperatureOpt = None,
    llm_api_key: LlmKeyOpt = None,
    record: Annotated[bool, typer.Option("--record/--no-record", help="Record the game (default: on).")] = True,
    data_dir: Annotated[Path | None, typer.Option("--data-dir",
                                                  help="Where records and generated scenarios go.")] = None,
    autoplay: Annotated[bool, typer.Option("--autoplay", help="Start autoplay at once.")] = False,
) -> None:
    """Open the app: play any seats, let lenses, programs or models play the others."""
    from negtui.agents.options import AgentOptions
    from negtui.engine.rules import get_rules
    from negtui.seats import parse_seats

    with user_errors():
        try:
            rule_set = get_rules(rules)
        except ValueError as err:
            fail(f"error: {err}")
        base = base_seat(None, partner, sims, None, None, agent_timeout, llm_base_url, llm_prompt, llm_temperature)
        seats, sc, compiled = {}, None, None
        if scenario is not None:
            from negtui.scenario import load_scenario

            scenario = locate(scenario)  # a library name: the app opens the file it names
            sc = load_scenario(scenario)
            seats = parse_seats(seat or [], sc, base)
            refusal = rule_set.refusal(sc)  # a game the rule set cannot play is refused here, not in the app
            if refusal is not None:
                fail(f"error: {refusal}")
            if any(s.uses_exact for s in seats.values()):
                from negtui.engine.exact import check_size

                compiled = negotiation(sc, rules).game
                check_size(compiled)  # refused here, not as a bot that never moves
        elif seat:
            fail("error: --seat needs a scenario file")
        if record:  # refused here, not as a blank screen with a notice once the app is up
            from negtui.datadir import user_data_dir

            folder = (data_dir or user_data_dir()) / "records"
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as err:
                fail(f"error: cannot keep records in {folder}: {err.strerror or err} (choose another --data-dir, "
                     "or --no-record)")
            if not os.access(folder, os.W_OK | os.X_OK):
                fail(f"error: cannot keep records in {folder}: not writable (choose another --data-dir, "
                     "or --no-record)")
        # the app starts from the scenario read and checked here (and compiled, if it was), not the file again
        code = open_app(scenario=scenario, rules=rules, seats=seats, ask_seats=not seats, record=record,
                       data_dir=data_dir, base=base, autoplay=autoplay,
                       options=AgentOptions(api_key=llm_api_key, remote_bots=True), loaded=sc, compiled=compiled)
    raise typer.Exit(code)
