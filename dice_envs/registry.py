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


#: Gymnasium id -> the game of its single-agent view (one seat against opponents,
#: :class:`train.view.SingleAgentView`). A view's version is its own: it goes up when the view's
#: behaviour or the dynamics of the env it wraps change, so ``dice/TenThousand-v0``, the first
#: view of 10 000, wraps ``dice/tenthousand-v1``. Name them by game with :func:`gym_id`.
GYM_ENVS: dict[str, str] = {
    "dice/Syvere-v0": "syvere",
    "dice/TenThousand-v0": "tenthousand",
    "dice/Meyer-v0": "meyer",
}


def _view(game: str, kwargs: dict):
    # Through import_own: a train.py or agents.py of the user's hiding ours gets a message naming it.
    from dice_envs.extras import import_own

    return import_own("train.view").SingleAgentView(game, **kwargs)


# The Gymnasium entry points (strings naming these, so nothing is imported until gymnasium.make).
def make_syvere_view(**kwargs):
    """``gymnasium.make("dice/Syvere-v0", ...)``: :class:`train.view.SingleAgentView` of Syvere."""
    return _view("syvere", kwargs)


def make_tenthousand_view(**kwargs):
    """``gymnasium.make("dice/TenThousand-v0", ...)``: the single-agent view of 10 000."""
    return _view("tenthousand", kwargs)


def make_meyer_view(**kwargs):
    """``gymnasium.make("dice/Meyer-v0", ...)``: the single-agent view of Meyer."""
    return _view("meyer", kwargs)


#: Env modules of earlier versions -> the module that replaced them.
REPLACED: dict[str, str] = {"tenthousand_v0": "tenthousand_v1"}


def register_envs() -> None:
    """Register every env in PettingZoo's AEC and parallel registries and every single-agent view in
    Gymnasium's (done on ``import dice_envs``; registering again changes nothing)."""
    import gymnasium  # already imported by pettingzoo

    for env_id, module in ENVS.items():
        if env_id not in pettingzoo.aec_registry:
            pettingzoo.register("aec", env_id, entry_point=f"{module}:env")
        if env_id not in pettingzoo.parallel_registry:
            pettingzoo.register("parallel", env_id, entry_point=f"{module}:parallel_env")
    for view_id, game in GYM_ENVS.items():
        if view_id not in gymnasium.registry:
            gymnasium.register(id=view_id, entry_point=f"{__name__}:make_{game}_view")


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


def gym_id(name: str) -> str:
    """The Gymnasium id of a game's single-agent view, by short name (``"tenthousand"`` ->
    ``"dice/TenThousand-v0"``); a view's id is returned unchanged."""
    for full_id, game in GYM_ENVS.items():
        if name in (full_id, game):
            return full_id
    raise ValueError(f"unknown game {name!r}; the single-agent views are {', '.join(GYM_ENVS)}")


def env_module(env_id: str) -> ModuleType:
    """The module of a registered env, by id (``dice/syvere-v0``) or short name (``syvere``)."""
    for full_id, module in ENVS.items():
        short = full_id.split("/", 1)[1].rsplit("-v", 1)[0]
        if env_id in (full_id, short):
            return importlib.import_module(module)
    known = ", ".join(sorted(ENVS))
    raise ValueError(f"unknown env {env_id!r}; known envs: {known}")
