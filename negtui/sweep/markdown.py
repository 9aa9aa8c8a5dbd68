"""Markdown for report.md: names escaped so they are shown, never interpreted, and tables."""

from __future__ import annotations

import re

BEST = "★"  # the best method of a column, in report.md and on the terminal


def md(text: object) -> str:
    """A name for report.md: Markdown's own characters escaped, so a name is shown, never interpreted."""
    return re.sub(r"([\\`*_\[\]#|~>])", r"\\\1", str(text)).replace("<", "&lt;")


def markdown_table(head: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)] + ["| " + " | ".join(r) + " |" for r in rows]
