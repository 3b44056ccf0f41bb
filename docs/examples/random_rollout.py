"""The smallest PettingZoo AEC loop: one game of each dice-envs game with random legal actions.

Each game is made through PettingZoo's registry by its short name (``dice_envs.registry.env_id``
gives the registered id with its current version), played with a masked random move at every
decision, and its returns printed: the C-3 returns, where the winners share +1 and the losers -1.

Run it from anywhere; the core install is enough (no extras)::

    python docs/examples/random_rollout.py --seed 0 --num-players 3
"""

from __future__ import annotations

import argparse

import numpy as np
import pettingzoo

import dice_envs  # registers the dice/* envs
from dice_envs.registry import env_id

parser = argparse.ArgumentParser(description="One random game of each dice-envs game.")
parser.add_argument("--seed", type=int, default=0, help="seeds the dice and the random moves")
parser.add_argument("--num-players", type=int, default=2, help="players at each table (2-8)")
args = parser.parse_args()

print(f"dice-envs {dice_envs.__version__}")
for game in ("syvere", "tenthousand", "meyer"):
    env = pettingzoo.make("aec", env_id(game), num_players=args.num_players)
    env.reset(seed=args.seed)
    rng = np.random.default_rng(args.seed)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    decisions = 0
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        returns[agent] += reward  # rewards come at the end of the game only
        if termination or truncation:
            action = None  # a finished agent is stepped out with None
        else:
            action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
            decisions += 1
        env.step(action)
    env.close()
    shown = ", ".join(f"{agent} {value:+.2f}" for agent, value in returns.items())
    print(f"{env_id(game):<20} {decisions:>4} decisions  returns: {shown}")
