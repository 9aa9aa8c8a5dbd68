"""Where the tests find the repository's own files: the bundled scenarios, the course, the example agents
and the scripts.  Plain constants, because a parametrize list needs them when the tests are collected;
inside a test, the `root` fixture of conftest.py gives the repository root."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SCENARIOS = ROOT / "scenarios"
CLASSIC = SCENARIOS / "classic"
TEACHING = SCENARIOS / "teaching"
PILL = TEACHING / "poison-pill.json"
COALITION_TRAP = TEACHING / "coalition-trap.json"
SIX = SCENARIOS / "generated" / "six-party.json"
TWENTY_TWO = SCENARIOS / "generated" / "twenty-two-party.json"
LARGE_BALANCED = SCENARIOS / "generated" / "large-balanced.json"
CLIMATE = SCENARIOS / "hnc" / "climate" / "cop-climate-22.json"
HUMANITARIAN = SCENARIOS / "hnc" / "humanitarian" / "humanitarian-access.json"
RIVER_BASIN = SCENARIOS / "hnc" / "water" / "river-basin-treaty.json"

INTRO_COURSE = ROOT / "courses" / "intro.toml"
CLASS_COURSE = ROOT / "courses" / "class.toml"

LENS_AGENT = ROOT / "examples" / "agents" / "lens_agent.py"
RANDOM_AGENT = ROOT / "examples" / "agents" / "random_agent.py"

SCRIPTS = ROOT / "scripts"
