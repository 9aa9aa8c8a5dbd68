"""A sweep's CSV results open in a spreadsheet without running a formula: a scenario named `=HYPERLINK(…)` is
written with a quote in front, read back by negtui as it was named (a resumed sweep copies its rows without
quoting them twice), and the negative improvements stay numbers."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from negtui.sweep.results import read_table
from tests.classroom.test_csv_formulas import _formulas
from tests.paths import PILL

NAME = '=HYPERLINK("http://example.com/","click")'


def test_a_sweeps_csv_quotes_a_formula_and_reads_it_back_whole(tmp_path: Path, cli) -> None:
    game = json.loads(PILL.read_text())
    game["name"] = NAME
    (tmp_path / "game.json").write_text(json.dumps(game))
    out = tmp_path / "r.csv"
    for seeds in (1, 2):  # the second run resumes: the first seed's rows are copied, the second's added
        spec = tmp_path / "s.json"
        spec.write_text(json.dumps({"name": "s", "scenarios": [str(tmp_path / "game.json")], "seeds": seeds,
                                    "methods": ["myopic"]}))
        res = cli("sweep", spec, "-o", out, "--workers", 1)
        assert res.exit_code == 0, res.output
    text = out.read_text(encoding="utf-8")
    assert _formulas(text) == []
    rows = pd.read_csv(out)
    assert len(rows) == 2 * 3 and set(rows["scenario"]) == {"'" + NAME}  # baseline, exact, myopic; two seeds
    improvement = rows["improvement"]  # below zero where myopic swallows the pill: numbers still
    assert pd.api.types.is_numeric_dtype(improvement) and improvement.min() < 0
    assert set(read_table(out)["scenario"].to_pylist()) == {NAME}
