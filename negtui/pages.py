"""The HTML pages negtui writes (role sheets, teaching notes, the class debrief), made from Jinja2 templates
with autoescape: a scenario's, a course's or a trainee's words reach a page only escaped, whatever they
hold.  One environment's settings for every package that keeps its templates in a `templates` folder."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined


def environment(package: str, filters: dict[str, Callable[..., Any]] | None = None) -> Environment:
    """The templates of `package` (its `templates` folder), escaping every value, refusing a name the template
    is not given (a typo is an error, not an empty cell)."""
    env = Environment(loader=PackageLoader(package, "templates"), autoescape=True, undefined=StrictUndefined,
                      trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    env.filters.update(filters or {})
    return env
