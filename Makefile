# Two entry points: `make play` and `make test`. Each builds .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: play test stress lint bench clean schema tools docs lock upgrade-check

# the versions the tests passed with, from the lock (requirements.lock, written by `make lock` from pyproject.toml's
# ranges), then negtui itself; a fresh machine needs Python >= 3.11 and pip, nothing else
$(STAMP): pyproject.toml requirements.lock
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.lock
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $(STAMP)

play: $(STAMP)
	$(BIN)/negtui play scenarios/hnc/water/river-basin-treaty.json

# the tests drive the app in tmux, log in to `negtui serve` with OpenSSH's client and open the class export in chromium
tools:
	@missing=""; command -v tmux >/dev/null || missing="$$missing tmux"; \
	command -v ssh >/dev/null && command -v ssh-keygen >/dev/null || missing="$$missing openssh-client"; \
	if [ -n "$$missing" ]; then \
		if command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
			echo "make tools: running as root, so installing$$missing with apt-get (the tests drive the app in tmux and log in with ssh; as another user they are only named)"; \
			apt-get update -qq && apt-get install -y -qq $$missing >/dev/null; \
		else echo "please install$$missing (the tests that need them are skipped)"; fi; \
	fi
	@# the browser only opens the class export: a mirror without it skips that one test rather than every test
	@command -v chromium >/dev/null || { \
		if command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
			echo "make tools: running as root, so installing chromium with apt-get (one test opens the class export in it)"; \
			apt-get install -y -qq chromium >/dev/null 2>&1 \
			|| { apt-get update -qq && apt-get install -y -qq chromium >/dev/null; } \
			|| echo "chromium could not be installed: the test that opens the class export is skipped"; \
		else echo "please install chromium (the test that opens the class export is skipped)"; fi; }

# the code checks the tests run after: ruff (lint and import order) and mypy (types, pydantic's plugin)
lint: $(STAMP)
	$(BIN)/ruff check negtui tests bench examples scripts
	$(BIN)/mypy

# three workers: many tests wait on a terminal, a socket or a child process, and a third worker keeps two
# cores busy meanwhile (on a 2-core machine, 300 s -> 230 s); tests that must not share the machine say so
# with markers (pyproject.toml)
test: $(STAMP) tools lint
	$(BIN)/python -m pytest -q -n 3 || [ $$? -eq 5 ]  # 5 = no tests collected, not a failure

# races and loads: many processes at once, signals at arbitrary moments, fuzzers' long runs (marked `stress`)
stress: $(STAMP) tools
	$(BIN)/python -m pytest -q -n 2 -m stress

bench: $(STAMP)
	$(BIN)/python bench/bench_games.py --hnc
	$(BIN)/python bench/bench_exact.py
	$(BIN)/python bench/bench_welfare.py
	$(BIN)/python bench/bench_app.py
	$(BIN)/python bench/bench_serve.py
	$(BIN)/python bench/bench_sweep.py

# the documentation site into site/ (mkdocs.yml; the reference pages are generated from the code as it builds)
docs: $(STAMP)
	$(BIN)/mkdocs build --strict -d site

schema: $(STAMP)
	$(BIN)/negtui schema > negtui/scenario/scenario.schema.json
	$(BIN)/negtui schema agent-protocol > negtui/agents/agent-protocol.schema.json

clean:
	rm -rf $(VENV) build *.egg-info

# the lock again from pyproject.toml's ranges (after changing a dependency there): every package at the newest
# version the ranges allow, for every platform, with its hashes; uv runs from a throwaway environment
UV := uv==0.13.9
lock:
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	$(PYTHON) -m venv "$$tmp/uv" && "$$tmp/uv/bin/python" -m pip install --quiet '$(UV)' && \
	"$$tmp/uv/bin/uv" pip compile pyproject.toml --all-extras --universal --python-version 3.11 --generate-hashes \
		--quiet --custom-compile-command 'make lock' -o requirements.lock && \
	echo "requirements.lock written: review its diff, then make .venv/.installed and the tests"

# would the newest Textual and Rich break the app? the locked versions, those two at their newest, and the
# app's tests (snapshots included) in a throwaway environment: .venv and the lock are left as they are
upgrade-check:
	@set -e; tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; py="$$tmp/venv/bin/python"; \
	$(PYTHON) -m venv "$$tmp/venv"; \
	"$$py" -m pip install --quiet -r requirements.lock; \
	"$$py" -m pip install --quiet --no-deps -e .; \
	echo "upgrade-check: the newest Textual and Rich over the lock (pip says negtui pins others: it is meant)"; \
	"$$py" -m pip install --quiet --upgrade textual rich; \
	versions=$$("$$py" -c 'from importlib.metadata import version as v; print("textual", v("textual") + ", rich", v("rich"))'); \
	echo "upgrade-check: $$versions (locked: $$(grep -E '^(textual|rich)==' requirements.lock | cut -d' ' -f1 | tr '\n' ' '))"; \
	if "$$py" -m pytest -q -n 2 -p no:cacheprovider tests/tui; then echo "upgrade-check: PASS with $$versions"; \
	else echo "upgrade-check: FAIL with $$versions (the failures above)"; exit 1; fi
