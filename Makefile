PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-dev

# The tests start hundreds of Python processes (the command line, worker pools, clusters): each reads
# chunktui's modules compiled in __pycache__ (git ignores it) instead of compiling them again, as an
# installed package does, even where the environment sets PYTHONDONTWRITEBYTECODE (this project's
# machines do): `make test-fast` took 133 s with it set, 122 s without, on the 2-core machine
unexport PYTHONDONTWRITEBYTECODE

.PHONY: run test test-fast lint typecheck fuzz bench venv clean snapshots chromium

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

test: lint chromium
	$(BIN)/python -m pytest -n 2 tests

# ruff with the rules and the short ignore list in pyproject.toml, ruff's formatter as a check (run
# `ruff format chunktui tests bench` to apply it), mypy with the settings there (it finds nothing),
# then the import contracts there (the layers of CONTRIBUTING.md's layout); `make test` runs it first
lint: $(STAMP)
	$(BIN)/ruff check chunktui tests bench
	$(BIN)/ruff format --check chunktui tests bench
	$(BIN)/mypy
	$(BIN)/lint-imports

# mypy alone, as `lint` runs it
typecheck: $(STAMP)
	$(BIN)/mypy

# tests/test_ui_browser.py drives a real Chromium (Playwright never downloads one here): as root on a
# Debian-like machine without it, install Debian's; elsewhere the test uses CHUNKTUI_CHROMIUM or PATH.
chromium:
	@if [ -z "$$CHUNKTUI_CHROMIUM" ] && [ ! -x /usr/bin/chromium ] && [ "$$(id -u)" = 0 ] \
	    && command -v apt-get >/dev/null; then \
		{ apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium; } \
		|| echo "chromium could not be installed: tests/test_ui_browser.py fails under CI=true, is skipped elsewhere"; fi

# Everything but the tests that drive the Textual app (marked `ui` in tests/conftest.py).
test-fast: lint
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
	$(BIN)/python -m bench.long_runs
	$(BIN)/python -m bench.code_fit
	$(BIN)/python -m bench.retrieval
	$(BIN)/python -m bench.retrieval_peers
	$(BIN)/python -m bench.cli_process
	$(BIN)/python -m bench.report

clean:
	rm -rf $(VENV) chunks .pytest_cache
