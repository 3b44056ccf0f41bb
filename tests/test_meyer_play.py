"""What equilibrium self-play does in Meyer, exactly (``agents.solvers.meyer.equilibrium_play``): the
expected visits of every level and the counts of rounds, claims, lies and doubts, checked against the
solver's game value, against each other and against simulated self-play in the engine."""

from __future__ import annotations

import math

import numpy as np
import pytest

from agents.solvers import meyer as solver
from dice_envs.games import meyer

VARIANTS = [
    {"lives": 1},
    {"lives": 3},
    {"lives": 2, "claim_rule": "higher"},
    {"lives": 3, "blind_reroll": True, "meyer_costs": 2},
    {"lives": 2, "lille_meyer": False},
]


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("meyer_play")


def _play(options, cache):
    game = solver.make_game(options)
    tables = solver.load_tables(solver.solution_options(game), cache_dir=cache)
    return game, tables, solver.equilibrium_play(game, tables)


@pytest.mark.parametrize("options", VARIANTS)
def test_the_first_starters_win_chance_is_the_solvers_game_value(options, cache):
    # Two computations that share nothing but the strategy: the LP's value of the first round,
    # and the mass of finished games in the chain of visits.
    game, tables, play = _play(options, cache)
    assert play["first_starter_wins"] == pytest.approx((1 + float(tables["game_value"])) / 2, abs=1e-12)
    assert play["doubts"] == pytest.approx(play["rounds"], abs=1e-12)  # every round ends with one doubt
    assert play["visits"][:, :, 0].sum() == pytest.approx(play["rounds"], abs=1e-12)
    L = game.lives
    assert play["visits"][L - 1, L - 1, 0] >= 1.0
    assert 0 < play["lies"] < play["claims"] and 0 < play["doubts_right"] < play["doubts"]
    assert (play["blind_claims"] > 0) == game.blind_reroll


def test_one_life_goes_one_round(cache):
    _, _, play = _play({"lives": 1}, cache)
    assert play["rounds"] == 1.0 and play["visits"][0, 0, 0] == 1.0


def _simulate(game, tables, games: int, seed: int) -> dict:
    """Equilibrium self-play in the engine: the counts per game, and their standard errors."""
    rng = np.random.default_rng(seed)
    agents = [solver.EquilibriumAgent(game, seed=seed + i) for i in range(2)]
    keys = ("rounds", "claims", "lies", "blind_claims", "doubts_right")
    totals = {k: [] for k in keys}
    for _ in range(games):
        s = game.initial_state()
        count = dict.fromkeys(keys, 0)
        count["rounds"] = 1
        while not game.is_terminal(s):
            if s.to_roll:
                s = game.apply_chance(s, tuple(int(v) for v in rng.integers(1, 7, size=2)))
                continue
            mask = np.zeros(game.num_actions, dtype=np.int8)
            mask[game.legal_actions(s)] = 1
            action = agents[s.actor].act(game.observe(s, s.actor), mask)
            if action >= meyer.FIRST_CLAIM:
                c = action - meyer.FIRST_CLAIM
                if s.blind:
                    count["blind_claims"] += 1
                else:
                    count["claims"] += 1
                    count["lies"] += not game.is_true(s.cup, c)
            elif action == meyer.DOUBT:
                count["doubts_right"] += not game.is_true(s.cup, s.claim)
            s = game.apply_action(s, action)
            if action == meyer.DOUBT and not game.is_terminal(s):
                count["rounds"] += 1
        for k in keys:
            totals[k].append(count[k])
    return {k: (float(np.mean(v)), float(np.std(v)) / math.sqrt(games)) for k, v in totals.items()}


@pytest.mark.parametrize("options", [{"lives": 2}, {"lives": 2, "blind_reroll": True}])
def test_simulated_self_play_agrees(options, cache):
    game, tables, play = _play(options, cache)
    simulated = _simulate(game, tables, games=1500, seed=11)
    for key, (mean, se) in simulated.items():
        assert abs(mean - play[key]) <= 4.5 * se + 1e-9, (key, mean, se, play[key])


def test_the_exports_level_visits_weigh_the_rows_into_the_counts(cache):
    options = {"lives": 2, "blind_reroll": True}
    game, tables, play = _play(options, cache)
    rules = solver.Rules(game)
    rows = list(solver.strategy_rows(options, cache_dir=cache))
    assert all(list(row) == list(solver.STRATEGY_COLUMNS) for row in rows)
    names = [meyer.CLAIM_NAMES[c] for c in game.claim_of_rank]
    p_dice = {names[d]: rules.p[d] for d in range(len(names))}
    seen = sum(r["level_visits"] * p_dice[r["dice"]] * r["probability"]
               for r in rows if r["role"] == "claim" and not r["blind"] and r["action"] != "reroll")  # fmt: skip
    assert seen == pytest.approx(play["claims"], abs=1e-9)
    start = next(r for r in rows if (r["roller_lives"], r["responder_lives"], r["claim_to_beat"]) == (2, 2, "start"))
    assert start["level_visits"] == pytest.approx(play["visits"][1, 1, 0], abs=0) and start["level_visits"] >= 1


def test_solve_meyer_prints_and_returns_the_counts(cache):
    summary = solver.cli_summary({"lives": 3}, cache_dir=cache, progress=False)
    _, _, play = _play({"lives": 3}, cache)
    assert summary["play"]["rounds"] == pytest.approx(play["rounds"], abs=0)
    line = next(line for line in summary["lines"] if line.startswith("equilibrium self-play (exact): "))
    assert f"{play['rounds']:.2f} rounds" in line and f"{play['lies'] / play['claims']:.1%} of the claims" in line
