"""Ten thousand (10 000 / Ti tusen / Farkle): set aside scoring dice, roll on or bank.

| | |
|---|---|
| Registry id | ``dice/tenthousand-v1`` — ``pettingzoo.make("aec", "dice/tenthousand-v1", num_players=3, preset="no")`` |
| Import | ``from dice_envs import tenthousand_v1`` (``tenthousand_v1.env()``, ``tenthousand_v1.raw_env()``, ``tenthousand_v1.parallel_env()``: the parallel API, also ``pettingzoo.make("parallel", ...)``) |
| Agents | ``player_0`` .. ``player_{N-1}``, N = 2..8 |
| Actions | ``Discrete(308)``: ``keep <faces> roll`` and ``keep <faces> bank`` for the 154 possible selections (TT-11), masked to the legal ones |
| Observation | ``Dict(observation=Box(float32, (4N+11,)), action_mask=Box(int8, (308,)))`` |
| Rewards | at the end only: the winners share +1, the losers share -1 (C-3) |
| Engine | :mod:`dice_envs.games.tenthousand` |

Six dice. A turn begins with a roll of all six. After every roll the player sets aside a
*selection*: a non-empty part of that roll in which every die belongs to a scoring combination
(single 1 = 100, single 5 = 50, three or more of a kind, a straight, three pairs), worth its best
split into combinations. Then they ``roll`` the dice not set aside, or ``bank`` the turn total onto
their total ("på listen"). A roll with no scoring dice is a bust: the turn total is lost. When all
six dice have been set aside (hot dice), the next roll is of all six again. The first to reach the
target (10 000) starts the end of the game; the highest total wins.

The env rolls the dice itself: agents act only at decisions; a bust passes the turn without an
action. Every action sets aside a selection of the current roll *and* says what comes next, so a
turn is a sequence of ``keep ... roll`` actions ended by a ``keep ... bank`` (or a bust).

Actions (stable ids, the same for every preset and option): ``SELECTIONS`` in
:mod:`dice_envs.games.tenthousand` lists the 154 multisets of dice that can ever be set aside, by
size and then by faces; selection ``i`` has ids ``2i`` (``keep <faces> roll``) and ``2i + 1``
(``keep <faces> bank``). Use ``tenthousand.encode_action(faces, bank)`` and
``tenthousand.decode_action(id)``; ``env.unwrapped.game.selections(roll)`` lists the legal
selections of a roll with their values. Examples:

| id | action | | id | action |
|---|---|---|---|---|
| 0 | ``keep 1 roll`` | | 1 | ``keep 1 bank`` |
| 2 | ``keep 5 roll`` | | 3 | ``keep 5 bank`` |
| 6 | ``keep 15 roll`` | | 7 | ``keep 15 bank`` |
| 16 | ``keep 222 roll`` | | 32 | ``keep 1222 roll`` |
| 306 | ``keep 666666 roll`` | | 307 | ``keep 666666 bank`` |

The mask holds a ``roll`` id for every legal selection of the roll, and its ``bank`` id when the
bank is allowed (TT-4 hot dice, TT-7 thresholds, TT-9b, TT-9c).

Observation (``observation`` entries; N players; seats listed from the observer clockwise, so
index 0 is always the observer). Everything in Ten thousand is public, so every player sees the
same table, only rotated.

| index | meaning | range |
|---|---|---|
| 0 .. N-1 | banked totals, own first (clipped to the range) | -target .. 2·target |
| N .. 2N-1 | has banked at least once ("på listen", TT-7): 1, else 0 | 0, 1 |
| 2N .. 3N-1 | busts in a row, counted towards the bust penalty (TT-9e) | 0 .. bust_penalty_after-1 |
| 3N .. 4N-1 | one-hot: whose turn it is (all 0 once the game is over) | 0, 1 |
| 4N | turn total: points gathered in this turn so far (clipped) | 0 .. 2·target |
| 4N+1 | dice in play: the number of dice in the current roll (6 minus those set aside earlier in the turn) | 0 .. 6 |
| 4N+2 .. 4N+7 | the current roll: how many dice show 1, 2, ..., 6 | 0 .. 6 |
| 4N+8 | TT-9c: a combination set aside in this turn has no single 1 or 5 set aside after it (kept under every rule set; it blocks a bank only under ``confirm_combinations``) | 0, 1 |
| 4N+9 | end phase: someone has reached the target and the last turns are being played (TT-8) | 0, 1 |
| 4N+10 | turns left in the end phase, counting the current one (0 outside it) | 0 .. N-1 |

``action_mask``: 1 for the legal actions of the player to act; all 0 for everyone else.

Global state (``env.state()``, float32, in ``env.state_space`` = ``Box((5N+13,))``; for a centralised
critic, as in MAPPO; every seat's observation is a function of it, and it is a Markov state (two game
states with the same vector have the same legal actions and the same future) while the totals and the
turn total stay within the clipped ranges). ``env.unwrapped.game.state_slices`` maps the names below
to their slices:

| index | name | meaning | range |
|---|---|---|---|
| 0 .. 4N+10 | ``totals``, ``opened``, ``busts``, ``to_act``, ``turn_total``, ``dice_in_play``, ``roll``, ``pending``, ``end_phase``, ``turns_left`` | seat 0's observation: the table above with absolute seats (entry s is seat s) | as above (``busts``: 0 .. max(1, bust_penalty_after-1)) |
| 4N+11 | ``to_roll`` | dice to roll now (0 at a decision and after the game) | 0 .. 6 |
| 4N+12 | ``game_over`` | the game is over | 0, 1 |
| 4N+13 .. 5N+12 | ``winners`` | the winners, once the game is over | 0, 1 |

Options (keyword arguments of ``env``, ``raw_env`` and ``pettingzoo.make``). The defaults are the
preset's; any option overrides the preset's entry (TT-10):

| option | ``dk`` | ``no`` | ``farkle`` | meaning |
|---|---|---|---|---|
| ``num_players`` | 2 | 2 | 2 | 2..8 (TT-1) |
| ``preset`` | | | | ``"dk"`` (default, seed 004), ``"no"`` (seed 002), ``"farkle"`` |
| ``target`` | 10000 | 10000 | 10000 | a multiple of 50, 50 .. 1 000 000 (TT-9a) |
| ``opening`` | 1000 | 500 | 300 | least turn total of a player's first bank, 0 .. target (TT-7) |
| ``min_bank`` | 300 | 0 | 300 | least turn total of every later bank, 0 .. target (TT-7) |
| ``end`` | ``"finish_round"`` | ``"last_turn_each"`` | ``"last_turn_each"`` | TT-8, below |
| ``hot_dice_must_roll`` | True | False | False | TT-4: after hot dice the six must be rolled (no bank) |
| ``over_threshold`` | False | False | False | TT-9b: at target−1000 or more, bank only to reach the target |
| ``confirm_combinations`` | False | False | False | TT-9c: no bank until a combination is confirmed by a later single 1 or 5 |
| ``exact_target`` | False | False | False | TT-9d: a bank past the target scores 0; the target must be hit exactly |
| ``bust_penalty`` | 0 | 0 | 500 | TT-9e: points lost for ``bust_penalty_after`` busts in a row, 0 .. 1 000 000 |
| ``bust_penalty_after`` | 3 | 3 | 3 | TT-9e, 1 .. 100 |
| ``straight`` | 1000 | 1500 | 1500 | 1-2-3-4-5-6 (TT-5), a multiple of 50, 50 .. 1 000 000 |
| ``three_pairs`` | 1500 | 1500 | 750 | three pairs, six dice (TT-5), a multiple of 50, 50 .. 1 000 000 |
| ``four_and_pair_is_three_pairs`` | False | True | True | whether 4-4-6-6-6-6 is three pairs (TT-5) |
| ``n_of_a_kind`` | ``"linear"`` | ``"doubling"`` | ``"doubling"`` | four, five, six of a kind: (k−2)× or 2×, 4×, 8× the triple |
| ``first_starter`` | 0 | 0 | 0 | the seat that plays first (C-4) |
| ``render_mode`` | | | | ``None``, ``"ansi"`` (``render()`` returns the text) or ``"human"`` (printed after every ``reset`` and ``step``) |
| ``max_cycles`` | | | | truncate after ``max_cycles * N`` actions (``None``: no limit) |

Every game can end (TT-9, docs/rules.md): an ``opening`` or ``min_bank`` given above the ``target`` is
refused with a ``ValueError`` naming both, and so is ``exact_target=True`` with a ``bust_penalty``
that is not a multiple of 50 (a penalised player could never hit the target exactly). A preset's
``opening`` or ``min_bank`` above a smaller ``target`` given by the user (``target=500`` with
``dk``'s opening 1000) is lowered to the target instead. The upper bounds of the point options are
far above any game a person plays; they keep every observation bound an exact float32 number.
Can end is not will end: with a bust penalty and settings that make banking hard (``bust_penalty``
1000 after every bust with a small ``target``; ``farkle`` with a high ``min_bank``,
``over_threshold`` and ``confirm_combinations``) a random or newly initialised policy busts far more
than it banks, and its total falls without limit (past minus 800 000 within 100 000 random steps).
Pass ``max_cycles`` when training on such settings.

Scoring (TT-5), per preset:

| combination | ``dk`` | ``no`` | ``farkle`` |
|---|---|---|---|
| single 1 / single 5 | 100 / 50 | 100 / 50 | 100 / 50 |
| three 1s; three of face N | 1000; 100·N | 1000; 100·N | 1000; 100·N |
| four, five, six of a kind | 2×, 3×, 4× the triple | 2×, 4×, 8× | 2×, 4×, 8× |
| straight | 1000 | 1500 | 1500 |
| three pairs | 1500, three different values | 1500, 4-4-6-6-6-6 counts | 750, 4-4-6-6-6-6 counts |

End of the game (TT-8): ``"finish_round"``: after the bank that reaches the target, the rest of
the round is played (the round runs from ``first_starter`` clockwise, seat 0 .. N-1 by default),
so that everyone has had as many turns; ``"last_turn_each"`` (sluttrunde): every other player
gets exactly one more turn; ``"immediate"``: the first to reach the target wins at once. Then the
highest total wins; players level on it share the win.

Interpretations (docs/rules.md, and decisions where it is silent):

* TT-7: the opening threshold applies to a player's first bank of the game ("første gang man skal
  på listen").
* TT-9b: "overstiger 10 000" reads as reaching at least the target; at target − 1000 or more
  that condition replaces ``min_bank`` (seed 004: the 300 rule "bortfalder" above 9 000), so a
  player on 9 900 may bank 100 to reach 10 000.
* TT-9c: a single 1 or 5 in the same selection as the combination does not confirm it; a selection
  of 1s and 5s only confirms. When equally valued splits of a selection differ, the split without a
  combination counts.
* TT-9d: banking past the target is allowed and scores 0 for the turn (nothing is written, so it
  does not put an unopened player på listen); it is not a bust. A bank that brings the total exactly
  to the target is always allowed by the thresholds: ``min_bank``, ``over_threshold`` and the
  opening do not apply to it (seed 004's 300 rule "bortfalder" near the end), so a player on 9 900
  may bank 100. Hot dice (TT-4) and confirmation (TT-9c) still apply to it: neither can keep a
  player from the target for good, as a single 1 or 5 kept with dice left makes the same total.
* TT-9e: the penalty size is not in seed 002 (0 in ``no`` unless set; 500 in ``farkle``); any
  bank ends a run of busts; totals may go below zero.
* TT-4: docs/rules.md names no option for the compulsory hot-dice roll; it is ``hot_dice_must_roll``.
* TT-5 with ``four_and_pair_is_three_pairs``: pairs need not differ, so six of a kind may also
  score as three pairs, whichever is worth more.
* ``no`` preset: opening 500, sluttrunde on, 4-4-6-6-6-6 counting as three pairs (seed 002 is
  silent).
* TT-8 ``last_turn_each``: reaching the target again during the last turns does not give anyone
  another turn.

Illegal actions: ``raw_env`` raises ``ValueError`` naming the action; ``env()`` ends the game with
-1 for the offender and 0 for everyone else (PettingZoo's ``TerminateIllegalWrapper``).

Version history:

* v0: first release.
* v1: every game can end (TT-9d as docs/rules.md now states it): under ``exact_target`` a bank that hits
  the target exactly is allowed below ``min_bank``, the opening and the ``over_threshold`` rule (in
  v0 a dk player within 300 of the target could never finish); option combinations under which a
  player could never finish are refused; a preset's opening or minimum bank above a smaller target
  is lowered to it; every option has an upper bound. The observation layout and action ids are
  unchanged.
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv, ParallelEnv

from dice_envs.env import DiceGameEnv, env_metadata, to_parallel, wrap
from dice_envs.games import tenthousand


class raw_env(DiceGameEnv):
    """Ten thousand without wrappers; see the module docstring."""

    game_class = tenthousand.Game
    metadata = env_metadata("tenthousand_v1")


def env(**kwargs: Any) -> AECEnv:
    """Ten thousand in PettingZoo's standard wrappers; keyword arguments as for :class:`raw_env`."""
    return wrap(raw_env(**kwargs))


def parallel_env(**kwargs: Any) -> ParallelEnv:
    """Ten thousand under PettingZoo's parallel API (``turn_based_aec_to_parallel`` of :func:`env`): one
    agent acts per step, the others' masks are all zeros; keyword arguments as for :class:`raw_env`."""
    return to_parallel(env(**kwargs))


__all__ = ["env", "parallel_env", "raw_env"]
