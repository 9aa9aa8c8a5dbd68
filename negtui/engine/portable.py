"""A game as plain JSON data, for another process to play it exactly as this one does: the scenario,
the rule set with every switch (so a variant travels whole), and the budget where it overrides the
scenario's.  The bot process, the welfare worker, outside agents' hello and record headers all carry a
game in this one shape, and rebuild it in one way."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from negtui.engine.game import Game, compile_game
from negtui.engine.negotiation import Negotiation
from negtui.engine.rules import Rules, rules_from
from negtui.scenario.io import parse_scenario


@dataclass(frozen=True)
class PortableGame:
    scenario: dict[str, Any]  # the scenario's JSON data
    rules: dict[str, Any]  # Rules.as_dict()
    budget: int | None = None  # None: the scenario's own

    @classmethod
    def of(cls, game: Game, rules: Rules) -> PortableGame:
        own = game.scenario.protocol.budget
        return cls(game.scenario.model_dump(mode="json"), rules.as_dict(),
                   game.budget if game.budget != own else None)

    def as_dict(self) -> dict[str, Any]:
        return {"scenario": self.scenario, "rules": self.rules, "budget": self.budget}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PortableGame:
        budget = data.get("budget")
        return cls(data["scenario"], data["rules"], None if budget is None else int(budget))

    def game(self) -> tuple[Game, Rules]:
        """The compiled game and its rules; raises ValueError (ScenarioError, GameError) when invalid."""
        rules = rules_from(self.rules)
        return compile_game(parse_scenario(self.scenario), rules, budget=self.budget), rules

    def negotiation(self) -> Negotiation:
        game, rules = self.game()
        return Negotiation(game, rules)
