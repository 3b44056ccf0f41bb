"""dice-envs: PettingZoo environments for three Nordic dice games.

Importing the package registers every env in PettingZoo's registry, and the single-agent views
(one seat against opponents, :mod:`train.view`) in Gymnasium's::

    import pettingzoo
    import dice_envs  # registers dice/syvere-v0, ... and dice/Syvere-v0, ...

    env = pettingzoo.make("aec", "dice/syvere-v0", num_players=4)
    env = dice_envs.syvere_v0.env(num_players=4)  # the same env; the module is imported on first use

The env modules (``syvere_v0``, ``meyer_v0``, ``tenthousand_v1``) are attributes of the package,
imported on first access, so ``import dice_envs`` stays light. The pure rules engines live in
:mod:`dice_envs.games`; the one AEC adapter in :mod:`dice_envs.env`.
"""

from __future__ import annotations

import importlib

from dice_envs.registry import ENVS, REPLACED, module_names, register_envs

__version__ = "0.1.0"

register_envs()

__all__ = ["ENVS", "__version__", "register_envs", *module_names()]


def __getattr__(name: str):
    # PEP 562: the env modules are imported when first asked for, not on ``import dice_envs``.
    if name in module_names():
        return importlib.import_module(f"{__name__}.{name}")
    if name in REPLACED:
        raise AttributeError(
            f"module {__name__!r} has no attribute {name!r}: it was replaced by {REPLACED[name]!r} "
            "(see its docstring's version history)"
        )
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(module_names()))
