"""Meyer: bluffing with two dice under a cup.

| | |
|---|---|
| Registry id | ``dice/meyer-v0`` — ``pettingzoo.make("aec", "dice/meyer-v0", num_players=4)`` |
| Import | ``from dice_envs import meyer_v0`` (``meyer_v0.env()``, ``meyer_v0.raw_env()``, ``meyer_v0.parallel_env()``: the parallel API, also ``pettingzoo.make("parallel", ...)``) |
| Agents | ``player_0`` .. ``player_{N-1}``, N = 2..8; a player who is out stays in ``env.agents``, not terminated, until the game ends (it never acts again) |
| Actions | ``Discrete(24)``: 0 ``doubt``, 1 ``believe``, 2 ``reroll``, 3..23 ``claim 21`` .. ``claim 32`` (ME-10) |
| Observation | ``Dict(observation=Box(float32, (7N+59+H(N+3),)), action_mask=Box(int8, (24,)))`` |
| Rewards | at the end only: the winners share +1, the losers share -1 (C-3) |
| Engine | :mod:`dice_envs.games.meyer` |

Every player starts with the same number of lives. The round's starter rolls two dice under the
cup, looks at them unseen by the others and claims a value, true or not. The next player still
in either **doubts** (the cup is lifted for all to see: if the dice rank below the claim, the
claimer loses a life, otherwise the doubter does; the doubter then starts a new round) or
**believes** (they roll again without seeing the previous dice, look, and must claim at least the
previous claim — lying if they must). A player with no lives left is out; the last player with
lives wins.

The env rolls the dice itself: agents act only at decisions. The dice are seen only by the
roller; ``infos[agent]["dice"]`` shows a roll as ``None`` to everyone who did not see it (and to
everyone, the roller included, for the blind reroll).

Ranking (ME-2), best first; a roll is named by its higher die first (4 and 5 is ``54``):

``21`` (Meyer) > ``31`` (Lille Meyer) > ``66`` > ``55`` > ``44`` > ``33`` > ``22`` > ``11`` >
``65`` > ``64`` > ``63`` > ``62`` > ``61`` > ``54`` > ``53`` > ``52`` > ``51`` > ``43`` > ``42`` >
``41`` > ``32``. With ``lille_meyer=False`` ``31`` is an ordinary roll and the lowest of all.

Actions (the claim ids are fixed by the list above whatever the variant; the variant only changes
the ranking):

| id | string | legal when |
|---|---|---|
| 0 | ``doubt`` | a claim is to be answered (ME-4) |
| 1 | ``believe`` | a claim is to be answered and some claim can follow it (not after ``21`` with ``claim_rule="higher"``) |
| 2 | ``reroll`` | ``blind_reroll=True``, after ``believe`` and the first roll, once (ME-5) |
| 3 + c | ``claim XY`` | after the roll: c is the claim's place in the list above (3 ``claim 21``, 4 ``claim 31``, 5 ``claim 66``, ..., 23 ``claim 32``); it must rank at least as high as the claim to beat (strictly higher with ``claim_rule="higher"``); anything at a round start |

Observation (``observation`` entries; N players, H = the ``history`` option; seats are listed
from the observer clockwise, so seat entry 0 is always the observer; a *rank* is 1 for the lowest
value of the variant .. 21 for ``21``, and 0 for none). ``game.obs_slices`` maps the names below
to their slices:

| index | name | meaning | range |
|---|---|---|---|
| 0 .. N-1 | ``lives`` | lives, own first | 0 .. lives |
| N .. 2N-1 | ``in_game`` | still in (lives left) | 0, 1 |
| 2N .. 3N-1 | ``to_act`` | one-hot: who acts next (all 0 once the game is over) | 0, 1 |
| 3N | ``respond`` | the player to act must doubt or believe | 0, 1 |
| 3N+1 | ``claim_phase`` | the player to act must claim (or reroll) once their dice are rolled; 1 also at the chance node of that roll, where only engine users observe (the env rolls before anyone acts) | 0, 1 |
| 3N+2 | ``actor_rerolled`` | the player to act made the blind reroll in this turn (public, ME-5) | 0, 1 |
| 3N+3 | ``beat_rank`` | rank of the claim to beat (0 at a round start) | 0 .. 21 |
| 3N+4 .. 3N+24 | ``beat_claim`` | one-hot: the claim to beat, in action order (``21``, ``31``, ``66``, ..., ``32``) | 0, 1 |
| 3N+25 .. 4N+24 | ``beat_by`` | one-hot: who made the claim to beat | 0, 1 |
| 4N+25 | ``beat_blind`` | the claim to beat was made after a blind reroll | 0, 1 |
| 4N+26 | ``own_known`` | 1 if the dice under the cup are this player's and they have seen them | 0, 1 |
| 4N+27, 4N+28 | ``own_dice`` | those dice: higher die, lower die (0, 0 if not known) | 0 .. 6 |
| 4N+29 | ``own_rank`` | their rank (0 if not known) | 0 .. 21 |
| 4N+30 .. 4N+50 | ``own_claim`` | one-hot: their value, in action order (all 0 if not known) | 0, 1 |
| 4N+51 + h(N+3) | ``history_h_present`` | slot h holds a claim; h = 0 is the latest claim of this round, h = 1 the one before, ... (only the last H claims of the round) | 0, 1 |
| +1 | ``history_h_rank`` | rank of that claim | 0 .. 21 |
| +2 | ``history_h_blind`` | that claim was made after a blind reroll | 0, 1 |
| +3 .. +N+2 | ``history_h_by`` | one-hot: who made it | 0, 1 |
| D = 4N+51+H(N+3) | ``doubt_seen`` | a cup has been lifted in this game | 0, 1 |
| D+1, D+2 | ``doubt_dice`` | the dice it showed: higher die, lower die | 0 .. 6 |
| D+3 | ``doubt_rank`` | their rank | 0 .. 21 |
| D+4 | ``doubt_claim_rank`` | rank of the claim that was doubted | 0 .. 21 |
| D+5 | ``doubt_claim_blind`` | that claim was made after a blind reroll | 0, 1 |
| D+6 .. D+N+5 | ``doubt_claimer`` | one-hot: who made that claim | 0, 1 |
| D+N+6 .. D+2N+5 | ``doubt_doubter`` | one-hot: who doubted | 0, 1 |
| D+2N+6 .. D+3N+5 | ``doubt_loser`` | one-hot: who lost the life (lives) | 0, 1 |
| D+3N+6 | ``doubt_lie`` | the claim was a lie (the claimer lost) | 0, 1 |
| D+3N+7 | ``doubt_lost`` | lives lost | 0 .. max(1, min(meyer_costs, lives)) |

Nothing else is in the observation: no observation ever holds dice the player has not seen
(ME-8). The dice under the cup appear only for the player who rolled them and looked (not after
the blind reroll); a believer never learns the previous dice; dice shown by a doubt are public.

``action_mask``: 1 for the legal actions of the player to act; all 0 for everyone else.

Global state (``env.state()``, float32, in ``env.state_space`` = ``Box((9N+61+H(N+3),))``; for a
centralised critic, as in MAPPO). Nothing is hidden in it: it holds the dice under the cup as they
truly are, whoever has seen them. Every seat's observation is a function of it, and it is a Markov
state: two game states with the same vector have the same legal actions and the same future.
``env.unwrapped.game.state_slices`` maps the names below to their slices:

| index | name | meaning | range |
|---|---|---|---|
| 0 .. D+3N+7 | as in the table above | seat 0's observation layout with absolute seats (entry s is seat s), except that ``own_*`` are named ``cup_*`` and show the cup to everyone | as above |
| 4N+26 | ``cup_present`` | the cup holds dice (after a blind reroll too) | 0, 1 |
| 4N+27, 4N+28 | ``cup_dice`` | those dice: higher die, lower die | 0 .. 6 |
| 4N+29 | ``cup_rank`` | their rank | 0 .. 21 |
| 4N+30 .. 4N+50 | ``cup_claim`` | one-hot: their value, in action order | 0, 1 |
| S = D+3N+8 | ``to_roll`` | dice to roll now (2 at a roll, else 0) | 0 .. 2 |
| S+1 .. S+N | ``cup_seen_by`` | one-hot: who has seen the cup (all 0: nobody, as after the blind reroll) | 0, 1 |
| S+N+1 | ``game_over`` | the game is over | 0, 1 |
| S+N+2 .. S+2N+1 | ``winners`` | the winners, once the game is over | 0, 1 |

The claims window (``history_*``) and the last lifted cup (``doubt_*``) are in it because the
observations show them; the rules never look back at them.

Options (keyword arguments of ``env``, ``raw_env`` and ``pettingzoo.make``):

| option | default | meaning |
|---|---|---|
| ``num_players`` | 2 | 2..8 (ME-1) |
| ``lives`` | 6 | lives of every player at the start, 1 .. 100 (ME-1) |
| ``lille_meyer`` | ``True`` | ``31`` ranks second; ``False``: ``31`` is the lowest roll (ME-2) |
| ``claim_rule`` | ``"at_least"`` | a claim must be at least the previous claim; ``"higher"``: strictly higher (ME-4) |
| ``blind_reroll`` | ``False`` | a believer may roll once more, unseen, instead of claiming (ME-5) |
| ``meyer_costs`` | 1 | lives lost by the loser of a doubted ``21`` claim, 1 .. 100 (ME-6) |
| ``end`` | ``"last_standing"`` | the last player with lives wins; ``"first_out"``: the first player out loses, all others win (ME-7) |
| ``first_starter`` | 0 | the seat that starts the first round (C-4) |
| ``history`` | 8 | H, how many of the round's claims the observation lists, 0..64 |
| ``render_mode`` | ``None`` | ``"ansi"`` (``render()`` returns the text) or ``"human"`` (printed after every ``reset`` and ``step``) |
| ``max_cycles`` | ``None`` | truncate after ``max_cycles * N`` actions |

Rewards (C-3): with ``end="last_standing"`` the winner gets +1 and the others share -1 (2 players:
+1 / -1); with ``end="first_out"`` the player who went out gets -1 and the others share +1.

Rules as implemented (docs/rules.md ME-1..ME-10): after a doubt the doubter starts the next round and
need not beat anything; if the doubter is out, the next player still in clockwise from the doubter
starts it. A doubted ``21`` costs its loser ``meyer_costs`` lives (never more than they have).

Interpretations taken from docs/rules.md:

* A claim is true when the dice rank at or above it, so an under-claim is not a lie (seed 003
  says only "if the previous player lied").
* The blind reroll is for a believing player who has seen their first roll, once per turn; not
  for a round's starter, who has nothing to beat.
* The game's first round is started by ``first_starter``.

Rendering: ``env.render()`` shows the engine's :meth:`~dice_envs.games.meyer.Game.render`, the
**omniscient** view, with the dice under the cup that nobody but the roller may see; it is for
logs, replays and debugging, and ``render_mode="human"`` prints it after every ``reset`` and
``step``. A person playing a seat must be shown
``env.unwrapped.game.render_for(env.unwrapped.game_state, seat)`` (``dice-envs play meyer`` does that).
``env.unwrapped.history`` likewise holds every roll with nothing hidden.

Every game can end, under every accepted option: each doubt costs a life, and a doubt is always
legal. Under ``claim_rule="at_least"`` a round has no longest length, so agents that never doubt
could play one for ever (``21`` believed and claimed again); ``max_cycles`` truncates such games.
Under ``"higher"`` a round has at most 21 claims.

Illegal actions: ``raw_env`` raises ``ValueError`` naming the action; ``env()`` ends the game with
-1 for the offender and 0 for everyone else (PettingZoo's ``TerminateIllegalWrapper``).

Version history:

* v0: first release.
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv, ParallelEnv

from dice_envs.env import DiceGameEnv, env_metadata, to_parallel, wrap
from dice_envs.games import meyer


class raw_env(DiceGameEnv):
    """Meyer without wrappers; see the module docstring."""

    game_class = meyer.Game
    metadata = env_metadata("meyer_v0")


def env(**kwargs: Any) -> AECEnv:
    """Meyer in PettingZoo's standard wrappers; keyword arguments as for :class:`raw_env`."""
    return wrap(raw_env(**kwargs))


def parallel_env(**kwargs: Any) -> ParallelEnv:
    """Meyer under PettingZoo's parallel API (``turn_based_aec_to_parallel`` of :func:`env`): one
    agent acts per step, the others' masks are all zeros; keyword arguments as for :class:`raw_env`."""
    return to_parallel(env(**kwargs))


__all__ = ["env", "parallel_env", "raw_env"]
