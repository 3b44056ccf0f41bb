"""Play agents against each other and report win rates with confidence intervals.

Example:
    >>> from evaluate.match import play_match
    >>> result = play_match("dice/syvere-v0", ["heuristic", "random"], num_games=20, seed=0)
    >>> print(result.table())  # doctest: +SKIP
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field

import numpy as np

import dice_envs  # noqa: F401  (registers the envs)
from agents import make_agent
from dice_envs.registry import env_module

Z95 = 1.959963984540054  # two-sided 95% normal quantile


def mean_ci(values, z: float = Z95) -> tuple[float, float, float]:
    """Mean and a normal-approximation confidence interval ``(mean, low, high)``."""
    x = np.asarray(values, dtype=float)
    if len(x) == 0:
        raise ValueError("mean_ci needs at least one value")
    mean = float(x.mean())
    if len(x) == 1:
        return mean, mean, mean
    half = z * float(x.std(ddof=1)) / math.sqrt(len(x))
    return mean, mean - half, mean + half


@dataclass
class AgentRecord:
    """One entrant's results over a match."""

    label: str
    win_shares: list[float] = field(default_factory=list)  # 1 for a win, 1/k for a k-way tie
    returns: list[float] = field(default_factory=list)

    @property
    def games(self) -> int:
        return len(self.returns)

    def win_rate(self) -> tuple[float, float, float]:
        """Win rate (ties shared) with its 95% confidence interval."""
        return mean_ci(self.win_shares)

    def mean_return(self) -> tuple[float, float, float]:
        return mean_ci(self.returns)


@dataclass
class MatchResult:
    """What :func:`play_match` returns: one record per entrant, in the order given."""

    env_id: str
    options: dict
    records: list[AgentRecord]
    num_games: int
    seed: int

    def table(self) -> str:
        """A plain-text table: entrant, games, win rate with 95% CI, mean return."""
        opts = ", ".join(f"{k}={v!r}" for k, v in self.options.items()) or "defaults"
        lines = [
            f"{self.env_id} ({opts}), {self.num_games} games, seed {self.seed}, seats rotated",
            f"{'agent':<24} {'games':>6} {'win rate':>9} {'95% CI':>17} {'mean return':>12}",
        ]
        for rec in self.records:
            w, lo, hi = rec.win_rate()
            r, _, _ = rec.mean_return()
            lines.append(
                f"{rec.label:<24} {rec.games:>6} {w:>9.3f} {f'[{lo:.3f}, {hi:.3f}]':>17} {r:>12.3f}"
            )
        return "\n".join(lines)


def _label(spec, index: int, specs) -> str:
    name = spec if isinstance(spec, str) else spec[0]
    if isinstance(spec, tuple) and spec[1]:
        name += "(" + ",".join(f"{k}={v}" for k, v in spec[1].items()) + ")"
    same = [s for s in specs if s == spec]
    return f"{name}#{index}" if len(same) > 1 else name


def play_match(
    env_id: str,
    agent_specs,
    num_games: int,
    seed: int = 0,
    options: dict | None = None,
    progress: bool = False,
) -> MatchResult:
    """Play ``num_games`` games between the given agents, rotating their seats every game.

    Args:
        env_id: a registered env (``dice/syvere-v0``) or its short name (``syvere``).
        agent_specs: one entry per seat: an agent name (``"heuristic"``) or
            ``(name, params)``. ``num_players`` defaults to the number of entries.
        num_games: games to play; game ``g`` seats entrant ``i`` at seat ``(i + g) % N``.
        seed: seeds the dice (each game's seed is drawn from ``numpy.random.SeedSequence(seed)``,
            so matches with different seeds share no games) and the agents.
        options: the game's options.
        progress: print a progress line to stderr every 10% of the games.
    """
    if num_games < 1:
        raise ValueError(f"num_games must be at least 1, got {num_games}")
    specs = list(agent_specs)
    options = dict(options or {})
    for name in ("max_cycles", "render_mode"):
        if name in options:
            raise ValueError(f"{name} is not an option of a match: its games are played to the end, unseen")
    options.setdefault("num_players", len(specs))
    if options["num_players"] != len(specs):
        raise ValueError(
            f"{len(specs)} agents given for num_players={options['num_players']}; give one per seat"
        )
    env = env_module(env_id).raw_env(**options)
    game = env.game
    agents = []
    for i, spec in enumerate(specs):
        name, params = (spec, {}) if isinstance(spec, str) else spec
        agents.append(make_agent(game, name, seed=seed * 1000 + i, **params))
    records = [AgentRecord(_label(spec, i, specs)) for i, spec in enumerate(specs)]
    n = len(specs)
    step = max(1, num_games // 10)
    game_seeds = np.random.SeedSequence(seed).generate_state(num_games).tolist()
    for g in range(num_games):
        seat_of = [(i + g) % n for i in range(n)]  # entrant -> seat
        entrant_at = {seat: i for i, seat in enumerate(seat_of)}
        for agent in agents:
            agent.reset()
        env.reset(seed=game_seeds[g])
        for agent_id in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            entrant = entrant_at[int(agent_id.rsplit("_", 1)[1])]
            env.step(agents[entrant].act(obs["observation"], obs["action_mask"]))
        returns = game.returns(env.game_state)
        # C-3: winners have positive returns; all zeros means everyone shared the win.
        winners = [s for s in range(n) if returns[s] > 0] if any(returns) else list(range(n))
        for i, rec in enumerate(records):
            seat = seat_of[i]
            rec.returns.append(returns[seat])
            rec.win_shares.append(1.0 / len(winners) if seat in winners else 0.0)
        if progress and (g + 1) % step == 0:
            print(f"  {g + 1}/{num_games} games", file=sys.stderr, flush=True)
    return MatchResult(env_id, options, records, num_games, seed)
