"""Syvere: an agent that plays the best response once three or fewer players are left.

The best response to standings-blind opponents (:mod:`agents.solvers.syvere_response`) needs 6.3 GB
with four players, but its 2- and 3-player phases take seconds (about 5 s on 2 free cores at the default
options, 8 s with ``max_rolls`` 5; :func:`~agents.solvers.syvere_response.endgame_tables`) and about
180 MB, and they do not depend on how many players the game began with. This agent plays them:

* while four or more players are still in, it plays ``before`` (by default the one-turn solver
  with the starter's margin, ``optimal:starter_weight=3/4``);
* from a decision with two or three players still in, it plays the turn that maximises its chance
  of winning against ``opponent`` (the built-in ``heuristic`` by default), from the solved values of
  every way its turn can end (:func:`~agents.solvers._syvere_response_kernel.turn_ends`).

Where it is not exact: the solver's 3-player phase values a tie on points when all three go out in
one round at ``ties`` (it does not keep the totals before the round); its phases keep only the
players in at a round's start, and the observation does not say which of the players who are out
went out in the current round. So when a player went out earlier in the round, this agent plays the
phase of the players still in (the rest of the round is the same; its next starter too), and in the
one case where those players all go out as well (SY-9: fewest points, then fewest before the round),
the earlier player's points are not counted. With everyone else out it values the tie on points at
1/2 (the totals before the round decide it, and they are not observed), and it counts every player
who is out, also those who went out in earlier rounds: a guess, which can value a winning end at 0.
These cases are rare at the default elimination: the win rates below match the best response's with
2 and 3 players.

What it wins (elimination 77, ``heuristic`` in every other seat, seats rotated, 40 000 games each,
``dice-envs match syvere --num-players N --agents endgame heuristic ... --games 40000 --seed 7``, 95%
Wilson intervals):

* 2 players: 0.587 [0.582, 0.591]; the best response wins exactly 0.588157;
* 3 players: 0.401 [0.396, 0.405]; the best response wins between 0.4003 and 0.4017;
* 4 players: 0.298 [0.293, 0.302]; the best response wins at least 0.3006, ``before`` alone
  (``optimal:starter_weight=3/4``) 0.295 (8000 games, seed 77). With four players in, the
  best response needs the 4-player phase, which this agent does not hold.
"""

from fractions import Fraction

import numpy as np

from agents.base import Agent, legal_of, one_hot
from dice_envs.games import syvere

#: The tables of each option set, loaded once per process: several agents (all seats of a match) share them.
_TABLES: dict[tuple, dict[str, np.ndarray]] = {}


def _check_game(game) -> None:
    """Refuse a game the agent cannot play (before anything is built or solved)."""
    if not isinstance(game, syvere.Game):
        raise ValueError(f"EndgameAgent plays syvere, not {getattr(game, 'name', game)!r}")
    if game.next_starter != "right":
        raise ValueError(
            "EndgameAgent needs next_starter='right' (the default): with 'left' the next starter "
            "depends on a starter who may have gone out, which it cannot see"
        )


def load_tables(game: syvere.Game, opponent: str = "heuristic", ties: Fraction = Fraction(0), cache_dir=None,
                progress: bool = False, bar: bool = True) -> dict[str, np.ndarray]:  # fmt: skip
    """The tables :class:`EndgameAgent` plays ``game`` from against ``opponent`` (the best response's 2- and
    3-player phases, :func:`agents.solvers.syvere_response.endgame_tables`): read from the solver cache, or
    solved and kept there on first use; then held for the rest of the process (the agents built later
    share them).

    Args:
        cache_dir: the solver cache (default: ``$DICE_ENVS_CACHE_DIR``, else the user cache directory).
        progress: when the tables are solved (not when they are read), say so on stderr in one line with
            the estimated time, then, with ``bar``, show a progress bar per phase (tqdm, when installed; on
            a terminal it is redrawn and then removed, in a log a line at most every 30 s and at the end).
            ``False``: nothing on stderr.

    Raises:
        ValueError: a game the agent does not play (not Syvere, ``next_starter="left"``), ``max_rolls``
            above 6, ``ties`` not 0 or 1, or an opponent that draws at random or reads the totals: all
            refused before anything is announced or solved.
    """
    _check_game(game)
    from agents.solvers import syvere_response as sr

    key = (game.elimination, game.max_rolls, opponent, float(ties))
    if key not in _TABLES:
        _TABLES[key] = sr.endgame_tables(game.elimination, game.max_rolls, "right", opponent, float(ties),
                                         progress=progress, cache_dir=cache_dir, bar=bar)  # fmt: skip
    return _TABLES[key]


class EndgameAgent(Agent):
    """Plays ``before`` while four or more players are in, and the best response against
    ``opponent`` once three or fewer are (solved on first use, then read from the solver cache;
    see the module's docstring for the rare cases where it is not exact).

    It assumes every other player plays ``opponent``: against other players it still plays legal,
    sensible turns, but no longer the best ones. With three or fewer in it is deterministic (all
    probability on its action); before that, its policy is ``before``'s.

    Args:
        game: a :class:`dice_envs.games.syvere.Game` with ``next_starter="right"`` (the default).
        seed: seeds ``before`` (the only part that may draw at random).
        opponent: SPEC of the standings-blind agent the others play (default ``heuristic``).
        before: SPEC of the agent it plays while four or more players are in.
        ties: how the solver valued the rounds where everyone still in goes out on equal points with
            three players (0 lost, 1 won; see :mod:`agents.solvers.syvere_response`).
    """

    name = "endgame"
    game: syvere.Game

    def __init__(self, game: syvere.Game, seed: int | None = None, opponent: str = "heuristic",
                 before: str = "optimal:starter_weight=3/4", ties: Fraction = Fraction(0)):  # fmt: skip
        super().__init__(game, seed)
        _check_game(game)
        from agents import spec as agent_spec
        from agents.solvers import _syvere_response_kernel as kern
        from agents.solvers import syvere_response as sr

        self.opponent, self.before_spec, self.ties = opponent, before, Fraction(ties)
        self._before = agent_spec.build(game, before, seed=seed)
        self._phases = {}
        if not game.has_decisions():
            return  # max_rolls=1: it is never asked to act, so nothing is solved
        # A first build is announced on stderr in one line with its estimated time, without a bar (as the
        # other solver agents do: the caller's own bars, or its --quiet / --no-progress, keep stderr),
        # before any game of the caller is played. A command that shows the build's bars, or hides even
        # its announcement, builds the tables first with load_tables (as `solve syvere --describe` does).
        t = load_tables(game, opponent, self.ties, progress=True, bar=False)
        E = game.elimination
        for A in (2, 3):
            mode, D = sr._axis(A, E)
            self._phases[A] = (D, mode, t[f"G{A}"], t[f"R{A}"])
        self._kern = kern
        self._tables = sr.roll_tables()
        self._pol = sr.no_policy(game.max_rolls)
        self._U = np.zeros((game.max_rolls + 1, 37))
        self._Q = np.zeros((7, game.max_rolls + 1))
        self._t = np.zeros(4, np.int64)
        self._n = game.num_players
        self._k = 3 * game.num_players

    def __repr__(self) -> str:
        return f"EndgameAgent(opponent={self.opponent!r}, before={self.before_spec!r}, ties={self.ties})"

    def values(self, observation: np.ndarray) -> tuple[float, float] | None:
        """The win chance of stopping and of rolling at this decision, or ``None`` while four or more
        players are in (then ``before`` decides). With one player in (this one, the others went out,
        one at least in this round) its turn decides the game alone."""
        n, k, E, M = self._n, self._k, self.game.elimination, self.game.max_rolls
        ins = [i for i in range(n) if observation[n + i] > 0.5]  # seats clockwise from this player
        A = len(ins)
        if A > 3 or not ins or ins[0] != 0:
            return None
        made, limit, dice_left = int(observation[k]), int(observation[k + 1]), int(observation[k + 2])
        held = int(round(float(observation[k + 9])))
        starter = bool(observation[k + 10])
        kern = self._kern
        if A == 1:
            # Everyone else went out, at least one of them in this round: staying under E wins; going
            # out too wins on fewer points than every player who is out (those who went out in earlier
            # rounds cannot be told apart, so all of them count: a guess), and an equal number of
            # points, which the totals before the round decide, is valued 1/2.
            old = int(round(float(observation[0])))
            least = min(int(round(float(observation[i]))) for i in range(1, n))
            U = self._U
            for x in range(37):
                new = old + x
                U[0, x] = 1.0 if new < E or new < least else (0.5 if new == least else 0.0)
        else:
            after = int(observation[k + 11])  # players still to play in this round, all still in
            # On the axes of the players in now (this one at 0, the others clockwise), the round's stages
            # from this turn on are those of a round started by the first player after the last to play:
            # the next starter (nearest player still in to the right of the real starter) is the same.
            s, j = (after + 1) % A, A - 1 - after
            t = self._t
            for i, seat in enumerate(ins):
                t[i] = int(round(float(observation[seat])))
            D, mode, G, R = self._phases[A]
            D3, _, _, R3 = self._phases[3]
            D2, _, _, R2 = self._phases[2]
            kern.turn_ends(t, A, D, E, M, mode, True, s, j, limit, starter, G, R, R3, D3, R2, D2,
                           float(self.ties), self._U)  # fmt: skip
        # (alone in the game this player never started the round: everyone else went out before it)
        kern.turn_value(self._U, self._Q, M if starter else limit, starter, True, self._pol, *self._tables)
        stop = self._U[made if starter else 0, held]
        return float(stop), float(self._Q[dice_left, made])

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._before.reset(seed)

    def _choice(self, observation: np.ndarray, action_mask: np.ndarray) -> int | None:
        """This agent's own action, or ``None`` when ``before`` decides."""
        legal = legal_of(action_mask, "EndgameAgent")
        if len(legal) == 1:
            return int(legal[0])
        v = self.values(observation)
        if v is None:
            return None
        return syvere.STOP if v[0] >= v[1] else syvere.ROLL

    def action_probabilities(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        self.check_mask(action_mask)
        action = self._choice(observation, action_mask)
        if action is None:
            return self._before.action_probabilities(observation, action_mask)
        return one_hot(self.game.num_actions, action)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        action = self._choice(observation, action_mask)
        return self._before.act(observation, action_mask) if action is None else action
