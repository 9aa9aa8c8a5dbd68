# Two entry points: `make play` and `make test`. Each builds .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: play test bench clean schema

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

play: $(STAMP)
	$(BIN)/negtui play scenarios/generated/six-party.json

test: $(STAMP)
	$(BIN)/python -m pytest -q || [ $$? -eq 5 ]  # 5 = no tests collected, not a failure

bench: $(STAMP)
	$(BIN)/python bench/bench_games.py --hnc
	$(BIN)/python bench/bench_exact.py
	$(BIN)/python bench/bench_welfare.py

schema: $(STAMP)
	$(BIN)/negtui schema > negtui/scenario/scenario.schema.json
	$(BIN)/negtui schema agent-protocol > negtui/agents/agent-protocol.schema.json

clean:
	rm -rf $(VENV) build *.egg-info
