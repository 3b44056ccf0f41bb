"""dice-envs: PettingZoo environments for three Nordic dice games.

Importing the package registers every env in PettingZoo's registry::

    import pettingzoo
    import dice_envs  # registers dice/syvere-v0, ...

    env = pettingzoo.make("aec", "dice/syvere-v0", num_players=4)

The pure rules engines live in :mod:`dice_envs.games`; the one AEC adapter in :mod:`dice_envs.env`.
"""

from __future__ import annotations

from dice_envs.registry import ENVS, register_envs

__version__ = "0.1.0"

register_envs()

__all__ = ["ENVS", "__version__", "register_envs"]
