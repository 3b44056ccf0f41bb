"""DiceGameEnv.information_state: a perfect-recall information state in every game.

Checked by play: the agent's observation is a function of its information state (so nothing it
sees is missing from it), a roll hidden from an agent leaves its information state the same
whatever the dice, and the roller's differs."""

from __future__ import annotations

import numpy as np
import pytest

from dice_envs.games import meyer
from dice_envs.registry import env_module

CASES = [
    ("syvere", {"num_players": 3}),
    ("tenthousand", {"num_players": 2, "preset": "farkle", "target": 2000}),
    ("meyer", {"num_players": 2, "lives": 2}),
    ("meyer", {"num_players": 3, "lives": 2, "blind_reroll": True, "history": 1}),
]


def lowest_legal(observation, mask, rng):
    return int(np.flatnonzero(mask)[0])


def random_legal(observation, mask, rng):
    return int(rng.choice(np.flatnonzero(mask)))


def collect(name, options, policy, games, seen):
    """Play ``games`` games; map every (agent's information state) to its observation bytes."""
    collisions = 0
    for seed in range(games):
        env = env_module(name).raw_env(**options)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        steps = 0
        while env.agents and steps < 150:
            for agent in env.agents:
                key = env.information_state(agent)
                observation = env.observe(agent)["observation"].tobytes()
                if key in seen:
                    collisions += 1
                    assert seen[key] == observation, (name, options, env.information_state_string(agent))
                seen[key] = observation
            agent = env.agent_selection
            _, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            env.step(policy(None, env.observe(agent)["action_mask"], rng))
            steps += 1
    return collisions


@pytest.mark.parametrize(("name", "options"), CASES)
def test_the_observation_is_a_function_of_the_information_state(name, options):
    seen: dict = {}
    collisions = collect(name, options, lowest_legal, 16, seen) + collect(name, options, random_legal, 16, seen)
    assert collisions > 40  # the check was put to work: many histories an agent could not tell apart


def test_a_hidden_roll_is_a_count_for_the_others_and_the_dice_for_the_roller():
    """ME-3 (only the roller sees the dice), ME-4 (a doubt shows them to all), ME-8 (no observation
    holds dice a player has not seen), read through the information state."""
    env = env_module("meyer").raw_env(num_players=2, lives=2)
    env.reset(seed=6)  # the cup holds 3 and 4
    roller, other = env.agent_selection, [a for a in env.agents if a != env.agent_selection][0]
    cup = env.game_state.cup
    assert env.information_state(roller) == (("seat", 0), ("chance", cup))
    assert env.information_state(other) == (("seat", 1), ("chance", 2))
    assert env.information_state_string(other) == "seat 1|roll 2 dice unseen"
    # Claim, doubt: the cup is lifted and both now know the dice.
    env.step(meyer.FIRST_CLAIM + meyer.claim_index("32"))
    env.step(meyer.DOUBT)
    assert ("revealed", cup) in env.information_state(other)
    text = env.information_state_string(other)
    # Dice by their ME-2 names, high die first, as the claims are: the roller saw the same name.
    name = env.game.roll_to_string(cup)
    assert name == "43" and "player_0: claim 32|player_1: doubt|revealed 43|" in text
    assert env.information_state_string(roller).startswith(f"seat 0|roll {name}|")
    # The same public play over other dice: the other seat's state differs only after the reveal.
    for seed in range(7, 40):
        env2 = env_module("meyer").raw_env(num_players=2, lives=2)
        env2.reset(seed=seed)
        if env2.game_state.cup != cup:
            break
    assert env2.information_state(other) == (("seat", 1), ("chance", 2))
    assert env2.information_state(roller) != env.information_state(roller)[:2]


def test_every_roll_is_public_in_syvere_and_unknown_agents_are_refused():
    env = env_module("syvere").raw_env(num_players=2)
    with pytest.raises(ValueError, match="reset"):
        env.information_state("player_0")
    env.reset(seed=1)
    states = [env.information_state(a) for a in env.agents]
    assert [s[1:] for s in states] == [states[0][1:]] * 2 and states[0][0] != states[1][0]
    with pytest.raises(ValueError, match="unknown agent 'player_9'"):
        env.information_state("player_9")
    assert hash(states[0]) == hash(env.information_state("player_0"))


def test_the_public_observation_hides_the_cup_from_its_roller_too():
    """ME-3/ME-8: observe_public is what every seat knows of the table: the roller's view with the
    dice under the cup unseen; games whose rolls are all public give observe itself."""
    game = meyer.Game(num_players=3)
    state = game.apply_chance(game.initial_state(), (5, 4))
    other = game.apply_chance(game.initial_state(), (2, 1))
    roller = game.current_player(state)
    assert not np.array_equal(game.observe(state, roller), game.observe(other, roller))
    # The roller's public view does not depend on the cup, and is what a seat that never saw it sees.
    assert np.array_equal(game.observe_public(state, roller), game.observe_public(other, roller))
    for seat in range(3):
        if seat != roller:
            assert np.array_equal(game.observe_public(state, seat), game.observe(state, seat))
    syvere = env_module("syvere").raw_env(num_players=2).game
    s = syvere.apply_chance(syvere.initial_state(), (1, 2, 3, 4, 5, 6))
    assert np.array_equal(syvere.observe_public(s, 0), syvere.observe(s, 0))
