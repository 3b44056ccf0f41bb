# The two commands of the README: `make run` (the main job) and `make test` (the test suite).
# Both create the virtual environment in .venv on first use and reuse it afterwards, with the
# same extras installed (the tests train tiny runs, so they need torch too).

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

# Every extra whose tests run by default: training (torch), solvers, reports, OpenSpiel, development.
# torch is installed first from the pin, so the [train] extra's range is already met.
$(VENV)/.dev: $(PY) pyproject.toml Makefile
	$(PY) -m pip install --quiet $(TORCH)
	$(PY) -m pip install --quiet -e ".[train,solve,report,openspiel,dev]"
	touch $@

# The main job: a short self-play training run of each game, then a tournament per game of the new
# checkpoints against the built-in agents, the fast solver agents and the checkpoints shipped with
# the package, writing results/tournament/<game>.sqlite, the reports and summary.md. Re-running it
# continues the training runs and plays only the games the databases lack.
MAIN_STEPS ?= 150000
# 10 000's recipe first imitates the one-turn solver (train.teacher); the main job imitates a
# quarter of the recipe's 200k decisions, in fewer passes, to stay within its time.
MAIN_TEACHER_STATES ?= 50000
RUNS ?= runs/main

run: $(VENV)/.dev
	$(VENV)/bin/dice-envs train meyer --timesteps $(MAIN_STEPS) --seed 0 --run-dir $(RUNS)/meyer/new-ppo
	$(VENV)/bin/dice-envs train syvere --timesteps $(MAIN_STEPS) --seed 0 --run-dir $(RUNS)/syvere/new-ppo
	$(VENV)/bin/dice-envs train tenthousand --timesteps $(MAIN_STEPS) --seed 0 --run-dir $(RUNS)/tenthousand/new-ppo \
		--set teacher_states=$(MAIN_TEACHER_STATES) --set teacher_epochs=4
	$(PY) -m evaluate.mainjob --out results/tournament \
		--checkpoint meyer=$(RUNS)/meyer/new-ppo/policy \
		--checkpoint syvere=$(RUNS)/syvere/new-ppo/policy \
		--checkpoint tenthousand=$(RUNS)/tenthousand/new-ppo/policy

test: $(VENV)/.dev
	$(PY) -m pytest

bench: $(VENV)/.dev
	$(VENV)/bin/dice-envs bench
