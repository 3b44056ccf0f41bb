"""Your own Stable-Baselines3 model as a dice-envs checkpoint: :func:`save_sb3`.

A model trained in your own loop on the Gymnasium view (``gymnasium.make("dice/Meyer-v0", ...)``)
with SB3's ``PPO`` or sb3-contrib's ``MaskablePPO`` and the default ``MlpPolicy`` becomes a
checkpoint that ``play``, ``match``, ``tournament`` and ``agents.make_agent`` load by its path,
safely (``agents.checkpoint``: weights in safetensors, no pickle). Only the policy network is kept,
with the observation normalisation of the model's ``VecNormalize``, which changes the policy as
much as the weights do: it is read from the model's env when not given, and a model trained on
normalised observations cannot be saved without it.

Example (a few hundred steps, as in the tests)::

    import gymnasium
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import VecNormalize

    import dice_envs  # registers the views
    from train.export import save_sb3

    venv = VecNormalize(make_vec_env("dice/Meyer-v0", n_envs=4, env_kwargs={"opponents": ["honest"], "lives": 2}),
                        norm_reward=False)
    model = MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=64).learn(512)
    save_sb3(model, "runs/mine/policy", venv.get_attr("engine")[0])   # then: dice-envs play meyer --lives 2 --opponents runs/mine/policy
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

#: The activations a checkpoint can hold, by the torch module that applies them.
_ACTIVATIONS = {"Tanh": "tanh", "ReLU": "relu"}


def policy_layers(policy: Any) -> tuple[list[tuple[np.ndarray, np.ndarray]], tuple[np.ndarray, np.ndarray], str]:
    """The hidden layers, the logits layer and the activation of an SB3 ``ActorCriticPolicy`` MLP."""
    import torch.nn as nn

    extractor = getattr(policy, "mlp_extractor", None)
    net = getattr(extractor, "policy_net", None)
    if net is None or not hasattr(policy, "action_net"):
        raise ValueError(f"save_sb3 saves SB3's MlpPolicy (an ActorCriticPolicy), not {type(policy).__name__}")
    if type(getattr(policy, "features_extractor", None)).__name__ != "FlattenExtractor":
        raise ValueError("save_sb3 needs the MlpPolicy's default features extractor (FlattenExtractor), got "
                         f"{type(getattr(policy, 'features_extractor', None)).__name__}")  # fmt: skip
    layers, activations = [], set()
    for module in net:
        if isinstance(module, nn.Linear):
            layers.append((module.weight.detach().cpu().numpy().copy(), module.bias.detach().cpu().numpy().copy()))
        elif type(module).__name__ in _ACTIVATIONS:
            activations.add(_ACTIVATIONS[type(module).__name__])
        else:
            raise ValueError(f"save_sb3: the policy network has a {type(module).__name__}; a checkpoint holds "
                             "Linear layers with Tanh or ReLU between them")  # fmt: skip
    if len(activations) > 1:
        raise ValueError(f"save_sb3: the policy network mixes activations {sorted(activations)}; a checkpoint has one")
    action = policy.action_net
    return layers, (action.weight.detach().cpu().numpy().copy(), action.bias.detach().cpu().numpy().copy()), (
        activations.pop() if activations else "tanh"
    )


#: ``vec_normalize``'s default: the model's own env's ``VecNormalize``, which must be found.
FROM_MODEL = "from the model"


def normalization_of(vec_normalize: Any) -> dict:
    """A ``VecNormalize``'s observation statistics as a checkpoint holds them (``save_checkpoint``)."""
    rms = vec_normalize.obs_rms
    return {"mean": rms.mean, "var": rms.var, "epsilon": vec_normalize.epsilon, "clip": vec_normalize.clip_obs}


def save_sb3(model: Any, path: str | os.PathLike, engine: Any, vec_normalize: Any = FROM_MODEL, training: dict | None = None) -> Path:
    """Save an SB3 ``PPO``/``MaskablePPO`` model's policy as a dice-envs checkpoint directory.

    Args:
        model: the model (its ``MlpPolicy``: Linear layers with Tanh or ReLU, the default features
            extractor).
        path: the checkpoint directory to write (created if needed).
        engine: the rules engine the model played: the view's ``engine`` attribute
            (``env.unwrapped.engine``; from a vector env ``venv.get_attr("engine")[0]``), which holds
            the game's options.
        vec_normalize: the ``VecNormalize`` the model was trained in (``VecNormalize.load(...)`` for
            a model loaded from files), or ``None`` for a model trained without one; by default the
            one the model's own env has (``model.get_vec_normalize_env()``), and a model without an
            env (``MaskablePPO.load(path)``) is refused rather than saved as if it had none. Its
            observation statistics go into the checkpoint (reward normalisation does not change the
            policy).
        training: a JSON-able note kept in the checkpoint (``policy.json``'s ``training``).

    Returns:
        The checkpoint directory.

    Raises:
        ValueError: a policy the checkpoint format cannot hold, a network whose input or output
            size is not the game's observation or action count, or a model with no env to read its
            ``VecNormalize`` from when none is given.
    """
    from agents.checkpoint import save_checkpoint

    layers, action, activation = policy_layers(model.policy)
    if vec_normalize is FROM_MODEL:
        if model.get_env() is None:
            raise ValueError(
                "save_sb3: the model has no env to read its VecNormalize from (loaded without one?): pass "
                "vec_normalize=VecNormalize.load(...) if it was trained on normalised observations, else "
                "vec_normalize=None"
            )
        vec_normalize = model.get_vec_normalize_env()
    obs_dim = int(layers[0][0].shape[1] if layers else action[0].shape[1])
    want = int(np.prod(np.shape(engine.observation_low)))
    if obs_dim != want or int(action[0].shape[0]) != engine.num_actions:
        raise ValueError(
            f"save_sb3: the network takes {obs_dim} inputs and gives {int(action[0].shape[0])} logits, but "
            f"{engine.name} with these options has {want} observation entries and {engine.num_actions} actions: "
            "pass the engine of the env the model was trained on"
        )
    normalization = normalization_of(vec_normalize) if getattr(vec_normalize, "norm_obs", False) else None
    return save_checkpoint(path, engine, layers, action, activation=activation, normalization=normalization,
                           training={"exported_from": type(model).__name__, **(training or {})})  # fmt: skip


__all__ = ["normalization_of", "policy_layers", "save_sb3"]
