"""Agent SPECs (CONTRACTS.md "Agent SPECs"): agents.spec.parse_spec, agents.make_agent, the CLI's --agents/--opponents."""

import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

import agents
from agents import AGENTS, make_agent
from agents.meyer import BayesianDoubter, BlufferAgent
from agents.spec import parse_spec
from agents.syvere import SyvereHeuristic
from dice_envs import cli
from dice_envs.games import meyer, syvere


def test_names_and_typed_parameters():
    assert parse_spec("meyer", "random") == ("random", {})
    assert parse_spec("meyer", " bluffer:lie_probability=0.3,doubt_below=1/3 ") == (
        "bluffer",
        {"lie_probability": Fraction(3, 10), "doubt_below": Fraction(1, 3)},
    )
    assert parse_spec("meyer", "doubter:reroll=false,rule=loss") == ("doubter", {"reroll": False, "rule": "loss"})
    # tuple[int, ...] in brackets (commas inside brackets do not split parameters) or joined by /.
    assert parse_spec("syvere", "heuristic:stop_at=(8,5),starter_margin=2") == (
        "heuristic",
        {"stop_at": (8, 5), "starter_margin": 2},
    )
    assert parse_spec("tenthousand", "heuristic:stop_at=0/300/350/1000/2500/4000") == (
        "heuristic",
        {"stop_at": (0, 300, 350, 1000, 2500, 4000)},
    )
    # A class name stands for its registered name.
    assert parse_spec("meyer", "BlufferAgent:reroll=true") == ("bluffer", {"reroll": True})


@pytest.mark.parametrize(
    "game, spec, words",
    [
        ("meyer", "bluffer:lie_probability=lots", ["bluffer", "lie_probability", "Fraction"]),
        ("meyer", "bluffer:reroll=maybe", ["bluffer", "reroll", "bool"]),
        ("syvere", "heuristic:starter_margin=1.5", ["heuristic", "starter_margin", "int"]),
        ("syvere", "heuristic:stop_at=(7,x)", ["heuristic", "stop_at", "tuple of ints"]),
        ("meyer", "bluffer:lie_probability=1e999999999", ["bluffer", "lie_probability", "Fraction"]),
        ("meyer", "bluffer:lie_probability=1/0", ["bluffer", "lie_probability", "divides by zero"]),
        ("syvere", "heuristic:starter_margin=" + "9" * 100, ["heuristic", "starter_margin", "int"]),
    ],
)
def test_a_bad_value_names_the_agent_the_key_and_its_type(game, spec, words):
    with pytest.raises(ValueError) as info:
        parse_spec(game, spec)
    assert all(word in str(info.value) for word in words), str(info.value)


def test_a_bad_key_lists_the_agents_parameters_and_an_unknown_name_lists_the_agents():
    with pytest.raises(ValueError, match=r"agent 'bluffer' has no parameter 'honesty'; its parameters: lie_probability \(Fraction\)"):
        parse_spec("meyer", "bluffer:honesty=1")
    with pytest.raises(ValueError, match="seed is not set in a SPEC"):
        parse_spec("meyer", "bluffer:seed=3")
    with pytest.raises(ValueError, match="KEY=VALUE"):
        parse_spec("meyer", "bluffer:reroll")
    with pytest.raises(ValueError, match="given twice"):
        parse_spec("meyer", "bluffer:reroll=true,reroll=false")
    with pytest.raises(ValueError, match="unknown agent 'oracle' for meyer; choose from bluffer, doubter, equilibrium"):
        parse_spec("meyer", "oracle")
    with pytest.raises(ValueError, match="unknown agent 'heuristic' for meyer"):
        parse_spec("meyer", "heuristic:stop_at=1")
    with pytest.raises(ValueError, match="empty agent SPEC"):
        parse_spec("meyer", "  ")


def test_paths_are_checkpoints(tmp_path, monkeypatch):
    assert parse_spec("meyer", "runs/meyer/best") == (Path("runs/meyer/best"), {})
    assert parse_spec("meyer", "policy.safetensors") == (Path("policy.safetensors"), {})
    (tmp_path / "mine").mkdir()
    monkeypatch.chdir(tmp_path)
    assert parse_spec("meyer", "mine") == (Path("mine"), {})  # not a name, but it exists
    (tmp_path / "random").mkdir()
    assert parse_spec("meyer", "random") == ("random", {})  # a name wins; ./random is the directory
    assert parse_spec("meyer", "./random") == (Path("random"), {})

    loaded = []

    class FakeCheckpoint:
        @staticmethod
        def load_agent(game, path, seed=None):
            loaded.append((game.name, Path(path), seed))
            return "the trained agent"

    monkeypatch.setitem(sys.modules, "agents.checkpoint", FakeCheckpoint)
    assert make_agent(meyer.Game(), "./random", seed=5) == "the trained agent"
    assert loaded == [("meyer", Path("random"), 5)]
    with pytest.raises(ValueError, match="checkpoint SPEC takes no parameters"):
        make_agent(meyer.Game(), "./random", reroll=False)


def test_make_agent_builds_from_specs_and_python_parameters_override():
    g = meyer.Game()
    agent = make_agent(g, "bluffer:lie_probability=1/3", seed=0)
    assert isinstance(agent, BlufferAgent) and agent.lie_probability == Fraction(1, 3)
    agent = make_agent(g, "bluffer:lie_probability=1/3", lie_probability=Fraction(1, 5))
    assert agent.lie_probability == Fraction(1, 5)
    assert isinstance(make_agent(g, "BayesianDoubter"), BayesianDoubter)
    assert isinstance(make_agent("syvere", "heuristic:stop_at=(8,5)"), SyvereHeuristic)
    with pytest.raises(ValueError, match="agent 'bluffer' has no parameter 'honesty'"):
        make_agent(g, "bluffer", honesty=1)
    # The same SPEC string and seed give the same agent behaviour.
    import numpy as np

    a, b = make_agent(g, "bluffer:lie_probability=1/2", seed=7), make_agent(g, "bluffer:lie_probability=1/2", seed=7)
    obs = np.zeros(len(g.observation_low), dtype=np.float32)
    mask = np.zeros(g.num_actions, dtype=np.int8)
    mask[:] = 1
    assert [a.act(obs, mask) for _ in range(20)] == [b.act(obs, mask) for _ in range(20)]


def test_solver_and_trained_agents_are_registered_lazily():
    assert AGENTS["syvere"]["optimal"] == "agents.solvers.syvere:OptimalAgent"
    assert AGENTS["tenthousand"]["optimal"] == "agents.solvers.tenthousand:OptimalAgent"
    assert AGENTS["tenthousand"]["winprob"] == "agents.solvers.tenthousand_win:WinProbAgent"
    assert AGENTS["meyer"]["equilibrium"] == "agents.solvers.meyer:EquilibriumAgent"
    assert all(table["trained"] == "agents.checkpoint:TrainedAgent" for table in AGENTS.values())
    # Importing the registry and listing the agents (match --help does) imports none of them.
    code = (
        "import sys, agents; from dice_envs import cli; cli.main(['match', '--help']);"
        "heavy = [m for m in sys.modules if m.startswith(('agents.solvers.', 'agents.checkpoint', 'torch'))];"
        "print('HEAVY', heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "HEAVY []" in out, out


def test_a_lazy_entry_whose_module_is_missing_says_so_when_used(monkeypatch):
    monkeypatch.setitem(AGENTS["syvere"], "ghost", "agents.no_such_module:Ghost")
    monkeypatch.setitem(AGENTS["syvere"], "phantom", "agents.base:NoSuchClass")
    assert "ghost" in AGENTS["syvere"]  # listing is fine
    with pytest.raises(ValueError, match="agent 'ghost' for syvere is not available: its module agents.no_such_module is missing"):
        make_agent(syvere.Game(), "ghost")
    with pytest.raises(ValueError, match="agent 'phantom' for syvere is not available: agents.base has no NoSuchClass"):
        make_agent(syvere.Game(), "phantom:x=1")


def test_match_takes_specs_as_separate_words_and_the_old_comma_list(capsys):
    argv = ["match", "meyer", "--games", "4", "--agents", "doubter", "bluffer:lie_probability=0.5,reroll=false"]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert "doubter " in out and "bluffer:lie_probability=0.5,reroll=false" in out
    assert cli.main(["match", "meyer", "--games", "4", "--agents", "honest,bluffer,random", "--num-players", "3"]) == 0
    out = capsys.readouterr().out
    assert "num_players=3" in out and "honest " in out and "random " in out
    assert cli.main(["match", "meyer", "--games", "4", "--agents", "bluffer:lie_probability=2", "random"]) == 2
    assert "lie_probability" in capsys.readouterr().err
    assert cli.main(["match", "meyer", "--agents", "oracle", "random"]) == 2
    assert "unknown agent 'oracle' for meyer; choose from" in capsys.readouterr().err


def test_play_takes_a_spec_for_its_opponents(capsys, monkeypatch):
    from dice_envs.play import play

    out = []
    assert play("meyer", {}, seed=0, opponents="bluffer:lie_probability=1", read=lambda p: "q", write=out.append) is None
    assert "against 1 x bluffer:lie_probability=1" in out[0]
    assert cli.main(["play", "meyer", "--opponents", "bluffer:honesty=1"]) == 2
    assert "no parameter 'honesty'" in capsys.readouterr().err


def test_agents_module_exports():
    assert agents.make_agent is make_agent and "make_agent" in agents.__all__


def test_a_spec_ending_in_a_colon_with_no_parameter_is_refused():
    """Found by the slow CLI fuzz (seed 1219): `--agents random: random:` used to play with exit 0."""
    import pytest

    from agents.spec import parse_spec

    with pytest.raises(ValueError, match="ends with ':' but sets no parameter"):
        parse_spec("syvere", "random:")


def test_an_agents_repr_shows_what_its_spec_set():
    # From the constructor's parameters it keeps under their own names: what a SPEC built is visible.
    assert repr(make_agent(syvere.Game(), "heuristic:stop_at=(8,5)")) == "SyvereHeuristic(stop_at=(8, 5), starter_margin=1)"
    assert repr(make_agent(syvere.Game(), "random")) == "RandomAgent()"


@pytest.mark.parametrize("text, value", [("1/3", 1 / 3), ("0.25", 0.25), ("-3/4", -0.75), ("2", 2.0)])
def test_a_float_parameter_reads_a_ratio_as_a_fraction_parameter_does(text, value):
    """README: a probability may be written 1/3; a float parameter of one's own agent refused it."""
    from dice_envs.options import parse_value

    assert parse_value(text, float, "p") == value and isinstance(parse_value(text, float, "p"), float)
    with pytest.raises(ValueError, match="divides by zero"):
        parse_value("1/0", float, "p")
    with pytest.raises(ValueError, match="must be float"):
        parse_value("1/3/4", float, "p")


def test_a_decimal_over_a_whole_number_is_read_not_a_raw_error():
    """1.5/2 matched the number pattern but Fraction() refused it with its own message."""
    from dice_envs.options import parse_value

    assert parse_value("1.5/2", Fraction, "p") == Fraction(3, 4) and parse_value("1.5/2", float, "p") == 0.75
    assert parse_spec("meyer", "bluffer:lie_probability=1.5/2") == ("bluffer", {"lie_probability": Fraction(3, 4)})
    with pytest.raises(ValueError, match="divides by zero"):
        parse_value("1.5/0", Fraction, "p")
