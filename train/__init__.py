"""Training: MaskablePPO (sb3-contrib on torch) against agents and past snapshots, for every game.

* :mod:`train.view` — the single-agent Gymnasium view of a game (no torch), registered as
  ``dice/Syvere-v0``, ``dice/TenThousand-v0``, ``dice/Meyer-v0``.
* :mod:`train.config` — the arguments dataclass and each game's default recipe.
* :mod:`train.trainer` — the resumable training loop; :mod:`train.cli` — ``dice-envs train``.
* :mod:`train.evaluation`, :mod:`train.benchmark` — win rates with seats rotated and Wilson intervals.

The checkpoint format is :mod:`agents.checkpoint`. The ``train`` extra installs the dependencies.
"""
