"""Self-play training on RLlib (Ray): one shared policy for every seat, exported as a dice-envs checkpoint.

Usage (needs the ``[ray]`` extra)::

    dice-envs train GAME --backend rllib [game options] [--timesteps N] [--seed S] [--run-dir DIR]
                         [--env-runners K] [--envs E] [--batch B] [--hidden 64,64] [--address ADDRESS]
    python -m train.rllib GAME ...   (the same)

Measured on 2 busy cores (Meyer, 20 000 steps): 490 env steps per second (every seat's decision is
a step and a training sample), against 879 learner steps per second for the SB3 trainer
(``dice-envs train meyer --timesteps 20000``). RLlib's gain is elsewhere: ``--env-runners K`` with
``--address`` spreads sampling over the machines of a Ray cluster.

What it does, and why so:

* **Multi-agent, turn-based, shared policy.** :class:`DiceMultiAgentEnv` wraps a game's PettingZoo
  env (``dice_envs.registry.env_module(game).env(...)``) as an RLlib ``MultiAgentEnv``: each step
  carries the observation of the one seat to act; every seat is mapped to the policy ``"shared"``,
  so the policy plays against copies of itself (self-play).
* **Every seat's terminal reward is delivered.** Rewards the PettingZoo env hands out are kept
  per seat and given to a seat with its next observation; when the game ends, every seat that
  played gets its final observation, its reward and ``terminated``, whoever made the last move
  (the flaw of single-agent wrappers that only reward the seat that moved).
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

The run directory holds ``final/`` (the checkpoint: an agent for ``play``, ``tournament`` and the
exploitability tools), ``rllib/`` (RLlib's own checkpoint, to resume: running the same command
again continues from it; trusted only as the user's own run, never loaded by an agent) and
``summary.json`` (steps, wall time, env steps per second).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

from dice_envs import strict_json

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
            self.aec.reset(seed=seed)
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
    from ray.rllib.algorithms.ppo.torch.ppo_torch_rl_module import PPOTorchRLModule
    from ray.rllib.core.columns import Columns
    from ray.rllib.utils.torch_utils import FLOAT_MIN

    class MaskedPPOTorchRLModule(PPOTorchRLModule):
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
    run = Path(run_dir or f"runs/{game}-rllib-seed{seed}")
    run.mkdir(parents=True, exist_ok=True)
    norm = _checkpoint_norm(fixed_normalization(engine))
    import torch

    # One intra-op thread: the learner's minibatches are small, and on 2 busy cores more threads
    # made its updates 20x slower (17 s against 0.8 s per 2000 steps, measured).
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    started = False
    if not ray.is_initialized():
        kwargs = dict(include_dashboard=False, logging_level="warning")
        if address:
            ray.init(address=address, **kwargs)
        else:
            ray.init(num_cpus=max(1, env_runners + 1), object_store_memory=256 * 2**20, **kwargs)
        started = True
    try:
        config = build_config(game, options, hidden=tuple(int(h) for h in hidden), seed=seed,
                              env_runners=env_runners, envs=envs, batch=min(batch, timesteps))
        algo = config.build_algo()
        resume = run / "rllib"
        if (resume / "algorithm_state.pkl").is_file() or (resume / "rllib_checkpoint.json").is_file():
            algo.restore_from_path(str(resume.resolve()))
        done = int(_lifetime_steps(algo))
        bar = _bar(timesteps, done, progress)
        start = time.perf_counter()
        first, saved = done, time.perf_counter()
        while done < timesteps:
            result = algo.train()
            now = int(_lifetime_steps(algo, result))
            bar.update(now - done)
            done = now
            bar.set_postfix_str(f"return {_mean_return(result)}")
            # RLlib's checkpoint takes seconds to write: once a minute, and at the end.
            if done >= timesteps or time.perf_counter() - saved > SAVE_EVERY_SECONDS:
                algo.save_to_path(str(resume.resolve()))
                saved = time.perf_counter()
        bar.close()
        seconds = time.perf_counter() - start
        module = algo.get_module(POLICY_ID)
        if inspect is not None:
            inspect(module)
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
            "wall_seconds": seconds,
            "env_steps_per_second": (done - first) / seconds if seconds > 0 else 0.0,
        }
        path = export_module(module, engine, run / "final", norm, training=summary)
        summary["policy"] = str(path)
        (run / "summary.json").write_text(strict_json.dumps(summary, indent=1))
        algo.stop()
        return summary
    finally:
        torch.set_num_threads(threads)
        if started:
            ray.shutdown()


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
def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m train.rllib",
        description="Self-play PPO on RLlib (one shared, action-masked MLP policy for every seat); the result is "
        "exported as a dice-envs checkpoint. Game options go after the game (--num-players 4).",
    )
    p.add_argument("game", choices=("meyer", "syvere", "tenthousand"))
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
    from dice_envs.options import parse_game_options

    argv = list(sys.argv[1:] if argv is None else argv)
    ns, rest = build_parser().parse_known_args(argv)
    options = parse_game_options(ns.game, rest)
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
    print(f"trained {summary['timesteps']} env steps in {summary['wall_seconds']:.0f} s "
          f"({summary['env_steps_per_second']:.0f} env steps/s)")
    print(f"checkpoint: {summary['policy']}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    from dice_envs.cli import run_guarded

    sys.exit(run_guarded(main, sys.argv[1:], prog="python -m train.rllib"))
