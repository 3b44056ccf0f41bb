# The two commands of the README: `make run` (the main job) and `make test` (the test suite).
# Both create the virtual environment in .venv on first use and reuse it afterwards; each
# installs what it needs (the tests need no torch).

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python

# torch is pinned here, where the install happens: on these machines `pip install torch==2.13.0`
# takes a CPU build from a local file, while an unpinned torch (or a range that admits a newer
# release) downloads a CUDA build of several GB. pyproject.toml holds a compatible range.
TORCH := torch==2.13.0

.PHONY: run test bench

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# Every extra whose tests run by default: training (torch), solvers, reports, development.
# torch is installed first from the pin, so the [train] extra's range is already met.
$(VENV)/.dev: $(PY) pyproject.toml Makefile
	$(PY) -m pip install --quiet $(TORCH)
	$(PY) -m pip install --quiet -e ".[train,solve,report,dev]"
	touch $@

# Until training and tournaments land, the main job is a seeded match of the built-in agents of
# each game, with standings and 95% confidence intervals.
run: $(VENV)/.dev
	$(VENV)/bin/dice-envs match syvere --agents heuristic,random,random,random --games 500
	$(VENV)/bin/dice-envs match tenthousand --agents heuristic,greedy --games 500 --preset dk
	$(VENV)/bin/dice-envs match meyer --agents doubter,honest,bluffer --games 500

test: $(VENV)/.dev
	$(PY) -m pytest

bench: $(VENV)/.dev
	$(VENV)/bin/dice-envs bench
