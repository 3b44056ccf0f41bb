"""Ranking your own agent: a Meyer agent written here, entered into a tournament beside built-in agents.

The class follows the agent protocol of docs/tournaments.md ("Ranking your own agent"): a subclass of
``agents.Agent`` built as ``CLASS(game, seed=..., **params)`` with typed keyword parameters, whose
``action_probabilities(observation, action_mask)`` is its whole policy (the base class's ``act``
draws from it). A tournament names it by the SPEC ``MODULE:CLASS[:KEY=VALUE,...]``, here
``custom_agent:Cautious`` (this file's name), exactly as ``dice-envs tournament meyer --agents
honest custom_agent:Cautious`` would from this directory. Nothing is written to disk.

Run it with the core install (no extras)::

    python docs/examples/custom_agent.py --games 20
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from agents import Agent
from dice_envs.games.meyer import BELIEVE, DOUBT, FIRST_CLAIM  # action ids 0, 1 and 3

# Claims are actions FIRST_CLAIM ("21", the best) .. 23 ("32"), in the default ranking; this agent assumes
# it (with lille_meyer=false, "31", action 4, ranks lowest instead).


class Cautious(Agent):
    """Doubts a claim ranked ``doubt_from`` or higher (ranks: 1 for ``32`` .. 21 for ``21``; 22 never
    doubts) and believes the rest; claims its own dice when they are legal, else the lowest legal claim.
    With probability ``bluff`` it claims a legal value above its dice instead, uniformly among them.
    With its defaults and the default rules it makes the built-in ``honest`` player's choices (the two end
    level on the board); it never makes a blind reroll, which ``honest`` does under ``blind_reroll``."""

    def __init__(self, game, seed: int | None = None, doubt_from: int = 11, bluff: float = 0.0):
        super().__init__(game, seed)
        if not 1 <= doubt_from <= 22 or not 0.0 <= bluff <= 1.0:
            raise ValueError(f"doubt_from must be 1..22 and bluff 0..1, got {doubt_from} and {bluff}")
        self.doubt_from, self.bluff = doubt_from, bluff
        self.slices = game.obs_slices  # the observation's entries by name (the meyer_v0 docstring's table)

    def action_probabilities(self, observation, action_mask):
        p = np.zeros(len(action_mask))
        legal = np.flatnonzero(action_mask)
        claims = legal[legal >= FIRST_CLAIM]  # the legal claims, highest first
        if observation[self.slices["respond"]][0]:  # a claim to answer
            beat_rank = observation[self.slices["beat_rank"]][0]
            p[DOUBT if beat_rank >= self.doubt_from or not action_mask[BELIEVE] else BELIEVE] = 1.0
        elif len(claims) == 0:  # nothing to claim (no such decision in the default rules): any legal move
            p[legal] = 1.0 / len(legal)
        elif not observation[self.slices["own_known"]][0]:  # dice unseen after a blind reroll
            p[claims[-1]] = 1.0  # the lowest legal claim
        else:
            own = FIRST_CLAIM + int(np.argmax(observation[self.slices["own_claim"]]))
            above = claims[claims < own]  # legal claims ranked above the dice
            if not action_mask[own]:
                p[claims[-1]] = 1.0  # a forced lie, as low as the rules allow
            elif len(above) == 0 or self.bluff == 0.0:
                p[own] = 1.0
            else:
                p[own] = 1.0 - self.bluff
                p[above] += self.bluff / len(above)
        return p


if __name__ == "__main__":
    from evaluate.ratings import leaderboard
    from evaluate.tournament import run_tournament

    parser = argparse.ArgumentParser(description="A custom Meyer agent in a tournament with built-in ones.")
    parser.add_argument("--games", type=int, default=20, help="deals per table, each played in both seatings")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1, help="processes; each imports this module itself")
    args = parser.parse_args()

    module = Path(__file__).stem  # importable: the script's directory is on sys.path
    entrants = ["honest", "doubter", "random", f"{module}:Cautious", f"{module}:Cautious:bluff=1/4"]
    # No db: nothing is stored (`dice-envs tournament` keeps every game in results/meyer.sqlite).
    result = run_tournament("meyer", entrants, games=args.games, seed=args.seed, workers=args.workers,
                            progress=False)
    board = leaderboard(result.labels, result.records, seed=args.seed)
    print(f"Meyer, {len(result.records)} games between {len(entrants)} entrants (2 players, default rules):")
    print(board.text())
