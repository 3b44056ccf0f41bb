"""The global state: PettingZoo's optional ``env.state()`` and ``env.state_space``, built by each engine's
``Game.global_state`` (absolute seats, nothing hidden), for centralised critics such as MAPPO's.

What is checked, in every game under several option sets: the state lies in its space at every step of
``env()``, ``raw_env()`` and ``parallel_env()`` (and after the game); every seat's observation is a function
of it (rebuilt from it exactly, and never two observations for one state and seat); it is a Markov state
(equal vectors, equal legal actions and equal next vectors; the bookkeeping left out of it changes nothing);
the hidden cup of Meyer is in it; and a few scripted positions give the values the rules say.
"""

from __future__ import annotations

import copy
import warnings
from collections import defaultdict

import numpy as np
import pettingzoo
import pytest
from gymnasium import spaces
from pettingzoo.test.state_test import state_test

import dice_envs  # noqa: F401  (registers the envs)
from dice_envs import meyer_v0, syvere_v0, tenthousand_v1
from dice_envs.games import meyer, syvere
from dice_envs.games import tenthousand as tt

CASES = [
    (syvere_v0, {"num_players": 2}),
    (syvere_v0, {"num_players": 3, "elimination": 30}),
    (syvere_v0, {"num_players": 4, "elimination": 20, "next_starter": "left", "first_starter": 2}),
    (syvere_v0, {"num_players": 3, "max_rolls": 2, "elimination": 12}),
    (tenthousand_v1, {"num_players": 2, "preset": "dk", "target": 2000}),
    (tenthousand_v1, {"num_players": 3, "preset": "no", "target": 1500}),
    (tenthousand_v1, {"num_players": 4, "preset": "farkle", "target": 1500}),
    (
        tenthousand_v1,
        {
            "num_players": 2,
            "preset": "dk",
            "target": 1500,
            "exact_target": True,
            "over_threshold": True,
            "confirm_combinations": True,
            "bust_penalty": 200,
            "bust_penalty_after": 1,
        },
    ),
    (
        tenthousand_v1,
        {"num_players": 3, "preset": "farkle", "target": 1000, "end": "immediate", "bust_penalty_after": 2},
    ),
    (meyer_v0, {"num_players": 2}),
    (meyer_v0, {"num_players": 3, "claim_rule": "higher", "lives": 3}),
    (meyer_v0, {"num_players": 4, "blind_reroll": True, "lives": 2, "lille_meyer": False}),
    (
        meyer_v0,
        {
            "num_players": 3,
            "blind_reroll": True,
            "claim_rule": "higher",
            "end": "first_out",
            "history": 1,
            "meyer_costs": 2,
        },
    ),
    (meyer_v0, {"num_players": 2, "history": 0, "lives": 3, "blind_reroll": True}),
]


def case_id(case) -> str:
    if isinstance(case, dict):
        return ",".join(f"{k}={v}" for k, v in case.items())
    return case.__name__.rsplit(".", 1)[1]


def game_of(module, options):
    return module.raw_env(**options).game


def random_states(game, seed: int, games: int, max_steps: int = 20_000):
    """Every state of ``games`` random games played on the engine (chance states included)."""
    rng = np.random.default_rng(seed)
    for _ in range(games):
        state = game.initial_state()
        for _ in range(max_steps):
            yield state
            if game.is_terminal(state):
                break
            if game.is_chance(state):
                k = game.num_dice_to_roll(state)
                state = game.apply_chance(state, tuple(int(f) for f in rng.integers(1, 7, size=k)))
            else:
                state = game.apply_action(state, int(rng.choice(game.legal_actions(state))))


def clipped(game, state) -> bool:
    """10 000 clips totals and the turn total to the observation's range: beyond it the vector is not
    exact (the docstring says so), so such states are left out of the Markov checks."""
    if not isinstance(game, tt.Game):
        return False
    low, high = game.total_low, game.total_high
    return state.turn_total > high or any(not low <= t <= high for t in state.totals)


def part(game, vector, name):
    return vector[game.state_slices[name]]


# -- the state in its space, through every way of making an env -------------------------------------------
def check_state(env) -> np.ndarray:
    raw = env.unwrapped
    s = env.state()
    assert type(s) is np.ndarray and s.dtype == np.float32 and s.shape == env.state_space.shape
    assert env.state_space.contains(s)
    np.testing.assert_array_equal(s, raw.game.global_state(raw.game_state))
    assert s is not env.state()  # a new array each time: the caller may write to it
    return s


def check_final(env) -> None:
    raw = env.unwrapped
    game, state = raw.game, raw.game_state
    assert game.is_terminal(state)
    s = check_state(env)
    assert part(game, s, "game_over").tolist() == [1.0]
    winners = part(game, s, "winners")
    assert np.flatnonzero(winners).tolist() == list(state.winners)
    assert part(game, s, "to_act").sum() == 0


@pytest.mark.parametrize("module, options", CASES, ids=case_id)
def test_the_state_is_in_state_space_at_every_step_of_env_and_raw_env(module, options):
    for make in (module.env, module.raw_env):
        env = make(**options)
        game = env.unwrapped.game
        space = env.state_space  # before reset: a critic is built before the first game
        assert isinstance(space, spaces.Box) and space.dtype == np.float32
        assert space.shape == game.state_low.shape == game.state_high.shape
        assert space is env.unwrapped.state_space
        assert np.all(space.low < space.high)
        for seed in range(3):
            env.reset(seed=seed)
            rng = np.random.default_rng(seed)
            check_state(env)
            for agent in env.agent_iter(50_000):
                obs, _, term, trunc, _ = env.last()
                env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
                check_state(env)
            assert not env.agents  # every agent stepped out: the state is still the final one
            check_final(env)


@pytest.mark.parametrize("module, options", CASES, ids=case_id)
def test_the_parallel_env_forwards_the_state_and_its_space(module, options):
    env = module.parallel_env(**options)
    assert env.state_space is env.unwrapped.state_space
    for seed in range(2):
        observations, _ = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        check_state(env)
        for _ in range(50_000):
            if not env.agents:
                break
            actor = next(a for a in env.agents if observations[a]["action_mask"].any())
            actions = dict.fromkeys(env.agents, 0)
            actions[actor] = int(rng.choice(np.flatnonzero(observations[actor]["action_mask"])))
            observations, *_ = env.step(actions)
            check_state(env)
        check_final(env)


@pytest.mark.parametrize("env_id", ["dice/syvere-v0", "dice/tenthousand-v1", "dice/meyer-v0"])
def test_the_registry_envs_forward_the_state_and_refuse_it_before_reset(env_id):
    aec = pettingzoo.make("aec", env_id, num_players=3)
    par = pettingzoo.make("parallel", env_id, num_players=3)
    raw = aec.unwrapped
    assert aec.state_space is raw.state_space and par.state_space is par.unwrapped.state_space
    assert aec.state_space == par.state_space
    with pytest.raises(ValueError, match="state\\(\\) before reset\\(\\): call reset\\(\\) first"):  # as raw_env says
        aec.state()
    with pytest.raises(ValueError, match="before reset"):
        raw.state()
    aec.reset(seed=4)
    par.reset(seed=4)
    np.testing.assert_array_equal(aec.state(), par.state())  # the same seed, the same first state
    clone = copy.deepcopy(aec)
    np.testing.assert_array_equal(clone.state(), aec.state())


@pytest.mark.parametrize("module, options", CASES, ids=case_id)
def test_pettingzoos_state_test_passes_without_warnings(module, options):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        state_test(module.env(**options), module.parallel_env(**options), num_cycles=100)
    assert [str(w.message) for w in caught] == []


# -- every observation is a function of the state -----------------------------------------------------------
SEAT_PARTS = {
    "syvere": ("totals", "still_in", "to_act"),
    "tenthousand": ("totals", "opened", "busts", "to_act"),
    "meyer": ("lives", "in_game", "to_act", "beat_by", "doubt_claimer", "doubt_doubter", "doubt_loser"),
}


def observation_from_state(game, vector: np.ndarray, seat: int) -> np.ndarray:
    """``seat``'s observation computed from the global state alone, by the layouts of the env docstrings:
    the state begins with seat 0's observation layout, so rotate the seat entries; in Meyer show the cup
    only to the seat that saw it."""
    size = len(game.observation_low)
    obs = vector[:size].copy()
    names = list(SEAT_PARTS[game.name])
    if isinstance(game, meyer.Game):
        names += [f"history_{h}_by" for h in range(game.history)]
    for name in names:
        where = game.state_slices[name]
        obs[where] = np.roll(vector[where], -seat)
    if isinstance(game, meyer.Game):
        if part(game, vector, "cup_seen_by")[seat] != 1:
            for name in ("cup_present", "cup_dice", "cup_rank", "cup_claim"):
                obs[game.state_slices[name]] = 0
        # the state's cup_* stand where the observation's own_* stand
        assert game.state_slices["cup_claim"] == game.obs_slices["own_claim"]
    return obs


@pytest.mark.parametrize("module, options", CASES, ids=case_id)
def test_every_observation_is_a_function_of_the_state(module, options):
    game = game_of(module, options)
    n = game.num_players
    seen: dict[tuple[bytes, int], bytes] = {}
    repeats = 0
    for state in random_states(game, seed=7, games=40):
        vector = game.global_state(state)
        key = vector.tobytes()
        for seat in range(n):
            obs = game.observe(state, seat)
            np.testing.assert_array_equal(obs, observation_from_state(game, vector, seat))
            shown = obs.tobytes()
            first = seen.setdefault((key, seat), shown)
            if first is not shown:  # this (state, seat) was met before
                assert first == shown, f"two observations of seat {seat} for one global state"
                repeats += 1
    assert repeats > 50  # the check above was really exercised


def test_the_state_starts_with_seat_0s_observation_where_nothing_is_hidden():
    for module, options in CASES:
        game = game_of(module, options)
        size = len(game.observation_low)
        if not isinstance(game, meyer.Game):
            for state in random_states(game, seed=1, games=1):
                np.testing.assert_array_equal(game.global_state(state)[:size], game.observe(state, 0))
        np.testing.assert_array_equal(game.state_low[:size], game.observation_low)
        hi = game.state_high[:size] >= game.observation_high
        assert hi.all()


# -- a Markov state ------------------------------------------------------------------------------------------
def assert_same_future(game, a, b, rng) -> None:
    """Two states that the global state cannot tell apart must agree on everything the rules decide next."""
    assert game.is_terminal(a) == game.is_terminal(b)
    if game.is_terminal(a):
        assert game.returns(a) == game.returns(b)
        return
    assert game.current_player(a) == game.current_player(b)
    assert game.num_dice_to_roll(a) == game.num_dice_to_roll(b)
    assert game.legal_actions(a) == game.legal_actions(b)
    for action in game.legal_actions(a):
        np.testing.assert_array_equal(
            game.global_state(game.apply_action(a, action)), game.global_state(game.apply_action(b, action))
        )
    k = game.num_dice_to_roll(a)
    if k:
        for _ in range(4):
            dice = tuple(int(f) for f in rng.integers(1, 7, size=k))
            np.testing.assert_array_equal(
                game.global_state(game.apply_chance(a, dice)), game.global_state(game.apply_chance(b, dice))
            )


#: The fields of each engine's state that the global state leaves out, with another value for each.
BOOKKEEPING = {
    "syvere": lambda s: s._replace(round=s.round + 5, last_turn=None if s.last_turn else (0, 7)),
    "tenthousand": lambda s: s._replace(turn=s.turn + 9),
    "meyer": lambda s: s._replace(round=s.round + 3),
}


@pytest.mark.parametrize("module, options", CASES, ids=case_id)
def test_equal_state_vectors_have_the_same_legal_actions_and_the_same_next_vectors(module, options):
    game = game_of(module, options)
    rng = np.random.default_rng(0)
    groups: dict[bytes, dict] = defaultdict(dict)
    for i, state in enumerate(random_states(game, seed=3, games=15)):
        if clipped(game, state):
            continue
        # Random games meet distinct states with one vector (a claim over other dice, had the vector no
        # cup; totals reached in other turns); the bookkeeping left out of the vector, changed, makes more.
        for s in (state, BOOKKEEPING[game.name](state)) if i % 5 == 0 else (state,):
            groups[game.global_state(s).tobytes()][s] = None
    shared = [list(states) for states in groups.values() if len(states) > 1]
    assert len(shared) >= 20
    for states in shared[:300]:
        for other in states[1:]:
            assert_same_future(game, states[0], other, rng)


@pytest.mark.parametrize("module, options", CASES, ids=case_id)
def test_what_the_state_leaves_out_changes_nothing_the_rules_decide(module, options):
    game = game_of(module, options)
    rng = np.random.default_rng(1)
    for i, state in enumerate(random_states(game, seed=5, games=2)):
        if i % 3:
            continue
        other = BOOKKEEPING[game.name](state)
        assert other != state
        np.testing.assert_array_equal(game.global_state(other), game.global_state(state))
        assert_same_future(game, state, other, rng)


# -- scripted positions: values the rules give --------------------------------------------------------------
def test_syvere_values_of_the_worked_example_SY7():
    g = syvere.Game(num_players=2)
    s = g.apply_chance(g.initial_state(), (2, 2, 4, 5, 6, 6))  # 2+5 set aside: 2, 4, 6, 6 remain
    v = g.global_state(s)
    assert part(g, v, "to_act").tolist() == [1, 0]
    assert part(g, v, "rolls").tolist() == [1] and part(g, v, "roll_limit").tolist() == [3]
    assert part(g, v, "remaining").tolist() == [0, 1, 0, 1, 0, 2]
    assert part(g, v, "remaining_sum").tolist() == [18]
    assert part(g, v, "to_roll").tolist() == [0]
    assert part(g, v, "in_round").tolist() == [1, 1] and part(g, v, "starter").tolist() == [1, 0]
    s = g.apply_action(s, syvere.ROLL)
    assert part(g, g.global_state(s), "to_roll").tolist() == [4]  # the four remaining dice, to roll now
    s = g.apply_action(g.apply_chance(s, (1, 1, 2, 6)), syvere.STOP)  # 1+6 set aside: 1 + 2 = 3 points
    v = g.global_state(s)
    assert part(g, v, "totals").tolist() == [3, 0]
    assert part(g, v, "to_act").tolist() == [0, 1] and part(g, v, "to_roll").tolist() == [6]
    assert part(g, v, "roll_limit").tolist() == [2]  # SY-6: the starter rolled twice
    assert part(g, v, "game_over").tolist() == [0] and part(g, v, "winners").tolist() == [0, 0]


def test_syvere_totals_before_the_round_decide_when_everyone_goes_out_SY9():
    g = syvere.Game(num_players=2, elimination=10)
    s = g.apply_chance(g.initial_state(), (1, 1, 1, 3, 6, 6))  # two 1+6 pairs: 1 and 3 remain
    s = g.apply_action(s, syvere.STOP)  # player_0: 4; the starter rolled once
    s = g.apply_chance(s, (1, 1, 2, 3, 4, 5))  # 2+5, 3+4: 1, 1 remain; the limit of 1 ends the turn
    v = g.global_state(s)  # round 2, started by the player to the right of player_0 (SY-10)
    assert part(g, v, "totals").tolist() == [4, 2] and part(g, v, "totals_before_round").tolist() == [4, 2]
    assert part(g, v, "starter").tolist() == [0, 1] and part(g, v, "to_act").tolist() == [0, 1]
    s = g.apply_action(g.apply_chance(s, (2, 2, 2, 2, 2, 2)), syvere.STOP)  # player_1: 14, out
    v = g.global_state(s)
    assert part(g, v, "totals").tolist() == [4, 14] and part(g, v, "still_in").tolist() == [1, 0]
    assert part(g, v, "totals_before_round").tolist() == [4, 2]
    assert part(g, v, "still_to_play").tolist() == [0]
    # The observations do not hold the totals before the round, which decide this game: swapped, every
    # seat sees the same, but the global state differs and so does the winner after the same roll.
    swapped = s._replace(totals_before_round=(2, 4))
    for seat in (0, 1):
        np.testing.assert_array_equal(g.observe(s, seat), g.observe(swapped, seat))
    assert not np.array_equal(g.global_state(s), g.global_state(swapped))
    end = g.apply_chance(s, (1, 1, 2, 2, 2, 2))  # player_0: 4 + 10 = 14, out: both at 14
    assert end.winners == (1,) and g.apply_chance(swapped, (1, 1, 2, 2, 2, 2)).winners == (0,)
    v = g.global_state(end)
    assert part(g, v, "game_over").tolist() == [1] and part(g, v, "winners").tolist() == [0, 1]
    assert part(g, v, "in_round").tolist() == [1, 1] and part(g, v, "to_act").tolist() == [0, 0]


def test_tenthousand_turn_total_dice_and_end_phase_TT6_TT8():
    g = tt.Game(num_players=3, preset="dk")
    s = g.apply_chance(g.initial_state(), (1, 2, 2, 2, 5, 6))
    v = g.global_state(s)
    assert part(g, v, "roll").tolist() == [1, 3, 0, 0, 1, 1] and part(g, v, "dice_in_play").tolist() == [6]
    assert part(g, v, "to_roll").tolist() == [0] and part(g, v, "to_act").tolist() == [1, 0, 0]
    s = g.apply_action(s, g.string_to_action(s, "keep 1222 roll"))
    v = g.global_state(s)
    assert part(g, v, "turn_total").tolist() == [300] and part(g, v, "to_roll").tolist() == [2]
    assert part(g, v, "roll").tolist() == [0] * 6 and part(g, v, "dice_in_play").tolist() == [2]
    # player_1 at 9 800 banks 1 000: the round is played out (TT-8 finish_round): player_2 has one last turn.
    s = tt.State(
        totals=(500, 9800, 0), opened=(True, True, False), busts=(0, 0, 2), player=1, turn_total=0,
        roll=(1, 1, 1, 2, 3, 4), to_roll=0, pending=False, turns_left=None, winners=None, turn=8,
    )  # fmt: skip
    s = g.apply_action(s, g.string_to_action(s, "keep 111 bank"))
    v = g.global_state(s)
    assert part(g, v, "totals").tolist() == [500, 10800, 0] and part(g, v, "opened").tolist() == [1, 1, 0]
    assert part(g, v, "busts").tolist() == [0, 0, 2] and part(g, v, "to_act").tolist() == [0, 0, 1]
    assert part(g, v, "end_phase").tolist() == [1] and part(g, v, "turns_left").tolist() == [1]
    assert part(g, v, "turn_total").tolist() == [0] and part(g, v, "to_roll").tolist() == [6]
    end = g.apply_chance(s, (2, 2, 3, 3, 4, 6))  # player_2 busts: the game is over
    v = g.global_state(end)
    assert part(g, v, "game_over").tolist() == [1] and part(g, v, "winners").tolist() == [0, 1, 0]
    assert part(g, v, "end_phase").tolist() == [0]
    assert part(g, v, "busts").tolist() == [0, 0, 0]  # player_2's third bust in a row: the count starts again


def test_meyer_the_true_cup_and_who_saw_it_are_in_the_state():
    g = meyer.Game(num_players=3, blind_reroll=True)
    s = g.apply_chance(g.initial_state(), (4, 5))  # player_0 rolls 54 and sees it
    v = g.global_state(s)
    c54 = meyer.claim_of((5, 4))
    assert part(g, v, "cup_present").tolist() == [1] and part(g, v, "cup_dice").tolist() == [5, 4]
    assert part(g, v, "cup_rank").tolist() == [g.rank[c54] + 1]
    assert np.flatnonzero(part(g, v, "cup_claim")).tolist() == [c54]
    assert part(g, v, "cup_seen_by").tolist() == [1, 0, 0] and part(g, v, "to_act").tolist() == [1, 0, 0]
    assert part(g, v, "to_roll").tolist() == [0] and part(g, v, "claim_phase").tolist() == [1]
    s = g.apply_action(s, g.string_to_action(s, "claim 66"))  # a lie
    v = g.global_state(s)
    assert part(g, v, "cup_dice").tolist() == [5, 4] and part(g, v, "to_act").tolist() == [0, 1, 0]
    assert part(g, v, "respond").tolist() == [1] and part(g, v, "beat_by").tolist() == [1, 0, 0]
    assert np.flatnonzero(part(g, v, "beat_claim")).tolist() == [meyer.claim_index("66")]
    # player_1 has not seen the cup: its observation does not change with the dice; the state does.
    other = s._replace(cup=(6, 6))
    np.testing.assert_array_equal(g.observe(s, 1), g.observe(other, 1))
    np.testing.assert_array_equal(g.observe(s, 2), g.observe(other, 2))
    assert not np.array_equal(g.global_state(s), g.global_state(other))
    assert part(g, g.global_state(other), "cup_dice").tolist() == [6, 6]
    # ... and the state decides the doubt: the lie costs player_0 a life, the true 66 would cost player_1.
    assert g.apply_action(s, meyer.DOUBT).lives == (5, 6, 6)
    assert g.apply_action(other, meyer.DOUBT).lives == (6, 5, 6)
    s = g.apply_action(s, meyer.BELIEVE)  # player_1 rolls anew: the old dice are gone
    v = g.global_state(s)
    assert part(g, v, "to_roll").tolist() == [2] and part(g, v, "cup_present").tolist() == [0]
    s = g.apply_chance(s, (1, 1))
    assert part(g, g.global_state(s), "cup_seen_by").tolist() == [0, 1, 0]
    s = g.apply_chance(g.apply_action(s, meyer.REROLL), (2, 1))  # the blind reroll: nobody sees the 21
    v = g.global_state(s)
    assert part(g, v, "cup_dice").tolist() == [2, 1] and part(g, v, "cup_seen_by").tolist() == [0, 0, 0]
    assert part(g, v, "actor_rerolled").tolist() == [1]
    assert g.observe(s, 1)[g.obs_slices["own_known"]].tolist() == [0]  # the roller did not see it either


def test_meyer_the_final_state_names_the_winner():
    g = meyer.Game(num_players=2, lives=1)
    s = g.apply_chance(g.initial_state(), (3, 2))
    s = g.apply_action(g.apply_action(s, g.string_to_action(s, "claim 21")), meyer.DOUBT)  # a lie, doubted
    v = g.global_state(s)
    assert g.is_terminal(s) and s.winners == (1,)
    assert part(g, v, "game_over").tolist() == [1] and part(g, v, "winners").tolist() == [0, 1]
    assert part(g, v, "lives").tolist() == [0, 1] and part(g, v, "to_act").tolist() == [0, 0]
    assert part(g, v, "doubt_seen").tolist() == [1] and part(g, v, "doubt_dice").tolist() == [3, 2]
    assert part(g, v, "doubt_loser").tolist() == [1, 0] and part(g, v, "cup_present").tolist() == [0]


def test_a_game_of_its_own_without_a_global_state_still_builds():
    """global_state is not abstract: a Game subclass written before it existed can still be made
    (it raises only when asked for the state)."""
    from dice_envs.games import base

    assert "global_state" not in base.Game.__abstractmethods__
    class Mine(base.Game):  # every abstract method, none of the global state
        pass

    for name in base.Game.__abstractmethods__:
        setattr(Mine, name, lambda self, *args: None)
    Mine.__abstractmethods__ = frozenset()
    with pytest.raises(NotImplementedError, match="Mine defines no global state"):
        Mine().global_state(None)
