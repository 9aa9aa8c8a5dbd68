"""The field types every part of a scenario file is made of: ids, names and texts a terminal may show, and
values in range.  Kept apart from the models so that the parts of a scenario in modules of their own
(issues.py) use the same ones as model.py."""

from __future__ import annotations

import math
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from negtui.scenario import limits as lim
from negtui.scenario.untrusted import control_problem


def _finite_value(v: int | float) -> int | float:
    if not math.isfinite(v) or abs(v) > lim.MAX_ABS_VALUE:
        raise ValueError(f"a value must be a finite number between -{lim.MAX_ABS_VALUE:g} and {lim.MAX_ABS_VALUE:g}")
    return v


def _shown(keep: str = "", strict: bool = False) -> AfterValidator:
    """Names and texts are shown on terminals (the app, autoplay's log, a trainee's SSH session), which act on
    control characters: none may hold one (`keep`: line breaks and tabs of a paragraph)."""

    def check(v: str) -> str:
        problem = control_problem(v, keep, strict=strict)
        if problem is not None:
            raise ValueError(problem)
        return v

    return AfterValidator(check)


Value = Annotated[int | float, AfterValidator(_finite_value)]
GoalKind = Literal["linear", "all_or_nothing"]
Id = Annotated[str, Field(min_length=1, max_length=lim.MAX_ID), _shown(strict=True)]
Line = Annotated[str, Field(max_length=lim.MAX_TEXT), _shown()]  # a name or label: one line
Text = Annotated[str, Field(max_length=lim.MAX_TEXT), _shown("\n\t")]  # a paragraph or more


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
