"""Agents of one's own in every command: the SPEC ``MODULE:CLASS[:KEY=VALUE,...]``."""

from __future__ import annotations

import multiprocessing
import subprocess
import sys
import textwrap

import pytest

from agents import make_agent
from agents.spec import parse_spec
from dice_envs.games import meyer

AGENT_MODULE = textwrap.dedent(
    '''
    import numpy as np
    from agents import Agent


    class LastLegal(Agent):
        """The last legal action, or with probability eps a uniform legal one."""

        def __init__(self, game, seed=None, eps: float = 0.0):
            super().__init__(game, seed)
            self.eps = eps

        def action_probabilities(self, observation, action_mask):
            legal = np.flatnonzero(action_mask)
            p = np.zeros(len(action_mask))
            p[legal] = self.eps / len(legal)
            p[legal[-1]] += 1.0 - self.eps
            return p


    NOT_A_CLASS = 3
    '''
)


@pytest.fixture
def module_dir(tmp_path, monkeypatch):
    """A module of the user's, importable as ``useragents_<n>`` from sys.path."""
    name = f"useragents_{abs(hash(str(tmp_path))) % 10**8}"
    (tmp_path / f"{name}.py").write_text(AGENT_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path, name


def test_a_class_of_ones_own_is_built_with_typed_parameters(module_dir):
    _, name = module_dir
    assert parse_spec("meyer", f"{name}:LastLegal:eps=0.25") == (f"{name}:LastLegal", {"eps": 0.25})
    agent = make_agent(meyer.Game(), f"{name}:LastLegal:eps=0.5", seed=1)
    assert type(agent).__name__ == "LastLegal" and agent.eps == 0.5
    with pytest.raises(ValueError, match=rf"agent '{name}:LastLegal' has no parameter 'epz'; its parameters: eps \(float\)"):
        make_agent(meyer.Game(), f"{name}:LastLegal:epz=1")
    with pytest.raises(ValueError, match=rf"{name}\.NOT_A_CLASS is not an agent class"):
        make_agent(meyer.Game(), f"{name}:NOT_A_CLASS")
    with pytest.raises(ValueError, match="no module 'no_such_module_here' on sys.path or in the working directory"):
        make_agent(meyer.Game(), "no_such_module_here:Agent")
    # A registered name keeps its meaning: `bluffer:reroll` is a parameter without its value.
    with pytest.raises(ValueError, match="parameters go as KEY=VALUE"):
        parse_spec("meyer", "bluffer:reroll")


def test_spawned_workers_build_it_from_the_spec(module_dir):
    # macOS and Windows start workers by spawning: nothing the parent registered is there, so the
    # SPEC itself must say where the class is.
    from evaluate.tournament import _worker_init, _worker_play, schedule

    _, name = module_dir
    specs = ["honest", f"{name}:LastLegal:eps=0.2"]
    tasks = schedule(specs, 2, games=2, seed=0)
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(1, initializer=_worker_init, initargs=("meyer", {}, specs, specs, None)) as pool:
        records, error = pool.apply(_worker_play, (tasks,))
    assert error is None and [r.task.key for r in records] == [t.key for t in tasks]


def test_the_command_line_finds_a_module_in_the_working_directory(tmp_path):
    # The console script's sys.path holds its own directory, not the working one: a module beside
    # the user is still found, as `uvicorn main:app` finds main.py.
    (tmp_path / "myagents.py").write_text(AGENT_MODULE)
    script = [sys.executable, "-c", "import sys; from dice_envs.cli import main; sys.path.remove(''); "
              "sys.exit(main(sys.argv[1:]))"]  # fmt: skip
    done = subprocess.run(
        [*script, "tournament", "meyer", "--agents", "honest", "myagents:LastLegal", "myagents:LastLegal:eps=0.5",
         "--games", "20", "--no-db", "--quiet", "--workers", "2"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "myagents:LastLegal:eps=0.5" in done.stdout and "myagents:LastLegal " in done.stdout


def test_bad_module_specs_are_one_line_errors(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "path", list(sys.path))  # restored after the test (a found module keeps its directory)
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.chdir(empty)
    before = list(sys.path)
    with pytest.raises(ValueError, match="no module 'no_such_module_zz' on sys.path or in the working directory"):
        make_agent(meyer.Game(), "no_such_module_zz:Agent")
    assert sys.path == before  # a look-up that found nothing leaves sys.path as it was
    with pytest.raises(ValueError, match="'agents' is a package of dice-envs; name its agents by their names"):
        make_agent(meyer.Game(), "agents:RandomAgent")  # it would have entered ours under another label
    monkeypatch.chdir(tmp_path)
    (tmp_path / "broken_syntax_mod.py").write_text("def broken(:\n")
    with pytest.raises(ValueError, match="importing broken_syntax_mod failed: SyntaxError"):
        make_agent(meyer.Game(), "broken_syntax_mod:Agent")


def test_match_words_that_join_a_module_spec_and_a_name_say_to_split_them():
    from evaluate.match import split_agent_words

    with pytest.raises(ValueError, match=r"give each agent as its own word: --agents lab:Mine honest$"):
        split_agent_words(["lab:Mine,honest"])
    with pytest.raises(ValueError, match=r"joins agents with commas; give each as its own word: --agents honest lab:Mine$"):
        split_agent_words(["honest,lab:Mine"])
    assert split_agent_words(["lab.agents:Mine:eps=0.3,k=2", "honest,random"]) == [
        "lab.agents:Mine:eps=0.3,k=2", "honest", "random",
    ]  # fmt: skip
