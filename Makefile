PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-dev

.PHONY: run test test-fast fuzz bench venv clean snapshots

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(VENV)/.installed: $(BIN)/python pyproject.toml
	$(BIN)/pip install -q -e .
	touch $@

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/pip install -q -e '.[dev]'
	touch $@ $(VENV)/.installed

venv: $(VENV)/.installed

run: $(VENV)/.installed
	$(BIN)/chunktui sample_docs/guide.md

test: $(STAMP)
	$(BIN)/python -m pytest -n 2 tests

# Everything but the tests that drive the Textual app (marked `ui` in tests/conftest.py).
test-fast: $(STAMP)
	$(BIN)/python -m pytest -n 2 -m "not ui" tests

fuzz: $(STAMP)
	CHUNKTUI_FUZZ=1 $(BIN)/python -m pytest -n 2 tests/test_fuzz.py

snapshots: $(STAMP)
	$(BIN)/python -m pytest tests -k snapshot --snapshot-update

bench: $(STAMP)
	$(BIN)/pip install -q -e '.[dev,bench]'
	$(BIN)/python -m bench.run
	$(BIN)/python -m bench.app_latency
	$(BIN)/python -m bench.app_big_log
	$(BIN)/python -m bench.cli_process
	$(BIN)/python -m bench.report

clean:
	rm -rf $(VENV) chunks .pytest_cache
