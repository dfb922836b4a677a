# The README quickstart: `make demo` runs the whole pipeline (python -m pipeline.demo),
# `make test` runs lint and the test suite. Both create .venv on first use.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo bench test lint format clean-venv

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[dev]"
	touch $(STAMP)

demo: $(STAMP)
	$(PY) -m pipeline.demo

# Every benchmark under bench/ at small settings -> bench/RESULTS.md (bm25s, the optional
# reference of bench.dedup, comes with `pip install -e ".[bench]"`).
bench: $(STAMP)
	$(PY) -m bench

# Test files run in TEST_WORKERS processes (pytest-xdist; whole files per process, so a module's
# fixtures are built once): most of the suite's time is single-threaded XLA compilation.
TEST_WORKERS ?= 2

test: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadfile

lint: $(STAMP)
	$(PY) -m ruff check .

format: $(STAMP)
	$(PY) -m ruff format .
	$(PY) -m ruff check --fix .

clean-venv:
	rm -rf $(VENV)
