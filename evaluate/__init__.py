"""Evaluation: matches and tournaments between agents, ratings, intervals over deals, the results store, reports, exploitability.

* :mod:`evaluate.match` — :func:`~evaluate.match.play_match`: agents against each other, seats rotated,
  win rates with 95% intervals over the deals (``dice-envs match``).
* :mod:`evaluate.tournament` — :func:`~evaluate.tournament.run_tournament`: every table of the entrants,
  every deal in every rotation of the seats, common dice, results kept (``dice-envs tournament``);
  :func:`~evaluate.tournament.replay_states` replays a stored game (``dice-envs replay``).
* :mod:`evaluate.ratings` — :func:`~evaluate.ratings.leaderboard`: ratings with bootstrap intervals,
  the head-to-head :class:`~evaluate.ratings.PairMatrix`, Holm-adjusted comparisons.
* :mod:`evaluate.stats` — Wilson intervals (with Poisson ends) and intervals over deals.
* :mod:`evaluate.store` — :class:`~evaluate.store.ResultStore`, the SQLite file of a tournament's games.
* :mod:`evaluate.report` — the leaderboard in the terminal, CSV, JSON and pictures.
* :mod:`evaluate.exploitability` — exact best responses in two-player Meyer:
  :func:`~evaluate.exploitability.exploitability`, :func:`~evaluate.exploitability.head_to_head`,
  :func:`~evaluate.exploitability.describe_best_response` (``dice-envs solve meyer --exploitability``).
* :mod:`evaluate.ray_backend` — tournament games on a Ray cluster (the ``ray`` extra).

Agents come from SPECs (:func:`agents.make_agent`); docs/tournaments.md tells the formats.
"""
