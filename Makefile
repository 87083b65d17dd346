# Two commands on a fresh machine: `make run` and `make test` (the product's tests).
# Each creates the virtual environment (.venv) when it is missing. `make test-research`
# runs the tests of research/ (its scripts and its dataset), with the research extra.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
# Both cores (pytest-xdist): one worker per CPU, each test file whole on one worker, so
# that a file's module-scoped servers start once; files in the order tests/conftest.py
# gives them (the longest folders first). PYTEST_ARGS= runs in one process.
PYTEST_ARGS ?= -n auto --dist loadfile --no-loadscope-reorder

.PHONY: run test test-api test-research lint openapi messages bench-api clean-venv

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Stamps: reinstall only when pyproject.toml changes.
$(VENV)/.installed-run: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@ $(VENV)/.installed-run

$(VENV)/.installed-research: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test,research]'
	touch $@ $(VENV)/.installed-test $(VENV)/.installed-run

run: $(VENV)/.installed-run
	$(BIN)/python -m app.server --host $(HOST) --port $(PORT)

test: $(VENV)/.installed-test
	$(BIN)/python -m pytest $(PYTEST_ARGS)

test-api: $(VENV)/.installed-test
	$(BIN)/python -m pytest tests/api $(PYTEST_ARGS)

test-research: $(VENV)/.installed-research
	$(BIN)/python -m pytest research/tests $(PYTEST_ARGS)

lint: $(VENV)/.installed-test
	$(BIN)/ruff check app tests scripts bench research migrations
	$(BIN)/ruff format --check app tests scripts bench research migrations
	$(BIN)/mypy app scripts bench research tests

openapi: $(VENV)/.installed-run
	$(BIN)/python scripts/export_openapi.py

# The messages to translate (app/locales/messages.pot), after a message changed; then
# add or change it in every app/locales/<lang>/LC_MESSAGES/messages.po (docs/api.md).
messages: $(VENV)/.installed-run
	$(BIN)/python -m app.i18n extract

bench-api: $(VENV)/.installed-test
	$(BIN)/python bench/api.py

clean-venv:
	rm -rf $(VENV)
