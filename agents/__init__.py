"""Agents that play any dice-envs env: random, heuristics, solvers and trained models.

``AGENTS[game_name][agent_name]`` is the agent's class, or a lazy ``"module:Class"`` string for
agents whose modules are heavy (solvers, trained networks): listing the agents never imports
them, and a lazy entry whose module is missing says so when it is used. :func:`make_agent` builds
an agent from a SPEC (``agents.spec``, docs/cli.md).

>>> from dice_envs.games import meyer
>>> make_agent(meyer.Game(), "bluffer:lie_probability=1/3", seed=0)
BlufferAgent(lie_probability=1/3, doubt_below=1/2)
"""

from __future__ import annotations

import os

from agents.base import Agent, DeterministicAgent, RandomAgent, check_fits
from agents.meyer import BayesianDoubter, BlufferAgent, HonestAgent
from agents.syvere import SyvereHeuristic
from agents.tenthousand import GreedyAgent, ThresholdAgent

#: The agents of each game by name: classes, or ``"module:Class"`` strings imported on first use.
AGENTS: dict[str, dict[str, type[Agent] | str]] = {
    "syvere": {
        "random": RandomAgent,
        "heuristic": SyvereHeuristic,
        "optimal": "agents.solvers.syvere:OptimalAgent",
        "endgame": "agents.solvers.syvere_endgame:EndgameAgent",
        "trained": "agents.checkpoint:TrainedAgent",
    },
    "tenthousand": {
        "random": RandomAgent,
        "greedy": GreedyAgent,
        "heuristic": ThresholdAgent,
        "optimal": "agents.solvers.tenthousand:OptimalAgent",
        "winprob": "agents.solvers.tenthousand_win:WinProbAgent",
        "trained": "agents.checkpoint:TrainedAgent",
    },
    "meyer": {
        "random": RandomAgent,
        "honest": HonestAgent,
        "bluffer": BlufferAgent,
        "doubter": BayesianDoubter,
        "equilibrium": "agents.solvers.meyer:EquilibriumAgent",
        "trained": "agents.checkpoint:TrainedAgent",
    },
}

# The hand-written opponent of each game for `dice-envs play` and `match` (the solver and trained
# agents are stronger, but some build tables or need the [train] extra first).
BEST: dict[str, str] = {"syvere": "heuristic", "tenthousand": "heuristic", "meyer": "doubter"}


def make_agent(game, spec: str | os.PathLike, seed: int | None = None, **params) -> Agent:
    """Build the agent a SPEC names for ``game``.

    Args:
        game: a rules engine (``dice_envs.games.meyer.Game(...)``), or a game's short name for
            its default options.
        spec: ``NAME``, ``NAME:KEY=VALUE,...``, a registered class name (``"BlufferAgent"``) or a
            checkpoint path (text or a ``pathlib.Path``, loaded by ``agents.checkpoint.load_agent``).
        seed: seeds the agent's random choices (a whole number >= 0, or ``None``).
        **params: parameters as Python values of the types the agent declares (``greedy=False``,
            not ``"false"``: text is read by type only inside a SPEC); they override the SPEC's.

    Raises:
        ValueError: an unknown agent (listing the game's agents), a bad key or value (naming the
            agent, the key and its type: :class:`dice_envs.errors.InvalidSpecError`), a bad seed,
            or an agent that is not available in this installation.
    """
    from agents.spec import build

    text = os.fspath(spec) if isinstance(spec, os.PathLike) else spec
    if isinstance(game, str):
        from dice_envs.registry import env_module

        game = env_module(game).raw_env.game_class()
    return build(game, text, seed=seed, **params)


__all__ = [
    "AGENTS", "BEST", "Agent", "BayesianDoubter", "BlufferAgent", "DeterministicAgent", "GreedyAgent", "HonestAgent",
    "RandomAgent", "SyvereHeuristic", "ThresholdAgent", "check_fits", "make_agent",
]  # fmt: skip
