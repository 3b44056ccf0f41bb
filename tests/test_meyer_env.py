"""The PettingZoo env ``dice/meyer-v0``: API, seeding, variants, and no leak through infos (ME-8)."""

from __future__ import annotations

import warnings

import numpy as np
import pettingzoo
import pytest
from api_checks import api_test_without_warnings
from pettingzoo.test import seed_test

import dice_envs  # noqa: F401  (registers the envs)
from dice_envs import meyer_v0
from dice_envs.games import meyer

ENV_ID = "dice/meyer-v0"

VARIANTS = [
    {"num_players": 2, "lille_meyer": False, "claim_rule": "higher"},
    {"num_players": 3, "blind_reroll": True, "meyer_costs": 2},
    {"num_players": 4, "end": "first_out", "lives": 2, "first_starter": 3, "history": 0},
    {"num_players": 5, "blind_reroll": True, "claim_rule": "higher", "end": "first_out", "history": 1},
    {"num_players": 8, "lives": 3, "lille_meyer": False, "blind_reroll": True, "meyer_costs": 3, "history": 12},
]
# Default options with 2..8 players: tests/test_envs.py, as for every env.
CONFIGS = VARIANTS


def config_id(options: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in options.items())


def make(**options):
    return pettingzoo.make("aec", ENV_ID, **options)


@pytest.mark.parametrize("options", CONFIGS, ids=config_id)
def test_ME9_api_test_without_warnings(options):
    api_test_without_warnings(make(**options))


@pytest.mark.parametrize("options", CONFIGS, ids=config_id)
def test_ME9_seed_test(options):
    seed_test(lambda: make(**options), num_cycles=300)


def test_ME9_module_and_registry_build_the_same_env():
    for env in (make(num_players=3), meyer_v0.env(num_players=3), meyer_v0.raw_env(num_players=3)):
        assert env.unwrapped.metadata["name"] == "meyer_v0"
        assert env.possible_agents == ["player_0", "player_1", "player_2"]
        assert env.action_space("player_1").n == 24
        size = 7 * 3 + 59 + 8 * (3 + 3)  # 7N + 59 + H(N + 3), the documented size
        assert env.observation_space("player_0")["observation"].shape == (size,)
    with pytest.raises(ValueError, match="claim_rule"):
        make(claim_rule="sometimes")


@pytest.mark.parametrize("n, history", [(2, 0), (2, 8), (5, 3), (8, 64)])
def test_observation_layout_matches_the_documentation(n, history):
    g = meyer.Game(num_players=n, history=history)
    at = {name: s.start for name, s in g.obs_slices.items()}
    assert len(g.observation_low) == 7 * n + 59 + history * (n + 3)
    assert at["respond"] == 3 * n and at["beat_claim"] == 3 * n + 4 and at["beat_by"] == 3 * n + 25
    assert at["own_known"] == 4 * n + 26 and at["own_claim"] == 4 * n + 30
    d = 4 * n + 51 + history * (n + 3)
    assert at["doubt_seen"] == d and at["doubt_claimer"] == d + 6 and at["doubt_loser"] == d + 2 * n + 6
    assert at["doubt_lost"] == d + 3 * n + 7 == len(g.observation_low) - 1
    if history:
        assert at[f"history_{history - 1}_by"] == 4 * n + 51 + (history - 1) * (n + 3) + 3


def play(env, seed, check=None):
    """Random legal play through the env; ``check(env)`` after every step."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
        if check is not None:
            check(env)


@pytest.mark.parametrize("options", VARIANTS, ids=config_id)
def test_ME8_infos_never_carry_dice_a_player_has_not_seen(options):
    env = make(**options)
    raw = env.unwrapped
    counted = {"hidden": 0, "shown": 0}

    def check(env):
        # The rolls since the last action, as the env recorded them with nothing hidden.
        rolls = []
        for event in reversed(raw.history):
            if event[0] == "action":
                break
            rolls.insert(0, event)
        for agent in raw.agents:
            seat = int(agent.split("_")[1])
            assert len(raw.infos[agent]["dice"]) == len(rolls)
            for (_, roll, seen_by), entry in zip(rolls, raw.infos[agent]["dice"]):
                assert seen_by is not None, "Meyer's rolls are never public"
                if seat in seen_by:
                    assert entry == roll
                    counted["shown"] += 1
                else:
                    assert entry is None, f"{agent} was told {entry!r}"
                    counted["hidden"] += 1
            # The observation is the engine's, a pure function of state and seat.
            np.testing.assert_array_equal(env.observe(agent)["observation"], raw.game.observe(raw.game_state, seat))

    for seed in range(15):
        play(env, seed, check)
    assert counted["hidden"] >= counted["shown"] > 0


@pytest.mark.parametrize("options", VARIANTS, ids=config_id)
def test_ME8_env_observation_ignores_unseen_dice(options):
    env = make(**options)
    raw = env.unwrapped

    def check(env):
        state = raw.game_state
        if raw.game.is_terminal(state) or not state.cup:
            return
        for agent in raw.agents:
            seat = int(agent.split("_")[1])
            real = env.observe(agent)
            raw.game_state = state._replace(cup=(1, 2) if state.cup != (1, 2) else (3, 5))
            fake = env.observe(agent)
            raw.game_state = state
            same = np.array_equal(real["observation"], fake["observation"])
            assert same == (state.seen_by != seat)
            np.testing.assert_array_equal(real["action_mask"], fake["action_mask"])

    for seed in range(10):
        play(env, seed, check)


def test_rewards_and_terminations_at_the_end():
    env = make(num_players=3, lives=1, end="first_out")
    for seed in range(20):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        final = {}
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            if term:
                final[agent] = reward
            else:
                assert reward == 0 and not trunc
            env.step(None if term else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        returns = env.unwrapped.game.returns(env.unwrapped.game_state)
        assert sorted(returns) == [-1.0, 0.5, 0.5]
        assert final == {f"player_{s}": returns[s] for s in range(3)}


def test_masks_follow_the_phase():
    env = meyer_v0.raw_env(num_players=2, blind_reroll=True)
    env.reset(seed=1)
    obs = env.observe("player_0")
    assert list(np.flatnonzero(obs["action_mask"])) == list(range(3, 24))  # the starter claims
    assert not env.observe("player_1")["action_mask"].any()
    env.step(3 + meyer.claim_index("43"))
    assert list(np.flatnonzero(env.observe("player_1")["action_mask"])) == [0, 1]
    env.step(meyer.BELIEVE)
    mask = env.observe("player_1")["action_mask"]
    assert mask[meyer.REROLL] == 1 and mask[meyer.DOUBT] == 0
    with pytest.raises(ValueError, match="illegal action 0"):
        env.step(meyer.DOUBT)


def test_illegal_action_in_the_wrapped_env_ends_the_game():
    env = make()
    env.reset(seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo logs the illegal move
        env.step(meyer.DOUBT)  # the starter must claim
    assert all(env.terminations.values())
    assert env.rewards["player_0"] == -1.0 and env.rewards["player_1"] == 0.0


def test_render_is_omniscient_and_names_the_cup():
    env = make(render_mode="ansi")
    env.reset(seed=4)
    state = env.unwrapped.game_state
    text = env.render()
    value = meyer.CLAIM_NAMES[meyer.CLAIM_OF_DICE[state.cup]]
    assert f"({value}), seen by player_0" in text
    assert "rolled 2 dice under the cup" in text


def test_max_cycles_truncates():
    env = make(max_cycles=2)
    env.reset(seed=0)
    steps = 0
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[-1]))
        steps += 1
    assert steps <= 2 * 2 + 2


def test_observation_values_entry_by_entry_through_a_doubt():
    import numpy as np

    from dice_envs.games import meyer

    g = meyer.Game(num_players=3, meyer_costs=2)
    at = g.obs_slices

    def part(obs, name):
        return obs[at[name]].tolist()

    s = g.apply_chance(g.initial_state(), tuple(np.array([2, 5])))  # numpy ints in
    assert s.cup == (2, 5) and all(type(f) is int for f in s.cup)
    s = g.apply_action(s, g.string_to_action(s, "claim 21"))  # a lie: the cup holds 52
    mine = g.observe(s, 0)
    assert part(mine, "own_known") == [1] and part(mine, "own_dice") == [5, 2]  # higher die first
    assert part(mine, "own_rank") == [g.rank[meyer.claim_of((2, 5))] + 1]
    theirs = g.observe(s, 1)
    assert part(theirs, "own_known") == [0] and part(theirs, "own_dice") == [0, 0]
    assert part(theirs, "respond") == [1] and part(theirs, "to_act") == [1, 0, 0]
    assert part(theirs, "beat_rank") == [21] and part(theirs, "beat_by") == [0, 0, 1]  # seat 0, from seat 1
    s = g.apply_action(s, meyer.DOUBT)  # seat 1 lifts the cup: seat 0 lied about Meyer
    obs = g.observe(s, 2)  # seat 2 saw the cup lifted
    assert part(obs, "doubt_seen") == [1] and part(obs, "doubt_dice") == [5, 2]
    assert part(obs, "doubt_claim_rank") == [21] and part(obs, "doubt_lie") == [1]
    assert part(obs, "doubt_claimer") == [0, 1, 0]  # seat 0, listed from seat 2: (2, 0, 1)
    assert part(obs, "doubt_doubter") == [0, 0, 1]
    assert part(obs, "doubt_loser") == [0, 1, 0]
    assert part(obs, "doubt_lost") == [2]  # a doubted 21 costs meyer_costs
    assert part(obs, "lives") == [6, 4, 6]  # seats 2, 0, 1
