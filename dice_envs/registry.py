"""The envs of this package and their registration in PettingZoo's registry."""

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


def register_envs() -> None:
    """Register every env in PettingZoo's AEC registry (done on ``import dice_envs``)."""
    for env_id, module in ENVS.items():
        if env_id not in pettingzoo.aec_registry:
            pettingzoo.register("aec", env_id, entry_point=f"{module}:env")


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
