"""Self-play training on RLlib (Ray): one shared policy for every seat, exported as a dice-envs checkpoint.

Usage (needs the ``[ray]`` extra)::

    dice-envs train GAME --backend rllib [game options] [--timesteps N] [--seed S] [--run-dir DIR]
                         [--env-runners K] [--envs E] [--batch B] [--hidden 64,64] [--address ADDRESS]
    python -m train.rllib GAME ...   (the same)

Measured on 2 idle cores on 2026-12-01 (Meyer, 20 000 steps, ``--backend rllib --timesteps 20000``):
2 234 env steps per second (every seat's decision is a step and a training sample), against 4 727
learner steps per second for the SB3 trainer (``dice-envs train meyer --timesteps 20000``). RLlib's gain is elsewhere: ``--env-runners K`` with
``--address`` spreads sampling over the machines of a Ray cluster.

What it does, and why so:

* **Multi-agent, turn-based, shared policy.** :class:`DiceMultiAgentEnv` wraps a game's PettingZoo
  env (``dice_envs.registry.env_module(game).env(...)``) as an RLlib ``MultiAgentEnv``: each step
  carries the observation of the one seat to act; every seat is mapped to the policy ``"shared"``,
  so the policy plays against copies of itself (self-play).
* **Every seat that acted receives its end-of-game reward.** Rewards the PettingZoo env hands out
  are kept per seat and given to a seat with its next observation; when the game ends, every seat
  that acted in it gets its final observation, its reward and ``terminated``, whoever made the
  last move (the flaw of single-agent wrappers that only reward the seat that moved). A seat that
  never acted in a game gets nothing recorded for it, even with a nonzero return (no action of it
  is to be credited, so learning loses nothing, but RLlib's per-agent returns of such a game need
  not sum to zero).
* **Every game has a decision.** A game can be over before anyone acts (Syvere with a small
  ``--elimination``): :meth:`DiceMultiAgentEnv.reset` starts new games until a seat must act
  (a ``RuntimeError`` after :data:`MAX_EMPTY_RESETS` in a row), and options under which nobody
  ever decides (Syvere ``--max-rolls 1``: ``game.check_decisions``) are refused before Ray starts.
* **Illegal actions are never sampled.** Observations are ``{"observations", "action_mask"}``;
  :class:`MaskedPPOTorchRLModule` (after RLlib's action-masking example,
  ``ray/rllib/examples/rl_modules/classes/action_masking_rlm.py``) adds ``log(mask)`` (clamped to
  the lowest float) to the logits in every forward pass, so masked actions have probability 0
  when sampling, in the loss and at inference.
* **Exactly exportable.** The policy is a plain MLP (``fcnet_hiddens``, tanh, separate value
  network, a linear logits head), and observations are scaled by a fixed affine map from the
  game's declared observation bounds (the centre to 0, the half-range to 1). That map is written
  as the checkpoint's ``normalization`` (``mean``, ``var``, ``epsilon``, ``clip``: the transform
  :class:`agents.checkpoint.Policy` applies), and the actor MLP's layers as its weights, with
  :func:`agents.checkpoint.save_checkpoint`, the SB3 trainer's writer: the exported agent's
  ``action_probabilities`` are the RLlib module's masked distribution (a test checks this).

The run directory holds ``policy/`` (the checkpoint, as the SB3 trainer's runs: an agent for ``play``,
``tournament`` (labelled by the run's name) and the exploitability tools), ``rllib/`` (RLlib's own checkpoint, to resume: running the same command
again continues from it; trusted only as the user's own run, never loaded by an agent) and
``summary.json`` (steps, wall time, env steps per second).

Resuming and interrupting:

* ``rllib/`` is saved every :data:`SAVE_EVERY_SECONDS` s, at the end, and on Ctrl-C (after the
  current train batch, then the command exits 130; a second Ctrl-C stops at once, unsaved). A
  save is written to ``rllib.new/``, marked complete by :data:`MARKER` (written last: the run's
  settings and every file with its size), then swapped in by renames (``rllib`` to ``rllib.old``,
  ``rllib.new`` to ``rllib``). A kill at any moment leaves the previous or the new checkpoint;
  the next run tidies the leftovers and restores only a complete checkpoint (an incomplete
  ``rllib/``, such as one an older version left, is refused with a message).
* A resume must give the run's settings: the game, its options, ``--hidden``, ``--seed``,
  ``--envs`` and ``--batch`` (what is trained, and how); another one is refused in one line
  naming the differences (exit 2), before Ray starts. ``--timesteps`` (the total to reach),
  ``--env-runners`` and ``--address`` (where sampling runs) and ``--no-progress`` may change. The
  first run's train batch is ``min(--batch, --timesteps)``.
* ``--seed`` seeds RLlib, torch and the envs, but does **not** make a run reproducible on its own:
  RLlib's episode bookkeeping (``MultiAgentEpisode``) takes agent IDs out of Python sets, whose
  order depends on string hashing, so two runs of one command can train different weights
  unless ``PYTHONHASHSEED`` is fixed (``PYTHONHASHSEED=0 dice-envs train ...``); with it fixed,
  repeated runs in the driver (``--env-runners 0``, one machine) were found to train identical weights.
* ``--address HOST:PORT`` that takes no TCP connection within :data:`evaluate.ray_backend.CONNECT_TIMEOUT` s is refused
  with one line (``ray.init`` has no connect timeout of its own and retries for minutes), and so
  are more ``--env-runners`` than the cluster has CPUs (the extra env runners would wait forever).
"""

from __future__ import annotations

import argparse
import json
import math
import signal
import sys
import threading
import time
from pathlib import Path

import numpy as np

from dice_envs import strict_json
from dice_envs.options import option_flag
# A saved RLlib checkpoint is whole when train.atomic's MARKER, written last, lists its files and their sizes.
from train.atomic import MARKER, complete_checkpoint, recover_checkpoint, save_checkpoint_atomically  # noqa: F401

#: Half-width of the clip the checkpoint's normalisation records; scaled observations lie in [-1, 1].
CLIP = 5.0
EPSILON = 1e-8
POLICY_ID = "shared"
#: Seconds between RLlib checkpoints of a run (to resume it).
SAVE_EVERY_SECONDS = 60.0
#: PPO's minibatch in env steps: a train batch (``--batch``), and so the whole budget (``--timesteps``), holds one.
MINIBATCH = 250
#: The largest seed (numpy's ``np.random.seed``, which RLlib calls with the seed, plus i in env runner i).
MAX_SEED = 2**32 - 1
#: Games in a row that may be over before anyone acts before :meth:`DiceMultiAgentEnv.reset` gives up.
MAX_EMPTY_RESETS = 1000
#: Settings that may change when a run resumes (the others must be the run's own, see :func:`check_resume`).
RESUMABLE = ("timesteps", "env_runners", "address", "progress")


# -- observations -------------------------------------------------------------------------------
def fixed_normalization(engine) -> dict:
    """The observation scaling of a game: centre of its bounds to 0, half its range to 1.

    Returned in the checkpoint's ``normalization`` form (``x -> clip((x - mean) / sqrt(var + eps))``),
    so the exported agent scales observations exactly as training did. A coordinate whose bounds
    coincide keeps scale 1.
    """
    low = np.asarray(engine.observation_low, dtype=np.float64)
    high = np.asarray(engine.observation_high, dtype=np.float64)
    half = (high - low) / 2.0
    half = np.where(half > 0, half, 1.0)
    return {"mean": (low + high) / 2.0, "var": half**2, "epsilon": EPSILON, "clip": CLIP}


def scale(observation: np.ndarray, norm: dict) -> np.ndarray:
    """The transform of :meth:`agents.checkpoint.Policy.normalize`, with the same arithmetic."""
    x = np.asarray(observation, dtype=np.float64)
    mean = np.asarray(norm["mean"], dtype=np.float64)
    factor = 1.0 / np.sqrt(np.asarray(norm["var"], dtype=np.float64) + norm["epsilon"])
    return np.clip((x - mean) * factor, -norm["clip"], norm["clip"]).astype(np.float32)


def _checkpoint_norm(norm: dict) -> dict:
    """``norm`` as a checkpoint stores it (JSON floats): what the exported agent will apply."""
    return {
        "mean": [float(v) for v in np.asarray(norm["mean"]).ravel()],
        "var": [float(v) for v in np.asarray(norm["var"]).ravel()],
        "epsilon": float(norm["epsilon"]),
        "clip": float(norm["clip"]),
    }


# -- the multi-agent env ------------------------------------------------------------------------
def _env_class():
    """:class:`DiceMultiAgentEnv`, defined once Ray is importable."""
    import gymnasium as gym
    from ray.rllib.env.multi_agent_env import MultiAgentEnv

    from dice_envs.registry import env_module

    class DiceMultiAgentEnv(MultiAgentEnv):
        """A dice game's PettingZoo AEC env as a turn-based RLlib ``MultiAgentEnv``.

        ``config``: ``{"game": short name, "options": game options}``. Observations are
        ``{"observations": scaled float32, "action_mask": float32 0/1}``.
        """

        def __init__(self, config=None):
            super().__init__()
            config = dict(config or {})
            self.game_name = config.get("game", "meyer")
            self.aec = env_module(self.game_name).env(**dict(config.get("options") or {}))
            self.engine = self.aec.unwrapped.game
            self.engine.check_decisions(dict(config.get("options") or {}))
            self.norm = _checkpoint_norm(fixed_normalization(self.engine))
            self.agents = self.possible_agents = list(self.aec.possible_agents)
            n = self.engine.num_actions
            inner = gym.spaces.Dict(
                {
                    "observations": gym.spaces.Box(-CLIP, CLIP, (len(self.norm["mean"]),), np.float32),
                    "action_mask": gym.spaces.Box(0.0, 1.0, (n,), np.float32),
                }
            )
            self.observation_spaces = {a: inner for a in self.agents}
            self.action_spaces = {a: gym.spaces.Discrete(n) for a in self.agents}
            self._pending: dict[str, float] = {}
            self._seen: set[str] = set()
            self._mask = np.zeros(n, dtype=np.float32)

        def _obs(self, agent: str) -> dict:
            raw = self.aec.observe(agent)
            self._mask = np.asarray(raw["action_mask"], dtype=np.float32)
            return {"observations": scale(raw["observation"], self.norm), "action_mask": self._mask}

        def reset(self, *, seed=None, options=None):
            # A game can be over before anyone acts (Syvere with a small elimination mark): RLlib
            # needs a seat to act, so such games are skipped; the next ones continue the dice's
            # generator (seeded by the first reset only).
            for _ in range(MAX_EMPTY_RESETS):
                self.aec.reset(seed=seed)
                seed = None
                first = self.aec.agent_selection
                if not (self.aec.terminations[first] or self.aec.truncations[first]):
                    break
            else:
                raise RuntimeError(f"{self.game_name}: {MAX_EMPTY_RESETS} games in a row were over before anyone "
                                   "acted; these options leave nothing to learn")
            self._pending = {a: 0.0 for a in self.agents}
            first = self.aec.agent_selection
            self._seen = {first}
            return {first: self._obs(first)}, {}

        def step(self, action_dict):
            agent = self.aec.agent_selection
            if agent not in action_dict:
                raise ValueError(f"{agent} is to act, got actions for {sorted(action_dict)}")
            action = int(action_dict[agent])
            # The masked module never samples an illegal action; one that arrives all the same is
            # a bug, and fails the run rather than ending the game quietly (PettingZoo's wrapper
            # would end it with a loss for the mover).
            if not 0 <= action < len(self._mask) or not self._mask[action]:
                raise ValueError(f"illegal action {action} for {agent}: the action mask forbids it")
            self.aec.step(action)
            for a in self.agents:
                self._pending[a] += float(self.aec.rewards.get(a, 0.0))
            ended = all(self.aec.terminations.values())
            cut = not ended and all(self.aec.truncations.values())
            if ended or cut:
                # Every seat that played hears the end: its final observation and all its reward.
                players = [a for a in self.agents if a in self._seen]
                obs = {a: self._obs(a) for a in players}
                rewards = {a: self._pending[a] for a in players}
                flags = {a: True for a in players}
                done = {"__all__": True, **flags}
                not_done = {"__all__": False, **{a: False for a in players}}
                return obs, rewards, (done if ended else not_done), (done if cut else not_done), {}
            nxt = self.aec.agent_selection
            self._seen.add(nxt)
            reward = {nxt: self._pending[nxt]}
            self._pending[nxt] = 0.0
            return {nxt: self._obs(nxt)}, reward, {"__all__": False}, {"__all__": False}, {}

    return DiceMultiAgentEnv


# -- the masked module --------------------------------------------------------------------------
def _module_class():
    """:class:`MaskedPPOTorchRLModule`, defined once Ray is importable."""
    import torch
    from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
    from ray.rllib.core.columns import Columns
    from ray.rllib.utils.torch_utils import FLOAT_MIN

    class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
        """RLlib's default PPO module on ``observations``, its logits masked by ``action_mask``.

        The networks are built for the ``observations`` part of the Dict space; every forward
        pass takes the mask out of the batch and adds ``max(log(mask), FLOAT_MIN)`` to the logits.
        """

        def __init__(self, *, observation_space=None, **kwargs):
            self._with_mask = observation_space
            super().__init__(observation_space=observation_space["observations"], **kwargs)

        def setup(self):
            super().setup()
            self.observation_space = self._with_mask

        @staticmethod
        def _split(batch):
            obs = batch[Columns.OBS]
            if isinstance(obs, dict):
                batch = dict(batch)
                batch[Columns.OBS] = obs["observations"]
                batch["action_mask"] = obs["action_mask"]
            return batch

        @staticmethod
        def _mask(out, mask):
            out[Columns.ACTION_DIST_INPUTS] = out[Columns.ACTION_DIST_INPUTS] + torch.clamp(
                torch.log(mask), min=FLOAT_MIN
            )
            return out

        def _forward_inference(self, batch, **kwargs):
            batch = self._split(batch)
            return self._mask(super()._forward_inference(batch, **kwargs), batch["action_mask"])

        def _forward_exploration(self, batch, **kwargs):
            batch = self._split(batch)
            return self._mask(super()._forward_exploration(batch, **kwargs), batch["action_mask"])

        def _forward_train(self, batch, **kwargs):
            batch = self._split(batch)
            return self._mask(super()._forward_train(batch, **kwargs), batch["action_mask"])

        def compute_values(self, batch, embeddings=None):
            return super().compute_values(self._split(batch), embeddings)

    return MaskedPPOTorchRLModule


def masked_probabilities(module, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The RLlib module's masked action distribution for a batch of (scaled) observations."""
    import torch
    from ray.rllib.core.columns import Columns

    batch = {
        Columns.OBS: {
            "observations": torch.as_tensor(np.asarray(observations, dtype=np.float32)),
            "action_mask": torch.as_tensor(np.asarray(masks, dtype=np.float32)),
        }
    }
    with torch.no_grad():
        logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
        return torch.softmax(logits.double(), dim=-1).numpy()


# -- configuration and export -------------------------------------------------------------------
def build_config(game: str, options: dict, hidden=(64, 64), seed: int = 0, env_runners: int = 0,
                 envs: int = 8, batch: int = 2000, minibatch: int = MINIBATCH, epochs: int = 4, lr: float = 3e-4):
    """RLlib's PPO configuration: one shared masked MLP policy for every seat of ``game``.

    Args:
        game, options: the game and its options.
        hidden: hidden layer sizes of the policy (and of the separate value network).
        seed: seed of RLlib's generators and of the envs.
        env_runners: remote env runners (0 samples in the driver's process).
        envs: envs per env runner, stepped as one batch (8 sample about 3x faster than 1 here:
            RLlib's per-step overhead is shared by the batch).
        batch, minibatch, epochs, lr: PPO's train batch (env steps), minibatch, epochs per batch,
            learning rate.
    """
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    model = {"fcnet_hiddens": list(hidden), "fcnet_activation": "tanh", "vf_share_layers": False,
             "head_fcnet_hiddens": []}
    return (
        PPOConfig()
        # RLlib's env checker steps the env with an unmasked random action, which this env refuses.
        .environment(_env_class(), env_config={"game": game, "options": dict(options)}, disable_env_checking=True)
        .framework("torch")
        .env_runners(num_env_runners=env_runners, num_envs_per_env_runner=envs, num_cpus_per_env_runner=1)
        .multi_agent(policies={POLICY_ID}, policy_mapping_fn=lambda agent_id, episode, **kw: POLICY_ID)
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={POLICY_ID: RLModuleSpec(module_class=_module_class(), model_config=model)}
            )
        )
        .training(train_batch_size_per_learner=batch, minibatch_size=minibatch, num_epochs=epochs, lr=lr)
        .debugging(seed=seed)
    )


def _layers(sequential, activation) -> list:
    """(weight, bias) of the Linear layers of a Sequential of Linear / ``activation`` pairs."""
    import torch.nn as nn

    layers = []
    for i, part in enumerate(sequential):
        if isinstance(part, nn.Linear):
            layers.append((part.weight.detach().cpu().numpy(), part.bias.detach().cpu().numpy()))
        elif not isinstance(part, activation) or i == 0:
            raise ValueError(f"cannot export layer {part!r}: the checkpoint holds Linear/tanh MLPs only")
    return layers


def export_module(module, engine, path, norm: dict, training: dict | None = None) -> Path:
    """Write an RLlib masked PPO module as a dice-envs checkpoint (see :mod:`agents.checkpoint`).

    The actor MLP's Linear layers become ``pi.{i}``, the logits head ``action``; the observation
    scaling becomes ``normalization``.

    Raises:
        ValueError: the module is not a tanh MLP with a single linear logits head.
    """
    import torch.nn as nn

    from agents.checkpoint import save_checkpoint

    hidden = _layers(module.encoder.actor_encoder.net.mlp, nn.Tanh)
    head = _layers(module.pi.net.mlp, nn.Tanh)
    if len(head) != 1 or not isinstance(module.pi.net.mlp[-1], nn.Linear):
        raise ValueError("cannot export: the logits head must be one Linear layer (head_fcnet_hiddens=[])")
    return save_checkpoint(path, engine, hidden, head[0], activation="tanh", normalization=norm,
                           training=training or {})


# -- the run's RLlib checkpoint and settings -----------------------------------------------------
def run_settings(game: str, options: dict, hidden, seed: int, envs: int, batch: int, engine=None) -> dict:
    """The settings that make a run what it is: a resume must give the same ones (see :func:`check_resume`).

    ``engine_options`` (every option of the game, resolved) is what is compared for the game's
    options, so that two spellings of the same game agree; ``options`` is kept as given, to show.
    """
    from agents.checkpoint import engine_options
    from dice_envs.registry import env_module

    engine = engine if engine is not None else env_module(game).env(**options).unwrapped.game
    settings = {"game": game, "options": dict(options), "engine_options": engine_options(engine),
                "hidden": [int(h) for h in hidden], "seed": seed, "envs": envs, "batch": batch}
    return json.loads(strict_json.dumps(settings))  # as it reads back from the marker (tuples: lists)


#: How :func:`check_resume` names a setting (the flag that gives it; game options go by their own flags).
_SETTING_NAMES = {"game": "game", "hidden": "--hidden", "seed": "--seed", "envs": "--envs", "batch": "--batch"}


def _shown(key: str, settings: dict) -> str:
    if key == "hidden":
        return ",".join(str(h) for h in settings[key])
    return str(settings[key])


def check_resume(run: Path, old: dict, new: dict) -> None:
    """Refuse resuming ``run`` with settings other than it was trained with (``ValueError``, one line).

    The game, its options, ``--hidden``, ``--seed``, ``--envs`` and ``--batch`` must be the run's
    own; :data:`RESUMABLE` ones may change. Settings the old checkpoint does not hold are not compared.
    """
    keys = ["game"] if old.get("game", new["game"]) != new["game"] else ["game", "engine_options"]
    keys += ["hidden", "seed", "envs", "batch"]
    changed = []
    for k in keys:
        if k == "engine_options" and isinstance(old.get(k), dict) and old[k] != new[k]:
            # Each game option that differs, as its flag; an option the old run's marker does not
            # know (added by a later version) is not compared.
            was, now = old[k], new[k]
            changed += [f"{option_flag(o)} {was[o]} (this command: {now.get(o, '(none)')})"
                        for o in sorted(was) if was[o] != now.get(o)]
        elif k in old and k != "engine_options" and old[k] != new[k]:
            changed.append(f"{_SETTING_NAMES[k]} {_shown(k, old)} (this command: {_shown(k, new)})")
    if changed:
        listed = "; ".join(changed)
        may = ", ".join(f"--{k.replace('_', '-')}" for k in RESUMABLE if k != "progress")
        raise ValueError(f"{run} was trained with other settings: {listed}. Resuming keeps a run's settings: give the "
                         f"same ones (only {may} and --no-progress may change), or use another --run-dir")


# -- training -----------------------------------------------------------------------------------
def train(game: str, options: dict | None = None, timesteps: int = 100_000, seed: int = 0,
          run_dir: str | None = None, hidden=(64, 64), env_runners: int = 0, envs: int = 8, batch: int = 2000,
          address: str | None = None, progress: bool = True, inspect=None) -> dict:
    """Train a shared policy by self-play on RLlib and export it; resumes from ``run_dir/rllib``.

    Args:
        game, options: the game and its options.
        timesteps: env steps to sample in all (every seat's decisions count).
        seed: the run's seed.
        run_dir: the run directory (default ``runs/<game>-rllib-seed<S>``).
        hidden, env_runners, envs, batch: see :func:`build_config`.
        address: a Ray cluster to join; default a local Ray instance.
        progress: show a progress bar with env steps per second.
        inspect: called with the trained RLlib module before it is exported (tests compare the
            exported agent with it).

    Returns:
        The run summary (also written to ``run_dir/summary.json``).
    """
    from evaluate.ray_backend import require_ray

    ray = require_ray("training with RLlib (--backend rllib)")
    options = dict(options or {})
    if isinstance(timesteps, bool) or not isinstance(timesteps, int) or timesteps < 1:
        raise ValueError(f"--timesteps must be a whole number >= 1, got {timesteps!r}")
    # Checked here, before Ray starts or the run directory is made (RLlib would refuse the first
    # train batch, min(batch, timesteps), if it held less than one minibatch).
    if timesteps < MINIBATCH:
        raise ValueError(f"--timesteps must be >= {MINIBATCH} with the rllib backend: PPO learns from minibatches "
                         f"of {MINIBATCH} env steps and the first train batch must hold one; got {timesteps}")
    if isinstance(batch, bool) or not isinstance(batch, int) or batch < MINIBATCH:
        raise ValueError(f"--batch must be a whole number >= {MINIBATCH} (one PPO minibatch of env steps), "
                         f"got {batch!r}")
    top = MAX_SEED - max(0, int(env_runners))  # RLlib seeds env runner i with seed + i
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= top:
        more = f" minus --env-runners {env_runners}" if top < MAX_SEED else ""
        raise ValueError(f"--seed must be a whole number from 0 to 2**32 - 1{more} = {top}, got {seed!r}")
    if not hidden or any(int(h) < 1 for h in hidden):
        raise ValueError(f"--hidden must be positive layer sizes such as 64,64, got {hidden!r}")
    from dice_envs.registry import env_module

    engine = env_module(game).env(**options).unwrapped.game  # a bad option fails here, clearly
    engine.check_decisions(options)
    hidden = tuple(int(h) for h in hidden)
    settings = run_settings(game, options, hidden, seed, envs, batch, engine=engine)
    run = Path(run_dir or f"runs/{game}-rllib-seed{seed}")
    from train.rundir import locked_run_dir

    # One process at a time trains a run directory, as the SB3 trainer's; one that cannot be written is refused
    # before Ray starts, and a new one is removed again if the run is refused (a refused run leaves nothing).
    with locked_run_dir(run, ("rllib", "policy")):
        return _train_locked(run, game, options, timesteps, seed, hidden, env_runners, envs, batch, address,
                             progress, inspect, ray, engine, settings)  # fmt: skip


def _train_locked(run, game, options, timesteps, seed, hidden, env_runners, envs, batch, address, progress,
                  inspect, ray, engine, settings) -> dict:
    """:func:`train` once its run directory is made and locked."""
    from evaluate.ray_backend import join_ray

    resume = run / "rllib"
    marker = recover_checkpoint(resume, "RLlib checkpoint")  # (a leftover of an interrupted save is tidied first)
    recover_checkpoint(run / "policy", "policy", legacy=lambda _path: True)  # (whatever is there, the loader checks)
    if marker is not None:
        check_resume(run, marker.get("settings", {}), settings)
    norm = _checkpoint_norm(fixed_normalization(engine))
    import torch

    # One intra-op thread: the learner's minibatches are small, and on 2 busy cores more threads
    # made its updates 20x slower (17 s against 0.8 s per 2000 steps, measured).
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    started = False
    try:
        if not ray.is_initialized():
            kwargs = dict(include_dashboard=False, logging_level="warning")
            if address:
                join_ray(ray, address, **kwargs)
            else:
                ray.init(num_cpus=max(1, env_runners + 1), object_store_memory=256 * 2**20, **kwargs)
            started = True
        cpus = ray.cluster_resources().get("CPU", 0)
        if env_runners > cpus:  # each env runner takes a CPU: the others would wait for one forever
            raise ValueError(f"--env-runners {env_runners} needs {env_runners} CPUs (one per env runner), but the Ray "
                             f"cluster has {cpus:g}: give at most --env-runners {int(cpus)}")
        run.mkdir(parents=True, exist_ok=True)
        config = build_config(game, options, hidden=hidden, seed=seed, env_runners=env_runners, envs=envs,
                              batch=min(batch, timesteps))
        algo = config.build_algo()
        if marker is not None:
            algo.restore_from_path(str(resume.resolve()))
        done = int(_lifetime_steps(algo))
        first = saved_steps = done

        def save():
            nonlocal saved_steps
            if done != saved_steps:
                save_checkpoint_atomically(lambda path: algo.save_to_path(str(path.resolve())), resume,
                                           {"settings": settings, "steps": done})
                saved_steps = done

        bar = _bar(timesteps, done, progress)
        start = saved = time.perf_counter()
        with _DeferredInterrupt() as interrupt:
            while done < timesteps and not interrupt.requested:
                result = algo.train()
                now = int(_lifetime_steps(algo, result))
                if now > bar.total:  # the last batch overshoots: the bar ends at 100% of what was sampled
                    bar.total = now
                bar.update(now - done)
                done = now
                bar.set_postfix_str(f"return {_mean_return(result)}")
                # RLlib's checkpoint takes seconds to write: once a minute, and at the end.
                if done >= timesteps or time.perf_counter() - saved > SAVE_EVERY_SECONDS:
                    save()
                    saved = time.perf_counter()
            bar.close()
            if interrupt.requested and done < timesteps:
                # Between two train batches the algorithm is consistent: keep what it learnt. (A
                # Ctrl-C in the last batch lets the finished run be exported as usual.)
                save()
                print(f"interrupted: saved {done} env steps in {resume}; run the same command to resume",
                      file=sys.stderr)
                raise KeyboardInterrupt
        seconds = time.perf_counter() - start
        module = algo.get_module(POLICY_ID)
        if inspect is not None:
            inspect(module)
        from train.rundir import versions

        summary = {
            "backend": "rllib",
            "game": game,
            "options": options,
            "timesteps": done,
            "steps_this_run": done - first,
            "seed": seed,
            "hidden": list(hidden),
            "env_runners": env_runners,
            "envs_per_env_runner": envs,
            "batch": batch,
            "wall_seconds": seconds,
            "env_steps_per_second": (done - first) / seconds if seconds > 0 else 0.0,
            "versions": versions(),
        }
        # Written whole beside RUN/policy and swapped in, as the SB3 trainer's (train.atomic).
        path = run / "policy"
        save_checkpoint_atomically(lambda new: export_module(module, engine, new, norm, training=summary), path,
                                   {"steps": done})  # fmt: skip
        summary["policy"] = str(path)
        (run / "summary.json").write_text(strict_json.dumps(summary, indent=1))
        algo.stop()
        return summary
    finally:
        torch.set_num_threads(threads)
        if started:
            ray.shutdown()


class _DeferredInterrupt:
    """Holds a Ctrl-C (SIGINT) back until the current train batch is done: ``requested`` is then
    set, and the loop saves and raises ``KeyboardInterrupt``. A second Ctrl-C stops at once.
    (Only in the main thread, where Python handles signals; elsewhere a no-op.)"""

    def __init__(self):
        self.requested = False
        self._installed = False
        self._previous = None

    def _handle(self, signum, frame):
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True
        print("\ninterrupted: saving after this train batch (Ctrl-C again to stop without saving)", file=sys.stderr)

    def __enter__(self):
        if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
            self._previous = signal.signal(signal.SIGINT, self._handle)
            self._installed = True
        return self

    def __exit__(self, *exc):
        if self._installed:  # (None: a handler set outside Python; Python's own is the closest)
            signal.signal(signal.SIGINT, signal.default_int_handler if self._previous is None else self._previous)
        return False


def _lifetime_steps(algo, result: dict | None = None) -> float:
    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, NUM_ENV_STEPS_SAMPLED_LIFETIME

    if result is not None:
        value = result.get(ENV_RUNNER_RESULTS, {}).get(NUM_ENV_STEPS_SAMPLED_LIFETIME)
        if value is not None:
            return float(value)
    try:
        return float(algo.metrics.peek((ENV_RUNNER_RESULTS, NUM_ENV_STEPS_SAMPLED_LIFETIME), default=0))
    except Exception:  # a fresh algorithm has no such metric yet
        return 0.0


def _mean_return(result: dict) -> str:
    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS

    value = result.get(ENV_RUNNER_RESULTS, {}).get("agent_episode_returns_mean", {})
    if isinstance(value, dict) and value:
        return " ".join(f"{k}={v:+.2f}" for k, v in sorted(value.items()) if isinstance(v, float) and math.isfinite(v))
    return "-"


def _bar(total: int, initial: int, enabled: bool):
    from dice_envs.progress import progress_bar

    return progress_bar(total=total, initial=min(initial, total), unit="step", disable=not enabled,
                        desc="rllib self-play")


# -- command line -------------------------------------------------------------------------------
def summary_line(summary: dict, timesteps: int) -> str:
    """What a run did: this run's env steps, time and rate, and the run's total after a resume."""
    ran, total = summary["steps_this_run"], summary["timesteps"]
    if ran == 0:
        return f"nothing to train: the run already has {total} env steps (--timesteps {timesteps})"
    line = (f"trained {ran} env steps in {summary['wall_seconds']:.0f} s "
            f"({summary['env_steps_per_second']:.0f} env steps/s)")
    if total != ran:
        line += f"; resumed at {total - ran}, the run has {total} in all"
    return line


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m train.rllib",
        description="Self-play PPO on RLlib (one shared, action-masked MLP policy for every seat); the result is "
        "exported as a dice-envs checkpoint. Game options go after the game (--num-players 4).",
    )
    from dice_envs.cli import add_game_argument

    add_game_argument(p, help="the game (any case; farkle, 10000 and ti-tusen name 10 000)")
    p.add_argument("--timesteps", type=int, default=100_000,
                   help=f"env steps in all, >= {MINIBATCH} (one PPO minibatch; default 100000)")
    p.add_argument("--seed", type=int, default=0, help="seed of the run (default 0)")
    p.add_argument("--run-dir", default=None, help="run directory (default runs/<game>-rllib-seed<S>)")
    p.add_argument("--hidden", default="64,64", help="hidden layer sizes (default 64,64)")
    p.add_argument("--env-runners", type=int, default=0, help="remote env runners (default 0: sample in the driver)")
    p.add_argument("--envs", type=int, default=8, help="envs per env runner, stepped together (default 8)")
    p.add_argument("--batch", type=int, default=2000,
                   help=f"PPO train batch in env steps, >= {MINIBATCH} (default 2000)")
    p.add_argument("--address", default=None, help="a Ray cluster to join (default: a local Ray instance)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def main(argv: list[str] | None = None) -> int:
    """Run the RLlib trainer with ``argv``; returns the exit status. Bad input raises ``ValueError``."""
    from dice_envs.cli import game_and_options

    argv = list(sys.argv[1:] if argv is None else argv)
    ns, rest = build_parser().parse_known_args(argv)
    ns.game, options = game_and_options(ns.game, rest)
    try:
        hidden = tuple(int(h) for h in ns.hidden.split(",") if h.strip())
    except ValueError:
        raise ValueError(f"--hidden takes layer sizes such as 64,64, got {ns.hidden!r}") from None
    if ns.env_runners < 0:
        raise ValueError(f"--env-runners must be >= 0, got {ns.env_runners}")
    if ns.envs < 1:
        raise ValueError(f"--envs must be >= 1, got {ns.envs}")
    # train() checks --timesteps, --batch and --seed before Ray starts
    summary = train(ns.game, options, timesteps=ns.timesteps, seed=ns.seed, run_dir=ns.run_dir, hidden=hidden,
                    env_runners=ns.env_runners, envs=ns.envs, batch=ns.batch, address=ns.address, progress=not ns.no_progress)
    print(summary_line(summary, ns.timesteps))
    print(f"checkpoint: {summary['policy']}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    from dice_envs.cli import run_guarded

    sys.exit(run_guarded(main, sys.argv[1:], prog="python -m train.rllib"))
