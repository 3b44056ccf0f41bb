"""Ten thousand agents: legal play, seed 002's advice in the heuristic, and seeded matches."""

from __future__ import annotations

import numpy as np
import pettingzoo
import pytest

import dice_envs  # noqa: F401  (registers the envs)
from agents import AGENTS, make_agent
from agents.tenthousand import GreedyAgent, ThresholdAgent
from dice_envs.games import tenthousand as tt
from dice_envs.registry import env_id
from evaluate.match import play_match

ENV_ID = env_id("tenthousand")


def situation(game, roll, **fields):
    """(observation, mask) of player 0 after ``roll``, with some public fields set first."""
    state = game.apply_chance(game.initial_state()._replace(to_roll=len(roll), **fields), roll)
    mask = np.zeros(tt.NUM_ACTIONS, dtype=np.int8)
    mask[game.legal_actions(state)] = 1
    return game.observe(state, game.current_player(state)), mask


def choice(agent, game, roll, **fields):
    return tt.ACTION_STRINGS[agent.act(*situation(game, roll, **fields))]


def test_registered_for_tenthousand():
    assert set(AGENTS["tenthousand"]) == {"random", "greedy", "heuristic", "optimal", "winprob", "trained"}
    game = tt.Game()
    assert isinstance(make_agent(game, "heuristic", seed=1), ThresholdAgent)
    assert isinstance(make_agent(game, "greedy"), GreedyAgent)
    with pytest.raises(ValueError, match="stop_at"):
        ThresholdAgent(game, stop_at=(300, 400))


@pytest.mark.parametrize("preset", ["dk", "no", "farkle"])
def test_agents_only_play_legal_actions(preset):
    env = pettingzoo.make("aec", ENV_ID, num_players=3, preset=preset, confirm_combinations=preset == "no")
    game = env.unwrapped.game
    players = [make_agent(game, name, seed=i) for i, name in enumerate(["random", "greedy", "heuristic"])]
    for seed in range(3):
        env.reset(seed=seed)
        for agent_id in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            action = players[int(agent_id[-1])].act(obs["observation"], obs["action_mask"])
            assert obs["action_mask"][action] == 1
            env.step(action)
        assert game.is_terminal(env.unwrapped.game_state)


def test_greedy_takes_the_most_valuable_selection_and_banks_when_allowed():
    game = tt.Game(preset="dk")
    agent = GreedyAgent(game)
    assert choice(agent, game, (1, 2, 2, 2, 5, 6)) == "keep 12225 roll"  # 350 < opening: roll
    assert choice(agent, game, (1, 2, 2, 2, 5, 6), turn_total=700) == "keep 12225 bank"
    assert choice(agent, game, (1, 1, 1, 5, 5, 5)) == "keep 111555 roll"  # hot dice must roll


def test_heuristic_stops_with_300_to_400_and_two_or_three_dice_left():
    # seed 002: "Har du samlet 300–400 poeng og bare to eller tre terninger igjen ... stoppe"
    game = tt.Game(preset="no")
    agent = ThresholdAgent(game)
    opened = {"opened": (True, False)}
    assert choice(agent, game, (1, 2, 3, 4), turn_total=250, **opened) == "keep 1 bank"  # 350, 3 left
    assert choice(agent, game, (1, 2, 6), turn_total=200, **opened) == "keep 1 bank"  # 300, 2 left
    assert choice(agent, game, (1, 2, 6), turn_total=100, **opened) == "keep 1 roll"  # 200 only


def test_heuristic_goes_on_with_five_or_six_dice():
    # seed 002: "Med fem eller seks terninger er det derimot trygt å fortsette"
    game = tt.Game(preset="no")
    agent = ThresholdAgent(game)
    opened = {"opened": (True, False)}
    assert choice(agent, game, (1, 2, 3, 4, 6, 6), turn_total=400, **opened) == "keep 1 roll"
    assert choice(agent, game, (1, 1, 1, 5, 5, 5), turn_total=400, **opened) == "keep 111555 roll"  # hot dice


def test_heuristic_does_not_hoard_5s_when_it_needs_dice():
    # seed 002: "Ikke spar på dem [5-erne] hvis du trenger terninger å kaste"
    game = tt.Game(preset="no")
    agent = ThresholdAgent(game)
    assert choice(agent, game, (1, 2, 3, 5, 6, 6)) == "keep 1 roll"
    assert choice(agent, game, (2, 3, 4, 5, 5, 6)) == "keep 5 roll"


def test_heuristic_banks_to_reach_the_target_and_chases_the_leader_in_the_end_phase():
    game = tt.Game(num_players=2, preset="no")
    agent = ThresholdAgent(game)
    near = {"opened": (True, True), "totals": (9900, 0)}
    assert choice(agent, game, (1, 2, 3, 4, 6, 6), **near) == "keep 1 bank"  # 10 000
    behind = {"opened": (True, True), "totals": (9000, 10_500), "turns_left": 1}
    assert choice(agent, game, (1, 2, 3), turn_total=1000, **behind) == "keep 1 roll"  # 10 100 < 10 500
    assert choice(agent, game, (1, 2, 3), turn_total=1500, **behind) == "keep 1 bank"  # 10 600


def test_heuristic_beats_greedy_and_random_in_seeded_matches():
    for opponent in ("greedy", "random"):
        result = play_match(ENV_ID, ["heuristic", opponent], num_games=150, seed=3, options={"preset": "no"})
        rate, low, _ = result.records[0].win_rate()
        assert low > 0.5, result.table()
