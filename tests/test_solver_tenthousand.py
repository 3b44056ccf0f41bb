"""The 10 000 one-turn solver (issue 8, item 3): exact values against a recursion over engine
states, the turn model against the engine, its agent against simulation and the heuristic."""

from fractions import Fraction

import numpy as np
import pytest

from agents.solvers import tenthousand as tts
from dice_envs import dice
from dice_envs.games import tenthousand as tt
from evaluate.match import play_match
from evaluate.stats import wilson


# -- an independent method: recursion over the engine's own states, memoised on the whole state --
def engine_turn_value(game, opened, banked, cap):
    """Exact expected banked points of a turn, walking engine states; rolling on past ``cap`` counts 0."""
    base = tts._base_state(game, opened, banked)
    seat, turn = game.current_player(base), base.turn
    memo = {}

    def before_roll(state):
        if state in memo:
            return memo[state]
        total = Fraction(0)
        for roll, p in game.chance_outcomes(state):
            after = game.apply_chance(state, roll)
            if game.is_terminal(after) or game.is_chance(after) or after.turn != turn:
                continue  # a bust: nothing banked
            best = None
            for action in game.legal_actions(after):
                nxt = game.apply_action(after, action)
                if action % 2 == tt.BANK:
                    worth = Fraction(nxt.totals[seat] - banked)
                elif nxt.turn_total > cap:
                    worth = Fraction(0)
                else:
                    worth = before_roll(nxt)
                best = worth if best is None else max(best, worth)
            total += p * best
        memo[state] = total
        return total

    return before_roll(base)


CASES = [
    # (options, opened, banked, cap): small enough for Fractions over engine states
    ({"preset": "dk"}, True, 0, 600),
    ({"preset": "farkle"}, False, 0, 500),
    ({"preset": "no", "target": 1000, "exact_target": True}, True, 600, 20_000),  # no cap needed: 400 to go
    ({"preset": "dk", "over_threshold": True, "confirm_combinations": True}, True, 9500, 600),
    ({"preset": "no", "hot_dice_must_roll": True, "min_bank": 350, "straight": 2500}, True, 0, 550),
]


@pytest.mark.parametrize("options, opened, banked, cap", CASES)
def test_turn_value_equals_the_recursion_over_engine_states(options, opened, banked, cap):
    game = tt.Game(**options)
    model = tts.build_model(game, opened, banked, cap)
    exact = tts.exact_values(model)[(0, 6)]
    assert exact == engine_turn_value(game, opened, banked, model.cap_units * tts.STEP)
    assert tts.values(model)[0, 6] == pytest.approx(float(exact), rel=1e-12, abs=1e-12)


def test_exact_target_table_stops_at_the_target():
    game = tt.Game(preset="no", target=1000, exact_target=True)
    model = tts.build_model(game, True, 600)
    assert model.cap_units * tts.STEP == 400
    # A bank that makes exactly 400 is allowed whatever the thresholds (TT-9d) and adds 400; past
    # it a bank adds nothing.
    assert (model.bank[:, 8] == 400).any()
    assert (model.bank[:, 9:] <= 0).all()


def _predicted(model, k, roll_index, turn_total):
    """The legal actions and bank amounts the model predicts for a roll at a turn total."""
    _, entries = model.rolls[k][roll_index]
    actions, amounts = set(), {}
    for inc, _, c, action in entries:
        actions.add(action)
        u = turn_total // tts.STEP + inc
        if model.bank[c, u] >= 0:
            actions.add(action + 1)
            amounts[action + 1] = int(model.bank[c, u])
    return actions, amounts


@pytest.mark.parametrize(
    "options, opened, banked",
    [
        ({"preset": "dk"}, False, 0),
        ({"preset": "dk"}, True, 2000),
        ({"preset": "no"}, False, 0),
        ({"preset": "farkle"}, True, -500),
        ({"preset": "dk", "confirm_combinations": True, "over_threshold": True}, True, 9300),
        ({"preset": "no", "exact_target": True}, True, 9000),
        ({"preset": "dk", "over_threshold": True}, False, 9500),
    ],
)
def test_turn_model_agrees_with_the_engine_on_random_states(options, opened, banked):
    # The model's structural assumption (a bank depends on the state only through the turn total
    # it makes, the dice it leaves and the pending confirmation) checked on states the model never
    # asked: random rolls, turn totals and pending flags.
    game = tt.Game(**options)
    model = tts.build_model(game, opened, banked, cap=3000)
    base = tts._base_state(game, opened, banked)
    seat = game.current_player(base)
    rng = np.random.default_rng(5)
    checked = 0
    while checked < 300:
        k = int(rng.integers(1, 7))
        outcomes = dice.chance_outcomes(k)
        i = int(rng.integers(len(outcomes)))
        turn_total = int(rng.integers(0, 41)) * tts.STEP
        state = base._replace(to_roll=k, turn_total=turn_total, pending=bool(rng.integers(2)))
        after = game.apply_chance(state, outcomes[i][0])
        if after.turn != base.turn:
            assert model.rolls[k][i][1] == []  # a bust in the model too
            continue
        actions, amounts = _predicted(model, k, i, turn_total)
        assert set(game.legal_actions(after)) == actions
        for action, amount in amounts.items():
            assert game.apply_action(after, action).totals[seat] - banked == amount
        checked += 1


@pytest.mark.parametrize("preset", ["dk", "no", "farkle"])
def test_banked_total_does_not_change_a_turn_without_over_threshold_or_exact_target(preset):
    # The cache key leaves the banked total out under these options: the engine agrees.
    game = tt.Game(preset=preset)
    for opened in (False, True):
        a = tts.build_model(game, opened, 0, cap=2000)
        b = tts.build_model(game, opened, 9500, cap=2000)
        assert np.array_equal(a.bank, b.bank)


def test_default_cap_is_converged():
    # Doubling the cap changes the value by less than 1e-9 points (module docstring).
    for preset, opened in (("dk", True), ("no", False)):
        low = tts.solve(preset=preset, opened=opened).value
        high = tts.solve(preset=preset, opened=opened, cap=2 * tts.DEFAULT_CAP).value
        assert low <= high + 1e-12 and high - low < 1e-9


def test_opening_and_over_threshold_lower_the_value():
    dk_open = tts.solve(preset="dk", opened=True).value
    assert tts.solve(preset="dk", opened=False).value < dk_open  # the 1000 opening bites
    over = tts.solve(preset="dk", opened=True, banked=9500, over_threshold=True).value
    assert over < dk_open  # must bank 500 or more, and 300 no longer counts
    assert tts.solve(preset="dk", opened=True, banked=5000, over_threshold=True).value == dk_open


def test_solution_is_cached(tmp_path):
    first = tts.solve(preset="farkle", opened=True, cap=2000, cache_dir=tmp_path, use_cache=True)
    assert len(list(tmp_path.glob("tenthousand-turn-*.npz"))) == 1
    again = tts.solve(preset="farkle", opened=True, cap=2000, cache_dir=tmp_path, use_cache=True)
    assert np.array_equal(first.table, again.table) and again.value == first.value


@pytest.mark.parametrize(
    "kwargs",
    [{"cap": 0}, {"cap": 75}, {"cap": True}, {"banked": 30}, {"banked": 10_500, "exact_target": True}],
)
def test_bad_arguments_are_value_errors(kwargs):
    with pytest.raises(ValueError):
        tts.solve(preset="no", **kwargs)


def test_points_banked_before_opening_are_refused_from_python_too():
    # TT-7: only a bank opens, so no game reaches a positive banked total unopened; solve() used to
    # answer for that state (the unopened value, 461.13 in dk) where the opened one (571.29) was meant.
    with pytest.raises(ValueError, match=r"banked=9500 with opened=False: .*\(TT-7\); pass opened=True"):
        tts.solve(preset="dk", banked=9500, over_threshold=True)
    # A total below zero (TT-9e bust penalties) can come before the opening bank, and without an
    # opening threshold there is nothing to open.
    assert tts.solve(preset="farkle", banked=-500, cap=2000).banked == -500
    assert tts.solve(preset="dk", opening=0, banked=500, cap=2000).opened is False


# -- the agent ---------------------------------------------------------------------------------
def simulate_turns(game, agent, opened, banked, n, seed):
    """Banked points of ``n`` turns played by ``agent`` through the engine."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        state = tts._base_state(game, opened, banked)
        seat, turn = game.current_player(state), state.turn
        while not game.is_terminal(state) and state.turn == turn:
            if game.is_chance(state):
                state = game.apply_chance(state, dice.roll(rng, game.num_dice_to_roll(state)))
                continue
            mask = np.zeros(game.num_actions, dtype=np.int8)
            mask[game.legal_actions(state)] = 1
            state = game.apply_action(state, agent.act(game.observe(state, seat), mask))
        out.append(state.totals[seat] - banked)
    return np.array(out, dtype=float)


@pytest.mark.parametrize(
    "options, opened, banked",
    [({"preset": "no"}, False, 0), ({"preset": "dk"}, True, 0), ({"preset": "dk", "over_threshold": True}, True, 9500)],
)
def test_agent_banks_the_turn_value_in_simulation(options, opened, banked):
    game = tt.Game(**options)
    agent = tts.OptimalAgent(game, use_cache=False)
    value = agent.solution(opened, banked).value
    points = simulate_turns(game, agent, opened, banked, 2500, seed=3)
    se = points.std(ddof=1) / np.sqrt(len(points))
    assert abs(points.mean() - value) <= 4 * se, (points.mean(), value, se)


def test_agent_policy_is_one_hot_on_a_legal_action():
    game = tt.Game(preset="dk")
    agent = tts.OptimalAgent(game, use_cache=False)
    state = game.apply_chance(game.initial_state(), (1, 2, 2, 2, 5, 6))
    mask = np.zeros(game.num_actions, dtype=np.int8)
    mask[game.legal_actions(state)] = 1
    probs = agent.action_probabilities(game.observe(state, 0), mask)
    assert probs.dtype == np.float64 and probs.sum() == 1.0 and mask[int(np.argmax(probs))] == 1
    assert int(np.argmax(probs)) == agent.act(game.observe(state, 0), mask)
    with pytest.raises(ValueError):
        tts.OptimalAgent(game, cap=70)


@pytest.mark.slow
def test_optimal_agent_beats_the_threshold_heuristic_head_to_head():
    result = play_match("tenthousand", ["optimal", "heuristic"], num_games=4000, seed=2, options={"preset": "dk"})
    rec = result.records[0]
    rate, low, _ = wilson(rec.share_sum, rec.games)
    assert low > 0.5, result.table()


def test_lead_table_is_the_chance_of_ending_the_turn_ahead():
    # The same DP with a 0/1 bank worth is a probability: compare it with the recursion over engine
    # states on a small case where the player must add more than 300 points (TT-8 end phase).
    game = tt.Game(preset="dk")
    agent = tts.OptimalAgent(game, cap=600, use_cache=False)
    table, worth = agent.lead_table(True, 0, need=300)
    assert 0 < table[0, 6] < 1
    # The recursion over engine states whose bank is worth 1 above 300, 1/2 at 300, else 0.
    base = tts._base_state(game, True, 0)
    memo = {}

    def ahead(state):
        if state in memo:
            return memo[state]
        total = Fraction(0)
        for roll, p in game.chance_outcomes(state):
            after = game.apply_chance(state, roll)
            if after.turn != base.turn:
                continue
            best = Fraction(0)
            for action in game.legal_actions(after):
                nxt = game.apply_action(after, action)
                if action % 2 == tt.BANK:
                    gained = nxt.totals[0]
                    w = Fraction(1) if gained > 300 else Fraction(1, 2) if gained == 300 else Fraction(0)
                else:
                    w = Fraction(0) if nxt.turn_total > 600 else ahead(nxt)
                best = max(best, w)
            total += p * best
        memo[state] = total
        return total

    assert table[0, 6] == pytest.approx(float(ahead(base)), abs=1e-12)
    # Bank worth by the turn total it makes: 350 wins, 300 ties, 250 is below min_bank (not allowed).
    assert worth[7] == 1.0 and worth[6] == 0.5 and worth[5] < 0


def test_agent_plays_for_the_lead_in_the_end_phase():
    # End phase, 2 players: the opponent has 10 100, we have 6 500 and a turn total of 3 500 after
    # keeping the 1 of 1 2 3 4 6 6, with five dice left to roll. Banking loses for sure (10 000 <
    # 10 100); the expected-points turn banks (3 500 in hand beats rolling five dice on, which it
    # does only below 3 100), the end-phase agent rolls on.
    game = tt.Game(preset="dk")
    state = tts._base_state(game, True, 6500)._replace(totals=(6500, 10_100), turn_total=3400, turns_left=1)
    state = game.apply_chance(state, (1, 2, 3, 4, 6, 6))
    mask = np.zeros(game.num_actions, dtype=np.int8)
    mask[game.legal_actions(state)] = 1
    keep_one_bank = tt.encode_action((1,), bank=True)
    assert mask[keep_one_bank]
    obs = game.observe(state, 0)
    assert tts.OptimalAgent(game, end_phase=False, use_cache=False).act(obs, mask) == keep_one_bank
    assert tts.OptimalAgent(game, use_cache=False).act(obs, mask) == tt.encode_action((1,), bank=False)
