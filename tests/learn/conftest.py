"""A tiny training set and model, drawn and fitted once per test session: a handful of small generated
games, solved exactly."""

from __future__ import annotations

from pathlib import Path

import pytest

TINY_SPEC = """
format = "negtui-sweep/1"
name = "tiny"
seeds = 3
[grid]
players = [4]
actions = [1]
goals = [6]
rounds = [3]
factors = [3]
structure = ["adversarial"]
all_or_nothing = [0.0, 0.5]
zipf = [1.6]
payoff = ["balanced", "negative"]
"""


@pytest.fixture(scope="session")
def tiny_spec(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("learn") / "tiny.toml"
    path.write_text(TINY_SPEC, encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def tiny_model(tiny_spec: Path) -> Path:
    """`negtui learn` on the tiny spec: the model, with its training set and card beside it."""
    from typer.testing import CliRunner

    from negtui.cli import app

    out = tiny_spec.with_name("tiny.npz")
    result = CliRunner().invoke(app, ["learn", "--spec", str(tiny_spec), "--states", "30", "--hidden", "32,32",
                                      "-o", str(out)])
    assert result.exit_code == 0, result.output
    return out
