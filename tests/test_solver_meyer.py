"""The Meyer equilibrium (agents.solvers.meyer): values checked by independent computations.

The independent check of a solved game is an exact best response to the equilibrium agent,
computed by evaluate.exploitability from nothing but the agent's action_probabilities on the
engine's observations: when neither seat can gain, the best response wins exactly the game value
in the starter's seat and loses it in the other (a saddle point), and the exploitability is 0.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from agents import make_agent
from agents.solvers import meyer as solver
from agents.solvers.meyer import EquilibriumAgent, Rules, load_tables, make_game, solve
from dice_envs.games import meyer
from dice_envs.registry import env_module
from evaluate.exploitability import exploitability

VARIANTS = [
    dict(lille_meyer=lille, claim_rule=rule, blind_reroll=blind)
    for lille, rule, blind in itertools.product((True, False), ("at_least", "higher"), (False, True))
]
FAST = [VARIANTS[0], VARIANTS[2]]  # the default rules and "higher"; the others are slow


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """One solver cache for the module, so that each variant is solved once."""
    return tmp_path_factory.mktemp("meyer-cache")


@pytest.fixture(scope="module")
def duel():
    return solve({"lives": 1})


def top_rank(game):
    return game.rank[meyer.MEYER]


def test_rank_facts_come_from_the_engine():
    rules = Rules(make_game({"lille_meyer": False}))
    assert rules.claim_of_rank[-1] == meyer.MEYER and rules.claim_of_rank[0] == meyer.LILLE_MEYER  # ME-2
    assert sum(rules.p_exact) == 1
    assert rules.fresh_true[solver.TOP] == pytest.approx(1 / 18, abs=1e-15)
    assert rules.legal[-1] == tuple(range(meyer.NUM_CLAIMS))
    assert make_game({"claim_rule": "higher"}) and Rules(make_game({"claim_rule": "higher"})).legal[solver.TOP] == ()


def test_top_levels_by_hand(duel):
    """ME-4 at the top: over 21 only 21 may be claimed (true with 1/18) and the answer is a doubt."""
    value = duel["value"][0, 0]
    # the roller must claim 21: true with 1/18; doubting wins 8/9 for the responder against
    # believing's -8/9 (becoming the roller at the same level), so the cup is lifted
    exact = Fraction(1, 18) * 1 + Fraction(17, 18) * -1
    assert exact == Fraction(-8, 9)
    assert value[solver.TOP + 1] == pytest.approx(float(exact), abs=1e-12)
    assert duel["doubt"][0, 0, solver.TOP + 1, solver.TOP, 0] == pytest.approx(1.0, abs=1e-9)
    # "higher": over 31 the only claim is 21, which cannot be believed: the same -8/9
    higher = solve({"lives": 1, "claim_rule": "higher"})
    assert np.isnan(higher["value"][0, 0, solver.TOP + 1])
    assert higher["value"][0, 0, solver.TOP] == pytest.approx(-8 / 9, abs=1e-12)
    assert higher["loop_bound"] == 0


def test_policy_tables_are_distributions(duel):
    claim, reroll = duel["claim"][0, 0], duel["reroll"][0, 0]
    rules = Rules(make_game({"lives": 1}))
    for b in rules.levels():
        total = claim[b + 1].sum(axis=1) + reroll[b + 1]
        assert np.allclose(total, 1.0, atol=1e-9)
        illegal = [y for y in range(meyer.NUM_CLAIMS) if y not in rules.legal[b]]
        assert np.all(claim[b + 1][:, illegal] == 0)
    assert np.all((duel["doubt"] >= 0) & (duel["doubt"] <= 1))


def test_fixed_point_residual_and_rounds_end(duel):
    assert float(duel["residual"]) <= 1e-11
    assert 0 < float(duel["loop_bound"]) < 1


@pytest.mark.parametrize(
    "options", [pytest.param(v, marks=() if v in FAST else pytest.mark.slow) for v in VARIANTS], ids=str
)
def test_duel_is_a_saddle_point(options, cache):
    """Each variant of the duel (ME-2, ME-4, ME-5): the exact best response to the equilibrium
    wins the value as starter and loses it as second player; exploitability 0."""
    game = make_game({"lives": 1, **options})
    tables = load_tables(solver.solution_options(game), cache_dir=cache)
    value = float(tables["game_value"])
    assert -1 < value < 1
    agent = EquilibriumAgent(game, seed=0, cache_dir=str(cache))
    result = exploitability(game, agent)
    assert result.br_first == pytest.approx(value, abs=1e-7)
    assert result.br_second == pytest.approx(-value, abs=1e-7)
    assert abs(result.value) <= 1e-6


def test_one_life_is_the_duel_whatever_a_meyer_costs(duel):
    costly = solve({"lives": 1, "meyer_costs": 2})
    assert float(costly["game_value"]) == pytest.approx(float(duel["game_value"]), abs=1e-12)


def test_two_lives_saddle_point(cache):
    """The game with lives (ME-1, ME-6, ME-7): continuation values as payoffs, solved backwards."""
    game = make_game({"lives": 2, "meyer_costs": 2})
    tables = load_tables(solver.solution_options(game), cache_dir=cache)
    agent = EquilibriumAgent(game, seed=0, cache_dir=str(cache))
    result = exploitability(game, agent)
    value = float(tables["game_value"])
    assert result.br_first == pytest.approx(value, abs=1e-7)
    assert result.br_second == pytest.approx(-value, abs=1e-7)
    # the values by lives are the table's round-start values: one life each is the duel
    assert tables["value"][0, 0, 0] == pytest.approx(float(solve({"lives": 1})["game_value"]), abs=1e-9)
    # more lives than the opponent is better for a round's starter
    assert tables["value"][1, 0, 0] > tables["value"][0, 0, 0] > tables["value"][0, 1, 0]


@pytest.mark.slow
def test_six_lives_saddle_point(tmp_path):
    game = make_game({"lives": 6})
    tables = load_tables(solver.solution_options(game), cache_dir=tmp_path, progress=False)
    agent = EquilibriumAgent(game, seed=0, cache_dir=str(tmp_path))
    result = exploitability(game, agent)
    assert result.value == pytest.approx(0, abs=1e-6)
    assert result.br_first == pytest.approx(float(tables["game_value"]), abs=1e-7)


def self_play(options, games, seed, tmp_path):
    env = env_module("meyer").env(**options)
    env.reset(seed=seed)
    game = env.unwrapped.game
    agents = [EquilibriumAgent(game, seed=seed + s, cache_dir=str(tmp_path)) for s in range(2)]
    returns = []
    for g in range(games):
        env.reset(seed=seed * 100_000 + g)
        for name in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            seat = int(name.split("_")[1])
            env.step(agents[seat].act(obs["observation"], obs["action_mask"]))
        returns.append(env.unwrapped.game.returns(env.unwrapped.game_state)[0])
    return np.array(returns, dtype=float)


@pytest.mark.parametrize("lives, games", [(1, 1500), (2, 500)])
def test_self_play_matches_the_value(lives, games, cache):
    """The agent plays the equilibrium from its own observations: the first starter's (seat 0's)
    mean return in self-play is within 4 standard errors of the game value."""
    options = {"lives": lives, "meyer_costs": 2}
    returns = self_play(options, games, seed=7, tmp_path=cache)
    value = float(load_tables(options, cache_dir=cache)["game_value"])
    se = returns.std(ddof=1) / np.sqrt(len(returns))
    assert abs(returns.mean() - value) <= 4 * se


def test_agent_probabilities_are_a_policy(cache):
    game = meyer.Game(lives=1, blind_reroll=True)
    agent = make_agent(game, "equilibrium", seed=3, cache_dir=str(cache))
    assert isinstance(agent, EquilibriumAgent)
    rng = np.random.default_rng(0)
    seen = 0
    for _ in range(150):
        state = game.initial_state()
        while not game.is_terminal(state):
            if state.to_roll:
                state = game.apply_chance(state, tuple(rng.integers(1, 7, size=2)))
                continue
            mask = np.zeros(game.num_actions, dtype=np.int8)
            mask[game.legal_actions(state)] = 1
            p = agent.action_probabilities(game.observe(state, state.actor), mask)
            assert p.dtype == np.float64 and p.shape == (game.num_actions,)
            assert p.sum() == pytest.approx(1.0, abs=1e-12)
            assert np.all(p[mask == 0] == 0) and np.all(p >= 0)
            seen += 1
            state = game.apply_action(state, int(rng.choice(np.flatnonzero(mask))))
    assert seen > 100


def test_agent_and_solver_refuse_what_they_do_not_cover(tmp_path):
    with pytest.raises(ValueError, match="num_players"):
        make_game({"num_players": 3})
    with pytest.raises(ValueError, match="history"):
        EquilibriumAgent(meyer.Game(lives=1, history=1), cache_dir=str(tmp_path))
    with pytest.raises(ValueError, match="two-player"):
        EquilibriumAgent(meyer.Game(num_players=3, lives=1), cache_dir=str(tmp_path))
    with pytest.raises(ValueError, match="lives"):
        solve({"lives": 0})


def test_tables_are_cached(tmp_path):
    first = load_tables({"lives": 1, "claim_rule": "higher"}, cache_dir=tmp_path)
    files = list(tmp_path.glob("meyer_equilibrium-*.npz"))
    assert len(files) == 1
    solver._MEMO.clear()
    again = load_tables({"lives": 1, "claim_rule": "higher", "history": 3}, cache_dir=tmp_path)  # same solution
    assert np.array_equal(first["claim"], again["claim"]) and len(list(tmp_path.glob("*.npz"))) == 1


def test_cli_summary(cache):
    out = solver.cli_summary({"lives": 1}, cache_dir=cache, progress=False)
    assert out["value"] == pytest.approx(float(solve({"lives": 1})["game_value"]), abs=1e-12)
    assert out["lines"] and "game value" in out["lines"][1]
    assert out["seconds"] >= 0 and out["table_mib"] > 0 and out["max_rss_mib"] > 0


def test_claims_off_the_equilibrium_path_are_marked(cache):
    # Their doubt probabilities are the linear programme's pick, not predictions (a review asked).
    game = make_game({"lives": 1})
    rules = Rules(game)
    b = game.rank[meyer.claim_index("54")]
    made = solver.load_tables({"lives": 1}, cache_dir=cache)["claim"][0, 0, b + 1].T @ rules.p
    expected = {meyer.CLAIM_NAMES[game.claim_of_rank[y]] for y in rules.legal[b] if made[y] < solver.OFF_PATH}
    *_, doubts, note = solver.describe_level({"lives": 1}, beat="54", cache_dir=cache)
    entries = [entry.split()[0] for entry in doubts.split(": ", 1)[1].split(", ")]
    assert {e.rstrip("*") for e in entries if e.endswith("*")} == expected and expected
    assert note == "  " + solver.OFF_PATH_NOTE
    summary = solver.cli_summary({"lives": 1}, cache_dir=cache, progress=False)["lines"]
    first = next(line for line in summary if line.startswith("P(doubt) of a round's first claim"))
    start = solver.load_tables({"lives": 1}, cache_dir=cache)["claim"][0, 0, 0].T @ rules.p
    for entry in first.split(": ", 1)[1].split(", "):
        name = entry.split()[0]
        y = game.rank[meyer.claim_index(name.rstrip("*"))]
        assert name.endswith("*") == (start[y] < solver.OFF_PATH), entry


def test_the_claims_marked_off_path_are_never_made_in_play(cache):
    # Independently of the tables' arithmetic: the equilibrium agent, playing the engine's rolls,
    # never opens a round with a claim the summary marks, and makes every clearly likely one.
    game = make_game({"lives": 2})
    summary = solver.cli_summary({"lives": 2}, cache_dir=cache, progress=False)["lines"]
    listed = next(line for line in summary if line.startswith("P(doubt) of a round's first claim")).split(": ", 1)[1]
    marked = {entry.split()[0].rstrip("*") for entry in listed.split(", ") if entry.split()[0].endswith("*")}
    agent = EquilibriumAgent(game, seed=3, cache_dir=str(cache))
    rng = np.random.default_rng(3)
    outcomes = game.chance_outcomes(game.initial_state())
    weights = np.array([float(p) for _, p in outcomes])
    opened: dict[str, int] = {}
    for _ in range(4000):
        dice = outcomes[rng.choice(len(outcomes), p=weights)][0]
        state = game.apply_chance(game.initial_state(), dice)
        mask = np.zeros(game.num_actions, np.int8)
        mask[game.legal_actions(state)] = 1
        action = agent.act(game.observe(state, game.current_player(state)), mask)
        words = game.action_to_string(state, action).split()
        if words[0] == "claim":
            opened[words[1]] = opened.get(words[1], 0) + 1
    assert marked and not marked & set(opened), (marked, opened)  # at 2 lives, 21, 31 and 55 are marked
    start = solver.load_tables({"lives": 2}, cache_dir=cache)["claim"][1, 1, 0].T @ Rules(game).p
    likely = {meyer.CLAIM_NAMES[game.claim_of_rank[y]] for y in range(meyer.NUM_CLAIMS) if start[y] > 0.01}
    assert likely <= set(opened)


def test_describe_level(cache):
    lines = solver.describe_level({"lives": 1}, beat="54", cache_dir=cache)
    # over 54 the responder doubts every claim, so the roller's value is P(dice >= 54) - P(below)
    assert lines[0].endswith(f"{(22 - 14) / 36:+.6f}")
    assert len(lines) == 1 + meyer.NUM_CLAIMS + 2  # a line per dice, the doubts, the off-path note
    with pytest.raises(ValueError, match="lives"):
        solver.describe_level({"lives": 1}, lives=(2, 1), cache_dir=cache)
    with pytest.raises(ValueError, match="nothing can be claimed"):
        solver.describe_level({"lives": 1, "claim_rule": "higher"}, beat="21", cache_dir=cache)


@pytest.mark.parametrize("b", [-1, 5, 10])
@pytest.mark.parametrize("eps", [1e-5, 1e-7, 1e-9])
def test_a_level_all_but_decided_is_solved_as_exactly_as_any(duel, b, eps):
    """Payoffs squeezed into [-1, -1 + eps] (with many lives against one they lie within 5e-7 of -1):
    the equilibrium is the same, so the value is the squeezed value of the unsqueezed level. Solved
    as given, HiGHS's absolute tolerances made the value wrong by up to 45% of the spread (and it
    failed outright from 19 lives up)."""
    rules = Rules(make_game({"lives": 1}))
    win, lose = np.ones(solver.NUM_RANKS), -np.ones(solver.NUM_RANKS)
    believe = np.nan_to_num(-duel["value"][0, 0, 1:], nan=0.0)
    plain = solver.solve_level(rules, b, win, lose, believe)

    def squeeze(p):
        return -1 + eps * (p + 1) / 2

    squeezed = solver.solve_level(rules, b, squeeze(win), squeeze(lose), squeeze(believe))
    assert abs(squeezed.value - squeeze(plain.value)) <= 1e-9 * eps
    assert np.allclose(squeezed.claim.sum(axis=1) + squeezed.reroll, 1.0)


@pytest.mark.slow
def test_twenty_lives_solve_and_the_equilibrium_is_unexploitable(tmp_path):
    """19 and 20 lives ended in a HiGHS error (levels all but decided); now 20 lives solves with the
    residual of any other game, and the exact best response gains nothing."""
    tables = load_tables({"lives": 20}, cache_dir=tmp_path)
    assert float(tables["residual"]) < 1e-10
    assert tables["value"][19, 0, 0] == pytest.approx(1.0, abs=1e-6)
    game = make_game({"lives": 20})
    agent = EquilibriumAgent(game, seed=0, cache_dir=str(tmp_path))
    assert exploitability(game, agent).value == pytest.approx(0.0, abs=1e-8)


def test_indifference_is_judged_relative_to_a_scaled_levels_spread():
    """At a level solved on scaled payoffs a gap of 5e-9 can be 0.2% of the spread (20 lives, 1 v 18):
    not a tie. Levels of ordinary spread keep the absolute tolerance (their flags are unchanged)."""
    assert solver._tolerance(1.5) == solver._tolerance(solver.SMALL_SPAN) == solver.INDIFFERENT
    assert solver._tolerance(2.4e-6) == pytest.approx(solver.INDIFFERENT * 2.4e-6) and solver._tolerance(2.4e-6) < 5e-9


def test_a_scaled_level_that_highs_cannot_solve_names_the_level(monkeypatch, duel):
    calls = []

    def failing(rules, b, legal, win, lose, believe, first=None):
        calls.append(first)
        raise solver._HighsFailed("model status unknown")

    monkeypatch.setattr(solver, "_solve_level", failing)
    rules = Rules(make_game({"lives": 1}))
    win, lose = np.ones(solver.NUM_RANKS), -np.ones(solver.NUM_RANKS)
    squeeze = lambda p: -1 + 1e-7 * (p + 1) / 2  # noqa: E731  (a level all but decided: the scaled path)
    believe = np.nan_to_num(-duel["value"][0, 0, 1:], nan=0.0)
    with pytest.raises(RuntimeError, match=r"^HiGHS failed on level 5 \(payoffs scaled to \[0, 1\]\): model status unknown$"):
        solver.solve_level(rules, 5, squeeze(win), squeeze(lose), squeeze(believe))
    assert calls == [None]  # solved on scaled payoffs at once, not retried
    calls.clear()
    with pytest.raises(RuntimeError, match=r"^HiGHS failed on level 5 \(payoffs scaled to \[0, 1\]\)"):
        solver.solve_level(rules, 5, win, lose, believe)  # an ordinary level: as given, then scaled
    assert len(calls) == 2 and calls[0] is None and str(calls[1]) == "model status unknown"
