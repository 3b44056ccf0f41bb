"""Agents that play any dice-envs env: random, heuristics, and (later) solvers and trained models.

``AGENTS[game_name][agent_name]`` is the agent class; :func:`make_agent` builds one.
"""

from __future__ import annotations

from agents.base import Agent, RandomAgent
from agents.meyer import BayesianDoubter, BlufferAgent, HonestAgent
from agents.syvere import SyvereHeuristic
from agents.tenthousand import GreedyAgent, ThresholdAgent

AGENTS: dict[str, dict[str, type[Agent]]] = {
    "syvere": {"random": RandomAgent, "heuristic": SyvereHeuristic},
    "tenthousand": {"random": RandomAgent, "greedy": GreedyAgent, "heuristic": ThresholdAgent},
    "meyer": {"random": RandomAgent, "honest": HonestAgent, "bluffer": BlufferAgent, "doubter": BayesianDoubter},
}

# The strongest built-in agent of each game: the opponent for `dice-envs play`.
BEST: dict[str, str] = {"syvere": "heuristic", "tenthousand": "heuristic", "meyer": "doubter"}


def make_agent(game, agent_name: str, seed: int | None = None, **params) -> Agent:
    """Build the agent called ``agent_name`` for ``game`` (a rules engine)."""
    table = AGENTS.get(game.name, {"random": RandomAgent})
    if agent_name not in table:
        raise ValueError(
            f"unknown agent {agent_name!r} for {game.name}; choose from {', '.join(sorted(table))}"
        )
    return table[agent_name](game, seed=seed, **params)


__all__ = ["AGENTS", "BEST", "Agent", "RandomAgent", "make_agent"]
