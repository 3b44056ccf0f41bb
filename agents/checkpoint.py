"""Trained policies as agents: the checkpoint format (written by ``train/``, read here).

A checkpoint is a directory with two files (docs/training.md, "Checkpoints are agents"):

``policy.safetensors``
    The policy network's weights, float32: ``pi.{i}.weight`` / ``pi.{i}.bias`` for the hidden
    layers ``i = 0, 1, ...`` and ``action.weight`` / ``action.bias`` for the logits layer.
``policy.json``
    ``format`` (``"dice-envs-policy"``), ``format_version`` (:data:`FORMAT_VERSION`), ``game`` (short
    name), ``options`` (every option of the game, resolved: see :func:`engine_options`),
    ``observation_layout_version`` (the env's version, ``tenthousand_v1`` -> 1),
    ``architecture`` (``obs_dim``, ``num_actions``, ``hidden`` sizes, ``activation``),
    ``normalization`` (``null`` or the observation statistics ``mean``, ``var``, ``epsilon``,
    ``clip`` of SB3's ``VecNormalize``), ``weights_sha256`` (of ``policy.safetensors``) and
    ``training`` (a free-form summary of the run).

Loading is safe by construction: it reads exactly these two files, parses the JSON with
:mod:`json` and the weights with :mod:`safetensors` (a header and raw arrays: nothing in either is
ever executed, unlike a pickle). Every check below fails with a
:class:`~dice_envs.errors.CheckpointError` (a ``ValueError``, with the checkpoint's ``path``) that
says what is wrong: a missing or truncated file, bytes that do not match ``weights_sha256`` (tampering or
corruption), an unknown format or version, another game, other options, another observation
layout, weights whose shapes do not match the architecture, or a normalisation that is not finite.
The checksum covers the weights file only: an edit of ``policy.json``'s normalisation, which the
format keeps in the JSON, is caught only when it leaves the file malformed or not finite.

The network runs in numpy (no SB3, no torch needed at play time): ``logits = action(act(pi(x)))``
on the normalised observation; the policy is the softmax of the logits over the legal actions.

Example::

    >>> from dice_envs.games.meyer import Game
    >>> agent = TrainedAgent(Game())      # the checkpoint shipped for Meyer  # doctest: +SKIP
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import Agent
from dice_envs.errors import CheckpointError
from dice_envs.games.base import Game
from dice_envs.options import option_flag

FORMAT = "dice-envs-policy"
#: The checkpoint format version this module writes; it reads only the versions in ``_READABLE``.
FORMAT_VERSION = 1
_READABLE = (1,)
WEIGHTS_FILE = "policy.safetensors"
META_FILE = "policy.json"
#: Refuse metadata files larger than this (a policy.json is a few kB; this stops a huge file early).
MAX_META_BYTES = 16 * 2**20
ACTIVATIONS = ("tanh", "relu")
#: Where the checkpoints shipped with the package live: ``agents/trained/<game>/``.
TRAINED_DIR = Path(__file__).resolve().parent / "trained"


def engine_options(engine) -> dict[str, Any]:
    """Every option of a rules engine, resolved to its value (presets expanded):
    :meth:`dice_envs.games.base.Game.option_values`.

    Two engines built from different spellings of the same options (``preset="dk"`` against the
    same options given one by one) give the same dict, so this is what checkpoints compare.
    """
    return engine.option_values()


def _game_name(game) -> str:
    return game if isinstance(game, str) else game.name


def checkpoint_dir(path) -> Path:
    """The checkpoint directory a SPEC path names (the directory or its ``policy.safetensors``)."""
    path = Path(os.fspath(path)).expanduser()
    if path.name == WEIGHTS_FILE or path.name == META_FILE:
        path = path.parent
    return path


# -- writing ----------------------------------------------------------------------------------
def save_checkpoint(
    path,
    engine,
    layers: list[tuple[np.ndarray, np.ndarray]],
    action_layer: tuple[np.ndarray, np.ndarray],
    activation: str = "tanh",
    normalization: dict | None = None,
    training: dict | None = None,
) -> Path:
    """Write a checkpoint directory.

    Args:
        path: the directory (created if needed; its two files are replaced atomically).
        engine: the rules engine the policy was trained in.
        layers: ``(weight, bias)`` of each hidden layer, weight shaped ``(out, in)`` as in torch.
        action_layer: ``(weight, bias)`` of the logits layer.
        activation: ``"tanh"`` or ``"relu"``, applied after every hidden layer.
        normalization: ``{"mean", "var", "epsilon", "clip"}`` of the observation, or ``None``.
        training: a JSON-able summary of the training run.

    Returns:
        The checkpoint directory.
    """
    from safetensors.numpy import save

    from dice_envs.extras import import_own

    observation_layout_version = import_own("train.view").observation_layout_version  # a user's train.py is named

    if activation not in ACTIVATIONS:
        raise ValueError(f"activation must be one of {ACTIVATIONS}, got {activation!r}")
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    tensors = {}
    for i, (w, b) in enumerate(layers):
        tensors[f"pi.{i}.weight"] = np.ascontiguousarray(w, dtype=np.float32)
        tensors[f"pi.{i}.bias"] = np.ascontiguousarray(b, dtype=np.float32)
    tensors["action.weight"] = np.ascontiguousarray(action_layer[0], dtype=np.float32)
    tensors["action.bias"] = np.ascontiguousarray(action_layer[1], dtype=np.float32)
    blob = save(tensors)
    obs_dim = int(layers[0][0].shape[1]) if layers else int(action_layer[0].shape[1])
    if normalization is not None:
        normalization = {
            "mean": [float(x) for x in np.asarray(normalization["mean"]).ravel()],
            "var": [float(x) for x in np.asarray(normalization["var"]).ravel()],
            "epsilon": float(normalization["epsilon"]),
            "clip": float(normalization["clip"]),
        }
    meta = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "game": engine.name,
        "options": engine_options(engine),
        "observation_layout_version": observation_layout_version(engine.name),
        "architecture": {
            "obs_dim": obs_dim,
            "num_actions": int(action_layer[0].shape[0]),
            "hidden": [int(w.shape[0]) for w, _ in layers],
            "activation": activation,
        },
        "normalization": normalization,
        "weights_sha256": hashlib.sha256(blob).hexdigest(),
        "training": training or {},
    }
    # Write both files beside their final names, then rename: a reader never sees half a file.
    for name, data in ((WEIGHTS_FILE, blob), (META_FILE, json.dumps(meta, indent=1).encode())):
        tmp = path / (name + ".tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path / name)
    return path


# -- reading ----------------------------------------------------------------------------------
class Policy:
    """A checkpoint's policy network, read and checked; evaluated in numpy.

    Attributes:
        meta: the parsed ``policy.json``.
        path: the checkpoint directory.
    """

    def __init__(self, path=None, meta: dict | None = None, tensors: dict[str, np.ndarray] | None = None):
        if path is not None:
            self.path = checkpoint_dir(path)
            self.meta, tensors = read_checkpoint(self.path)
        elif meta is not None and tensors is not None:
            # A policy held in memory (the trainer evaluates its current network this way).
            self.path = Path("<memory>")
            self.meta = meta
        else:
            raise ValueError("Policy needs a path, or meta and tensors")
        arch = self.meta["architecture"]
        self.layers = [(tensors[f"pi.{i}.weight"], tensors[f"pi.{i}.bias"]) for i in range(len(arch["hidden"]))]
        self.action_layer = (tensors["action.weight"], tensors["action.bias"])
        self.activation = np.tanh if arch["activation"] == "tanh" else (lambda x: np.maximum(x, 0.0))
        norm = self.meta["normalization"]
        if norm is None:
            self._mean = self._scale = None
        else:
            self._mean = np.asarray(norm["mean"], dtype=np.float64)
            self._scale = 1.0 / np.sqrt(np.asarray(norm["var"], dtype=np.float64) + norm["epsilon"])
            self._clip = norm["clip"]

    def normalize(self, observation: np.ndarray) -> np.ndarray:
        """The observation as the network sees it (VecNormalize's transform, if the run used one)."""
        x = np.asarray(observation, dtype=np.float64)
        if self._mean is not None:
            # _scale is set together with _mean; no check added to the per-step path.
            x = np.clip((x - self._mean) * self._scale, -self._clip, self._clip)  # type: ignore[operator]
        return x.astype(np.float32)

    def logits(self, observation: np.ndarray) -> np.ndarray:
        """The action logits of one observation, or of a batch (rows)."""
        x = self.normalize(observation)
        for w, b in self.layers:
            x = self.activation(x @ w.T + b)
        w, b = self.action_layer
        return (x @ w.T + b).astype(np.float64)

    def probabilities(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """The masked softmax policy: float64, sums to 1, 0 on masked actions."""
        mask = np.asarray(action_mask).astype(bool)
        if not mask.any():
            raise ValueError("the action mask has no legal action")
        z = self.logits(observation)
        z = np.where(mask, z, -np.inf)
        z = np.exp(z - z.max())
        return z / z.sum()


def _fail(path: Path, why: str) -> CheckpointError:
    return CheckpointError(f"checkpoint {str(path)!r}: {why}", path=path)


def read_checkpoint(path) -> tuple[dict, dict[str, np.ndarray]]:
    """Read and check a checkpoint directory; return its metadata and weights.

    Raises:
        CheckpointError: (a ``ValueError``) naming what is wrong (see the module docstring); its
            ``path`` is the checkpoint directory.
    """
    path = checkpoint_dir(path)
    meta_file, weights_file = path / META_FILE, path / WEIGHTS_FILE
    if not path.exists():
        raise _fail(path, "no such file or directory")
    if not path.is_dir():
        raise _fail(path, f"not a checkpoint directory (it must hold {META_FILE} and {WEIGHTS_FILE})")
    for f in (meta_file, weights_file):
        if not f.is_file():
            inner = path / "policy"
            if (inner / META_FILE).is_file():  # a training run's directory: its checkpoint is RUN/policy
                raise _fail(path, f"{f.name} is missing; it looks like a training run: its checkpoint is {str(inner)!r}")
            raise _fail(path, f"{f.name} is missing")
    if meta_file.stat().st_size > MAX_META_BYTES:
        raise _fail(path, f"{META_FILE} is too large to be a policy description")
    try:
        meta = json.loads(meta_file.read_bytes())
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise _fail(path, f"{META_FILE} is not valid JSON (corrupt or truncated): {exc}") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise _fail(path, f"{META_FILE} is not a dice-envs policy (format must be {FORMAT!r})")
    version = meta.get("format_version")
    if version not in _READABLE:
        raise _fail(path, f"unknown checkpoint format version {version!r}; this dice-envs reads {list(_READABLE)}")
    for key in ("game", "options", "observation_layout_version", "architecture", "normalization", "weights_sha256"):
        if key not in meta:
            raise _fail(path, f"{META_FILE} lacks {key!r}")
    from safetensors import SafetensorError  # the [train] extra; imported once the files look right
    from safetensors.numpy import load

    blob = weights_file.read_bytes()
    if hashlib.sha256(blob).hexdigest() != meta["weights_sha256"]:
        raise _fail(
            path,
            f"{WEIGHTS_FILE} does not match the checksum in {META_FILE}: the file is corrupt, truncated "
            "or was changed after training",
        )
    try:
        tensors = load(blob)
    except (SafetensorError, ValueError, OSError) as exc:
        raise _fail(path, f"{WEIGHTS_FILE} is not a valid safetensors file: {exc}") from None
    _check_architecture(path, meta, tensors)
    return meta, tensors


def _check_architecture(path: Path, meta: dict, tensors: dict[str, np.ndarray]) -> None:
    arch = meta["architecture"]
    try:
        obs_dim, num_actions = int(arch["obs_dim"]), int(arch["num_actions"])
        hidden = [int(h) for h in arch["hidden"]]
        activation = arch["activation"]
    except (KeyError, TypeError, ValueError):
        raise _fail(path, "architecture must give obs_dim, num_actions, hidden and activation") from None
    if activation not in ACTIVATIONS:
        raise _fail(path, f"unknown activation {activation!r}")
    sizes = [obs_dim, *hidden]
    expected: dict[str, tuple[int, ...]] = {}
    for i in range(len(hidden)):
        expected[f"pi.{i}.weight"] = (sizes[i + 1], sizes[i])
        expected[f"pi.{i}.bias"] = (sizes[i + 1],)
    expected["action.weight"] = (num_actions, sizes[-1])
    expected["action.bias"] = (num_actions,)
    if set(tensors) != set(expected):
        raise _fail(path, f"weights {sorted(tensors)} do not match the architecture (expected {sorted(expected)})")
    for name, shape in expected.items():
        t = tensors[name]
        if t.shape != shape or t.dtype != np.float32 or not np.isfinite(t).all():
            raise _fail(path, f"weight {name} has shape {t.shape} {t.dtype}; expected finite float32 {shape}")
    norm = meta["normalization"]
    if norm is not None:
        try:
            ok = len(norm["mean"]) == obs_dim and len(norm["var"]) == obs_dim
            ok = ok and float(norm["epsilon"]) > 0 and float(norm["clip"]) > 0
            figures = np.asarray([*norm["mean"], *norm["var"], norm["epsilon"], norm["clip"]], dtype=np.float64)
            # finite (a NaN made every logit NaN: an illegal action, blamed on the agent), variances >= 0
            ok = ok and bool(np.isfinite(figures).all()) and bool((np.asarray(norm["var"], dtype=np.float64) >= 0).all())
        except (KeyError, TypeError, ValueError):
            ok = False
        if not ok:
            raise _fail(path, f"normalization must hold finite mean and var (>= 0) of length {obs_dim}, "
                              "epsilon and clip > 0")  # fmt: skip


def _flag_value(value) -> str:
    """An option's value as the command line takes it (``true``, ``4``, ``dk``)."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def check_compatible(meta: dict, engine, path="") -> None:
    """Refuse a checkpoint made for another game, other options or another observation layout.

    Raises:
        CheckpointError: (a ``ValueError``) saying which of the three differs.
    """
    from dice_envs.extras import import_own

    observation_layout_version = import_own("train.view").observation_layout_version  # a user's train.py is named

    path = Path(path)
    if meta["game"] != engine.name:
        raise _fail(path, f"it was trained for {meta['game']!r}, not {engine.name!r}")
    layout = observation_layout_version(engine.name)
    if meta["observation_layout_version"] != layout:
        raise _fail(
            path,
            f"it was trained on observation layout v{meta['observation_layout_version']} of {engine.name}; "
            f"this dice-envs has v{layout}: retrain it",
        )
    ours = engine_options(engine)
    theirs = meta["options"]
    differ = sorted(k for k in set(ours) | set(theirs) if ours.get(k, "<none>") != theirs.get(k, "<none>"))
    if differ:
        said = ", ".join(f"{k}={theirs.get(k, '<none>')!r} (here {ours.get(k, '<none>')!r})" for k in differ)
        # The command line that sets its game up: what differs here, and what differs from the
        # defaults, but not what another preset brings with it.
        new_preset = "preset" in differ
        try:
            plain = engine_options(type(engine)(**({"preset": theirs["preset"]} if new_preset else {})))
        except (TypeError, ValueError):
            plain = {}
        flags = " ".join(
            f"{option_flag(k)} {_flag_value(v)}"
            for k, v in theirs.items()
            if k == "preset" and new_preset or plain.get(k) != v or (k in differ and not new_preset)
        )
        raise _fail(path, f"it was trained with other game options: {said}; it plays only those (command line: {flags})")
    if meta["architecture"]["obs_dim"] != len(engine.observation_low):
        raise _fail(path, "its observation size does not match the game's")
    if meta["architecture"]["num_actions"] != engine.num_actions:
        raise _fail(path, "its number of actions does not match the game's")


def _engine_from_meta(game: str, meta: dict):
    from dice_envs.registry import env_module

    options = dict(meta["options"])
    return env_module(game).raw_env(**options).game


class TrainedAgent(Agent):
    """An agent that plays a trained policy network from a checkpoint.

    Args:
        game: the rules engine the agent plays in.
        seed: seed of the generator that samples actions when ``greedy`` is false.
        path: the checkpoint (directory or its ``policy.safetensors``); ``None`` for the checkpoint
            shipped with the package for this game (``agents/trained/<game>/``).
        greedy: play the most probable legal action (``action_probabilities`` then puts 1 on it);
            false samples from the masked softmax.

    Raises:
        CheckpointError: (a ``ValueError``) the checkpoint is missing or unreadable, or made for
            another game, options or layout.
    """

    name = "trained"

    def __init__(self, game: Game, seed: int | None = None, path: str | None = None, greedy: bool = True):
        super().__init__(game, seed=seed)
        # ``path`` keeps its SPEC type (str | None): the shipped directory gets a local of its own.
        where: str | Path | None = path
        if where is None:
            where = TRAINED_DIR / game.name
            if not (where / META_FILE).is_file():
                raise CheckpointError(f"no trained checkpoint ships for {game.name!r} (looked in {where})", path=where)
        self.policy = Policy(where)
        check_compatible(self.policy.meta, game, self.policy.path)
        self.greedy = bool(greedy)

    def action_probabilities(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """The policy over the legal actions: one-hot on the argmax when greedy, else the softmax."""
        probs = self.policy.probabilities(observation, action_mask)
        if self.greedy:
            one_hot = np.zeros_like(probs)
            one_hot[int(np.argmax(probs))] = 1.0
            return one_hot
        return probs

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        probs = self.policy.probabilities(observation, action_mask)
        if self.greedy:
            return int(np.argmax(probs))
        return int(self.rng.choice(len(probs), p=probs))

    def __repr__(self) -> str:
        return f"TrainedAgent(path={str(self.policy.path)!r}, greedy={self.greedy})"


def load_agent(game, path, seed: int | None = None, greedy: bool = True) -> TrainedAgent:
    """The agent of a checkpoint path (a SPEC path), checked against ``game``.

    Args:
        game: the rules engine to play in, or a game's short name (then the engine is built from
            the checkpoint's own options).
        path: the checkpoint directory or its ``policy.safetensors``.
        seed: seed of the agent's generator.
        greedy: see :class:`TrainedAgent`.
    """
    if isinstance(game, str):
        meta, _ = read_checkpoint(path)
        if meta["game"] != game:
            raise _fail(checkpoint_dir(path), f"it was trained for {meta['game']!r}, not {game!r}")
        game = _engine_from_meta(game, meta)
    return TrainedAgent(game, seed=seed, path=os.fspath(path), greedy=greedy)
