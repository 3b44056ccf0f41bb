"""Syvere ("Sevens"): push your luck, lowest total survives.

| | |
|---|---|
| Registry id | ``dice/syvere-v0`` — ``pettingzoo.make("aec", "dice/syvere-v0", num_players=4)`` |
| Import | ``from dice_envs import syvere_v0`` (``syvere_v0.env()``, ``syvere_v0.raw_env()``, ``syvere_v0.parallel_env()``: the parallel API, also ``pettingzoo.make("parallel", ...)``) |
| Agents | ``player_0`` .. ``player_{N-1}``, N = 2..8; a player who is out stays in ``env.agents``, not terminated, until the game ends (it never acts again) |
| Actions | ``Discrete(2)``: 0 ``roll``, 1 ``stop`` (SY-12) |
| Observation | ``Dict(observation=Box(float32, (3N+12,)), action_mask=Box(int8, (2,)))`` |
| Rewards | at the end only: the winners share +1, the losers share -1 (C-3) |
| Engine | :mod:`dice_envs.games.syvere` |

Six dice. A turn starts with a roll of all six; after every roll the pairs summing to 7 (1+6, 2+5,
3+4) are set aside, and the player may roll the remaining dice again or stop. When the turn ends
the faces of the remaining dice are added to the player's total. The round's starter may roll up
to 3 times; everyone else in that round at most as often as the starter did. At 77 a player is
out; the last player still in wins.

The env rolls the dice itself: agents act only at decisions (``roll`` or ``stop``); turns that
end by themselves (no dice left, or the roll limit reached) pass without an action.

Observation (``observation`` entries; N players; seats listed from the observer clockwise, so
index 0 is always the observer):

| index | meaning | range |
|---|---|---|
| 0 .. N-1 | totals | 0 .. elimination + 35 |
| N .. 2N-1 | still in the game (1) or out (0) | 0, 1 |
| 2N .. 3N-1 | one-hot: whose turn it is (all 0 once the game is over) | 0, 1 |
| 3N | rolls made in this turn | 0 .. max_rolls |
| 3N+1 | this turn's roll limit (SY-6) | 0 .. max_rolls |
| 3N+2 | dice remaining (6 before the turn's first roll) | 0 .. 6 |
| 3N+3 .. 3N+8 | remaining dice showing 1, 2, ..., 6 | 0 .. 6 |
| 3N+9 | sum of the remaining dice: what the turn scores if it ends now | 0 .. 36 |
| 3N+10 | the player to act started this round | 0, 1 |
| 3N+11 | players still to play in this round after the one to act | 0 .. N-1 |

``action_mask``: 1 for the legal actions of the player to act; all 0 for everyone else.

Global state (``env.state()``, float32, in ``env.state_space`` = ``Box((7N+14,))``; for a centralised
critic, as in MAPPO; every seat's observation is a function of it, and it is a Markov state: two
game states with the same vector have the same legal actions and the same future).
``env.unwrapped.game.state_slices`` maps the names below to their slices:

| index | name | meaning | range |
|---|---|---|---|
| 0 .. 3N+11 | ``totals``, ``still_in``, ``to_act``, ``rolls``, ``roll_limit``, ``dice_left``, ``remaining``, ``remaining_sum``, ``actor_started``, ``still_to_play`` | seat 0's observation: the table above with absolute seats (entry s is seat s) | as above |
| 3N+12 | ``to_roll`` | dice to roll now (6 at a turn's start, the remaining dice after ``roll``; 0 at a decision and after the game) | 0 .. 6 |
| 3N+13 .. 4N+12 | ``in_round`` | plays in this round (was still in when it began) | 0, 1 |
| 4N+13 .. 5N+12 | ``starter`` | one-hot: started this round (with ``in_round``: the round's order and the next starter, SY-10) | 0, 1 |
| 5N+13 .. 6N+12 | ``totals_before_round`` | totals when this round began (SY-9's tie-break) | 0 .. elimination + 35 |
| 6N+13 | ``game_over`` | the game is over | 0, 1 |
| 6N+14 .. 7N+13 | ``winners`` | the winners, once the game is over | 0, 1 |

After the game ``state()`` is the final state (the last round's ``in_round``, ``starter`` and
``totals_before_round`` kept).

Options (keyword arguments of ``env``, ``raw_env`` and ``pettingzoo.make``):

| option | default | meaning |
|---|---|---|
| ``num_players`` | 2 | 2..8 (SY-1) |
| ``elimination`` | 77 | a total at or above this is out (SY-8), 1 .. 1000 |
| ``max_rolls`` | 3 | the round starter's roll limit (SY-6), 1 .. 100 |
| ``next_starter`` | ``"right"`` | who starts the next round: ``"right"`` (previous seat, SY-10) or ``"left"`` |
| ``first_starter`` | 0 | the seat that starts the first round (C-4) |
| ``render_mode`` | ``None`` | ``"ansi"`` (``render()`` returns the text) or ``"human"`` (printed after every ``reset`` and ``step``) |
| ``max_cycles`` | ``None`` | truncate after ``max_cycles * N`` actions |

Interpretations taken from docs/rules.md:

* SY-9: the game ends only at the end of a round. A player who reaches 77 takes no further turns,
  but the round is finished for the players yet to play in it. If nobody is left in at the end of
  a round, only the players of that final round count (a player out in an earlier round cannot win,
  however few points they have): among them the fewest points wins, then the fewest points before
  that round; players still tied share the win.
* SY-10: seats are numbered clockwise and play passes clockwise, so "to the right" of the previous
  starter is the previous seat: by default the last player of a round starts the next.
* SY-3: pairs summing to 7 are set aside by rule after every roll, not by the player's choice.

Every game can end, under every accepted option: a turn scores at least 1 unless every die is
paired off, which no choice can force, so players reach ``elimination`` in the end.

Illegal actions: ``raw_env`` raises ``ValueError`` naming the action; ``env()`` ends the game with
-1 for the offender and 0 for everyone else (PettingZoo's ``TerminateIllegalWrapper``).

Version history:

* v0: first release.
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv, ParallelEnv

from dice_envs.env import DiceGameEnv, env_metadata, to_parallel, wrap
from dice_envs.games import syvere


class raw_env(DiceGameEnv):
    """Syvere without wrappers; see the module docstring."""

    game_class = syvere.Game
    metadata = env_metadata("syvere_v0")


def env(**kwargs: Any) -> AECEnv:
    """Syvere in PettingZoo's standard wrappers; keyword arguments as for :class:`raw_env`."""
    return wrap(raw_env(**kwargs))


def parallel_env(**kwargs: Any) -> ParallelEnv:
    """Syvere under PettingZoo's parallel API (``turn_based_aec_to_parallel`` of :func:`env`): one
    agent acts per step, the others' masks are all zeros; keyword arguments as for :class:`raw_env`."""
    return to_parallel(env(**kwargs))


__all__ = ["env", "parallel_env", "raw_env"]
