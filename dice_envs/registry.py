"""The envs of this package and their registration in PettingZoo's and Gymnasium's registries."""

from __future__ import annotations

import importlib
from types import ModuleType

import pettingzoo

# registry id -> module holding ``env`` and ``raw_env``; one line per game.
ENVS: dict[str, str] = {
    "dice/syvere-v0": "dice_envs.syvere_v0",
    "dice/meyer-v0": "dice_envs.meyer_v0",
    "dice/tenthousand-v1": "dice_envs.tenthousand_v1",
}


#: Gymnasium id -> entry point of the single-agent view (one seat against opponents, in
#: :mod:`train.view`). String entry points: nothing is imported until ``gymnasium.make``.
GYM_ENVS: dict[str, str] = {
    "dice/Syvere-v0": "train.view:make_syvere",
    "dice/TenThousand-v0": "train.view:make_tenthousand",
    "dice/Meyer-v0": "train.view:make_meyer",
}

#: Env modules of earlier versions -> the module that replaced them.
REPLACED: dict[str, str] = {"tenthousand_v0": "tenthousand_v1"}


def register_envs() -> None:
    """Register every env in PettingZoo's AEC registry and every single-agent view in Gymnasium's
    (done on ``import dice_envs``; registering again changes nothing)."""
    import gymnasium  # already imported by pettingzoo

    for env_id, module in ENVS.items():
        if env_id not in pettingzoo.aec_registry:
            pettingzoo.register("aec", env_id, entry_point=f"{module}:env")
    for gym_id, entry_point in GYM_ENVS.items():
        if gym_id not in gymnasium.registry:
            gymnasium.register(id=gym_id, entry_point=entry_point)


def module_names() -> list[str]:
    """The env modules' names as attributes of the package: ``["syvere_v0", ...]``."""
    return [module.rsplit(".", 1)[1] for module in ENVS.values()]


def env_id(name: str) -> str:
    """The registry id of an env given by short name (``"tenthousand"`` -> ``"dice/tenthousand-v1"``).

    Code and tests should name envs this way: an env's version goes up when its dynamics change.
    A full registry id is returned unchanged.
    """
    for full_id in ENVS:
        if name in (full_id, full_id.split("/", 1)[1].rsplit("-v", 1)[0]):
            return full_id
    known = ", ".join(sorted(ENVS))
    raise ValueError(f"unknown env {name!r}; known envs: {known}")


def env_module(env_id: str) -> ModuleType:
    """The module of a registered env, by id (``dice/syvere-v0``) or short name (``syvere``)."""
    for full_id, module in ENVS.items():
        short = full_id.split("/", 1)[1].rsplit("-v", 1)[0]
        if env_id in (full_id, short):
            return importlib.import_module(module)
    known = ", ".join(sorted(ENVS))
    raise ValueError(f"unknown env {env_id!r}; known envs: {known}")
