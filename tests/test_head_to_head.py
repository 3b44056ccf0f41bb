"""The exact value of one Meyer agent against another (evaluate.exploitability.head_to_head) and
``dice-envs solve meyer --value`` / ``--games`` / ``--seed``.

Checked against computations that share nothing with it: the expectation over the engine's whole
game tree in exact fractions (both policies fixed, so no beliefs are needed), the equilibrium's
saddle property with the solver's game value, and seeded games played in the engine.
"""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest

from agents import make_agent
from agents.solvers import cli
from agents.solvers.meyer import load_tables, make_game
from dice_envs.games import meyer
from evaluate.exploitability import HAS_MEMORY, OutsideModel, exploitability, head_to_head
from test_exploitability import BelievesAfterALostLife, Grudge, Looper, ReadsTheLastCup  # tests/ is on the path


def game_tree_value(game, agent_a, agent_b, a_starts: bool) -> Fraction:
    """A's expected C-3 return, A in seat 0, by the expectation over the engine's game tree.

    Only the engine (chance_outcomes, apply_chance, apply_action, observe, returns) and the agents'
    exact_action_probabilities are used: the value is an exact fraction. The lifted cup and the
    round number change no transition, and the built-in agents do not read the cup, so states that
    differ only in them are merged (with one life there is no lifted cup before the end anyway).
    """
    agents = (agent_a, agent_b)
    memo: dict = {}

    def value(s) -> Fraction:
        key = s._replace(last_doubt=None, round=0)
        if key not in memo:
            if game.is_terminal(s):
                v = Fraction(int(game.returns(s)[0]))
            elif s.to_roll:
                v = sum(p * value(game.apply_chance(s, dice)) for dice, p in game.chance_outcomes(s))
            else:
                mask = np.zeros(game.num_actions, dtype=np.int8)
                mask[game.legal_actions(s)] = 1
                policy = agents[s.actor].exact_action_probabilities(game.observe(s, s.actor), mask)
                v = sum(p * value(game.apply_action(s, a)) for a, p in policy.items() if p)
            memo[key] = v
        return memo[key]

    return value(game.initial_state()._replace(actor=0 if a_starts else 1))


@pytest.mark.parametrize(
    "options, spec_a, spec_b",
    [
        ({"lives": 1, "claim_rule": "higher", "history": 2}, "honest", "doubter"),
        ({"lives": 1, "claim_rule": "higher", "history": 2, "lille_meyer": False}, "doubter", "bluffer:lie_probability=1/3"),
        ({"lives": 1, "claim_rule": "higher", "history": 2, "blind_reroll": True}, "bluffer:lie_probability=1/4", "honest"),
        ({"lives": 2, "claim_rule": "higher", "history": 2, "meyer_costs": 2}, "honest", "bluffer:lie_probability=1/3"),
    ],
)
def test_exact_value_is_the_game_trees_expectation(options, spec_a, spec_b):
    """In each seating, to rounding, including the blind reroll and a Meyer that costs two lives."""
    game = make_game(options)
    a, b = make_agent(game, spec_a, seed=0), make_agent(game, spec_b, seed=0)
    result = head_to_head(game, a, b)
    first, second = game_tree_value(game, a, b, True), game_tree_value(game, a, b, False)
    assert result.first == pytest.approx((float(first), float(first)), abs=1e-12)
    assert result.second == pytest.approx((float(second), float(second)), abs=1e-12)
    assert result.value == pytest.approx(float(first + second) / 2, abs=1e-12)
    assert result.win_probability == pytest.approx(float(1 + (first + second) / 2) / 2, abs=1e-12)
    assert result.win_first == pytest.approx(float((1 + first) / 2), abs=1e-12)
    assert result.truncation_bound == 0 and result.sweeps_stalled == 0


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    return str(tmp_path_factory.mktemp("solver_cache"))


@pytest.mark.parametrize("options", [{"lives": 2}, {"lives": 1, "blind_reroll": True}, {"lives": 1, "claim_rule": "higher"}])
def test_the_equilibrium_is_a_saddle_point(options, cache_dir):
    """Against itself the equilibrium gets the solver's game value as the starter and minus it as the
    second player; against any other agent at least as much in each seat."""
    game = make_game(options)
    L = game.lives
    value = float(load_tables(options, cache_dir=cache_dir)["value"][L - 1, L - 1, 0])
    eq = make_agent(game, "equilibrium", seed=0, cache_dir=cache_dir)
    itself = head_to_head(game, eq, eq)
    assert itself.first == pytest.approx((value, value), abs=1e-9)
    assert itself.second == pytest.approx((-value, -value), abs=1e-9)
    assert itself.value == pytest.approx(0, abs=1e-9) and itself.win_probability == pytest.approx(0.5, abs=1e-9)
    for spec in ("honest", "doubter", "bluffer", "random"):
        other = head_to_head(game, eq, make_agent(game, spec, seed=0))
        assert other.first[0] >= value - 1e-9 and other.second[0] >= -value - 1e-9, spec
    # and a best response does at least as well as any agent against the same opponent
    bluffer = make_agent(game, "bluffer", seed=0)
    best = exploitability(game, bluffer)
    versus = head_to_head(game, make_agent(game, "honest", seed=0), bluffer)
    assert versus.first[1] <= best.br_first + 1e-9 and versus.second[1] <= best.br_second + 1e-9


@pytest.mark.parametrize("options", [{"lives": 2}, {"lives": 2, "meyer_costs": 2, "blind_reroll": True}])
def test_swapping_the_agents_negates_the_value_seat_for_seat(options):
    game = make_game(options)
    a, b = make_agent(game, "honest", seed=0), make_agent(game, "bluffer:lie_probability=0.3", seed=0)
    ab, ba = head_to_head(game, a, b), head_to_head(game, b, a)
    assert ab.first == pytest.approx((-ba.second[1], -ba.second[0]), abs=1e-12)
    assert ab.second == pytest.approx((-ba.first[1], -ba.first[0]), abs=1e-12)
    assert ab.value == pytest.approx(-ba.value, abs=1e-12)
    assert ab.win_probability + ba.win_probability == pytest.approx(1, abs=1e-12)
    assert ab.swapped().first == pytest.approx(ba.first, abs=1e-12)
    assert abs(ab.first[0] - ab.second[0]) > 0.01  # the seats differ: a swap of them would show


def test_seeded_games_win_what_the_exact_value_says():
    """Played in the engine (the agents see their real observations), A's win share over games
    where each starts half the time holds the exact win probability in its 95% Wilson interval."""
    import evaluate.exploitability as ex
    from evaluate.stats import wilson

    game = make_game({"lives": 2})
    a, b = make_agent(game, "doubter", seed=0), make_agent(game, "bluffer:lie_probability=0.3", seed=0)
    exact = head_to_head(game, a, b)
    games = 2000
    wins = ex._play(game, b, ex._AgentResponder(game, a), games, seed=4)  # A is the "responder"
    _, low, high = wilson(wins, games)
    assert low <= exact.win_probability <= high
    assert high - low < 0.05


def test_rounds_that_last_for_ever_leave_the_bracket_open_and_say_so():
    game = make_game({"lives": 1})
    result = head_to_head(game, Looper(game), Looper(game))
    assert result.sweeps_stalled > 0
    assert result.first == pytest.approx((-1, 1)) and result.second == pytest.approx((-1, 1))
    assert result.truncation_bound == pytest.approx(2)
    honest = make_agent(game, "honest", seed=0)
    mixed = head_to_head(game, Looper(game), honest)  # honest ends its rounds: the bracket closes
    assert mixed.sweeps_stalled == 0 and mixed.truncation_bound < 1e-12
    higher = make_game({"lives": 1, "claim_rule": "higher"})
    assert head_to_head(higher, Looper(higher), Looper(higher)).truncation_bound == 0


@pytest.mark.parametrize("seat", ["a", "b"])
def test_an_agent_outside_the_model_is_refused_whichever_seat(seat):
    game = make_game({"lives": 2})
    honest = make_agent(game, "honest", seed=0)
    for outside, reason in ((ReadsTheLastCup(game, seed=0), "older claims or the last lifted cup"), (Grudge(game), HAS_MEMORY)):
        pair = (outside, honest) if seat == "a" else (honest, outside)
        with pytest.raises(OutsideModel, match="out of reach") as caught:
            head_to_head(game, *pair)
        assert repr(outside) in str(caught.value) and reason in str(caught.value)
    with pytest.raises(ValueError, match="two players"):
        three = meyer.Game(num_players=3)
        head_to_head(three, make_agent(three, "honest"), make_agent(three, "honest"))


# -- the command line ---------------------------------------------------------------------------
def run(capsys, *words):
    assert cli.main(list(words)) == 0
    out = capsys.readouterr().out.strip().splitlines()
    return out, json.loads(out[-1])


def test_cli_value_prints_the_exact_value_and_win_probability(capsys, tmp_path):
    options = {"lives": 2, "meyer_costs": 2}
    lines, data = run(capsys, "meyer", "--lives", "2", "--meyer-costs", "2", "--value", "doubter", "honest",
                      "--json", "--no-progress", "--cache-dir", str(tmp_path))  # fmt: skip
    game = make_game(options)
    exact = head_to_head(game, make_agent(game, "doubter", seed=0), make_agent(game, "honest", seed=0))
    assert data["objective"] == "head to head" and data["spec_a"] == "doubter" and data["spec_b"] == "honest"
    assert data["value"] == pytest.approx(exact.value, abs=1e-12)
    assert data["a_first"] == pytest.approx(exact.a_first, abs=1e-12)
    assert data["a_second"] == pytest.approx(exact.a_second, abs=1e-12)
    assert data["win_probability"] == pytest.approx((1 + exact.value) / 2, abs=1e-12)
    assert lines[0] == (
        f"doubter against honest in two-player Meyer, 2 lives: expected return of doubter {exact.value:+.9f} "
        f"(exact; averaged over who starts), win probability of doubter {exact.win_probability:.9f}"
    )
    assert lines[1] == (
        f"doubter starts: return {exact.a_first:+.9f}, win probability {exact.win_first:.9f}; "
        f"honest starts: return {exact.a_second:+.9f}, win probability {exact.win_second:.9f}"
    )


def test_cli_value_with_a_bracket_that_does_not_close(capsys, tmp_path, monkeypatch):
    import agents

    real = agents.make_agent
    monkeypatch.setattr(agents, "make_agent",
                        lambda g, spec, seed=None, **kw: Looper(g) if spec == "looper" else real(g, spec, seed, **kw))  # fmt: skip
    lines, data = run(capsys, "meyer", "--lives", "1", "--value", "looper", "looper", "--json", "--no-progress",
                      "--cache-dir", str(tmp_path))  # fmt: skip
    assert data["sweeps_stalled"] > 0 and data["low"] == pytest.approx(-1) and data["high"] == pytest.approx(1)
    # the figures are the lower ends, as the exploitability's, and the method says they bracket
    assert data["method"] == "bracket" and data["value"] == data["low"] and -1 <= data["low"] <= data["high"] <= 1
    assert data["win_probability"] == pytest.approx(0) and data["win_probability"] >= 0
    assert any(line.startswith("A (looper) starts: return ") and "; B (looper) starts: " in line for line in lines)
    # a stalled level is counted once (one life: 21 claims to beat, each at most once), not once per end
    assert data["sweeps_stalled"] <= 21
    assert "between -1.000000000 and +1.000000000 (exact but for rounds that can last for ever" in lines[0]
    assert any("can repeat a claim for ever" in line for line in lines)
    assert sum(line.startswith("exact if looper plays by") for line in lines) == 1  # one probe line for one spec


@pytest.mark.parametrize(
    "words, message",
    [
        (["--value", "honest"], "--value: expected 2 arguments"),
        (["--value", "honest", "doubter", "--exploitability", "honest"], "give one of them"),
        (["--value", "honest", "doubter", "--describe", "54"], "--describe shows the equilibrium's strategy; not with --value"),
        (["--value", "honest", "doubter", "--export", "x.csv"], "--export shows the equilibrium's strategy; not with --value"),
        (["--value", "honest", "doubter", "--games", "100"], "--games sets the simulated lower bound of --exploitability"),
        (["--seed", "3"], "--seed sets the simulated lower bound of --exploitability; give --exploitability SPEC"),
        (["--exploitability", "honest", "--games", "1"], "the number of games is a whole number >= 2, not 1"),
        (["--exploitability", "honest", "--seed", "-1"], "a seed is a whole number >= 0"),
        (["--value", "honest", "nosuch"], "unknown agent 'nosuch'"),
    ],
)
def test_cli_refusals_are_one_line_and_exit_2(capsys, tmp_path, words, message):
    from dice_envs.cli import main

    assert main(["solve", "meyer", "--lives", "1", *words, "--no-progress", "--cache-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dice-envs: ") and err.count("\n") == 1 and message in err, err


@pytest.mark.parametrize("words", [["honest", "reads_cup"], ["reads_cup", "honest"]])
def test_cli_refuses_an_agent_outside_the_model_naming_it(capsys, tmp_path, monkeypatch, words):
    import agents
    from dice_envs.cli import main

    real = agents.make_agent
    monkeypatch.setattr(agents, "make_agent",
                        lambda g, spec, seed=None, **kw: ReadsTheLastCup(g, seed=seed) if spec == "reads_cup"
                        else real(g, spec, seed, **kw))  # fmt: skip
    assert main(["solve", "meyer", "--lives", "2", "--value", *words, "--no-progress", "--cache-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err == (
        "dice-envs: --value: reads_cup is outside the exact model (it reads older claims or the last lifted cup), "
        f"so its exact value against honest is out of reach; for an estimate, play them: dice-envs match meyer "
        f"[game options] --agents {words[0]} {words[1]}\n"
    )


@pytest.mark.parametrize("game", ["syvere", "tenthousand"])
@pytest.mark.parametrize("flag", [["--value", "a", "b"], ["--games", "10"], ["--seed", "1"]])
def test_meyer_flags_are_refused_for_other_games(game, flag, tmp_path):
    with pytest.raises(ValueError, match=f"{flag[0]} is an option of `solve meyer`"):
        cli.main([game, *flag, "--cache-dir", str(tmp_path)])


def test_games_and_seed_reach_the_simulated_lower_bound(capsys, tmp_path, monkeypatch):
    import agents
    import evaluate.exploitability as ex

    real = agents.make_agent
    monkeypatch.setattr(agents, "make_agent",
                        lambda g, spec, seed=None, **kw: BelievesAfterALostLife(g, seed=seed) if spec == "believer"
                        else real(g, spec, seed, **kw))  # fmt: skip
    calls = []
    estimate = ex.estimate_exploitability

    def spy(*args, **kwargs):
        calls.append(kwargs)
        return estimate(*args, **kwargs)

    monkeypatch.setattr(ex, "estimate_exploitability", spy)
    words = ["meyer", "--lives", "2", "--exploitability", "believer", "--json", "--no-progress", "--cache-dir", str(tmp_path)]
    lines, data = run(capsys, *words, "--games", "40", "--seed", "7")
    assert calls[-1]["games"] == 40 and calls[-1]["seed"] == 7
    assert data["method"] == "lower bound" and data["games"] == 40 and data["seed"] == 7
    assert lines[1].endswith("over 40 games (seed 7)")
    again = run(capsys, *words, "--games", "40", "--seed", "7")[1]
    other = run(capsys, *words, "--games", "40", "--seed", "8")[1]
    assert again["value"] == data["value"] and other["screening"] != data["screening"]
    monkeypatch.setattr(ex, "CLI_GAMES", 24)  # the defaults are unchanged: CLI_GAMES games, seed 0
    lines, default = run(capsys, *words)
    assert calls[-1]["games"] == 24 and calls[-1]["seed"] == 0 and default["games"] == 24
    assert lines[1].endswith("over 24 games")


def test_games_and_seed_for_an_exact_exploitability_are_said_to_be_unused(capsys, tmp_path):
    lines, data = run(capsys, "meyer", "--lives", "1", "--exploitability", "honest", "--games", "40", "--seed", "7",
                      "--json", "--no-progress", "--cache-dir", str(tmp_path))  # fmt: skip
    assert data["method"] == "exact" and data["games"] == 0
    assert any("--games and --seed" in line and "not used" in line for line in lines)
    lines, _ = run(capsys, "meyer", "--lives", "1", "--exploitability", "honest", "--json", "--no-progress",
                   "--cache-dir", str(tmp_path))  # fmt: skip
    assert not any("--games" in line for line in lines)
