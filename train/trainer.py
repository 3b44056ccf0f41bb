"""MaskablePPO training of one game against agents and its own past snapshots (self-play), resumable,
with evaluations and checkpoints.

The run, top to bottom (:func:`train`):

1. ``n_envs`` single-agent views (:mod:`train.view`) in a ``DummyVecEnv`` (or ``SubprocVecEnv``),
   observations normalised by ``VecNormalize`` (rewards are not: they are C-3 returns already).
2. The opponent pool starts as the baselines (built-in agents, SPECs); every ``snapshot_every``
   steps the current policy is written as a checkpoint and joins the pool as a sampling
   (non-greedy) agent, with ``self_play_weight`` of the pool's weight shared by the newest
   ``pool_size`` snapshots.
3. Every ``eval_every`` steps the greedy policy plays ``eval_deals`` deals against each baseline,
   seats rotated, on seeds training never uses (for run seeds up to 998: see SEED_STRIDE); the win rates and their Wilson intervals go to
   TensorBoard (``charts/win_rate_vs_<baseline>``), the progress bar and the summary.
4. After each period the run saves what resuming needs in ``run_dir/resume/``: SB3's own save of
   the model with its optimiser (a zip holding pickles), the ``VecNormalize`` statistics (a
   pickle) and ``state.json``. **Those files are trusted only to resume your own run**: they are
   pickles and may execute code when loaded, so never resume a run directory you did not make.
   No agent ever loads them; agents load only the safe checkpoints of :mod:`agents.checkpoint`.
5. Running the same command again continues from the last saved period up to ``timesteps``. Ctrl-C
   and SIGTERM stop a run at once (exit 130 and 143 on the command line), keeping the last saved period;
   ``policy/`` is refreshed at every snapshot, so an interrupted run has one.

Layout of ``run_dir``: ``checkpoints/step_<N>/`` (the snapshots), ``policy/`` (the latest
checkpoint, the one to play against), ``resume/``, ``tb/`` (TensorBoard), ``summary.json``; while a run
trains, ``.lock`` (:data:`train.rundir.LOCK`), which keeps a second run off the directory and goes when the run ends.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
import warnings
from collections import defaultdict, deque
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import numpy as np

from agents.checkpoint import Policy, save_checkpoint
from dice_envs import strict_json
from train.atomic import recover_checkpoint, save_checkpoint_atomically, save_error, siblings
from train.config import Args
from train.evaluation import play_against
from train.rundir import locked_run_dir, versions
from train.view import SingleAgentView

#: The seed offset of evaluation deals: training envs are seeded far below it.
EVAL_SEED = 1_000_000_000


def _net_arrays(model) -> tuple[list, tuple]:
    """The policy network's (weight, bias) arrays from an SB3 ActorCriticPolicy (as ``save_sb3`` reads them)."""
    from train.export import policy_layers

    layers, action, _ = policy_layers(model.policy)
    return layers, action


def _normalization(venv, args: Args) -> dict | None:
    from train.export import normalization_of

    return normalization_of(venv) if args.normalize_obs else None


def memory_policy(model, venv, engine, args: Args) -> Policy:
    """The current network as a checkpoint :class:`Policy` held in memory (for evaluation)."""
    from safetensors.numpy import load, save

    from agents.checkpoint import engine_options

    layers, action = _net_arrays(model)
    tensors = {}
    for i, (w, b) in enumerate(layers):
        tensors[f"pi.{i}.weight"], tensors[f"pi.{i}.bias"] = w.astype(np.float32), b.astype(np.float32)
    tensors["action.weight"], tensors["action.bias"] = action[0].astype(np.float32), action[1].astype(np.float32)
    norm = _normalization(venv, args)
    meta = {
        "game": engine.name,
        "options": engine_options(engine),
        "architecture": {
            # a linear policy (hidden=[]) has no hidden layer: its action layer reads the observation
            "obs_dim": int(layers[0][0].shape[1] if layers else action[0].shape[1]),
            "num_actions": int(action[0].shape[0]),
            "hidden": [int(w.shape[0]) for w, _ in layers],
            "activation": args.activation,
        },
        "normalization": None
        if norm is None
        else {"mean": list(map(float, norm["mean"])), "var": list(map(float, norm["var"])),
              "epsilon": float(norm["epsilon"]), "clip": float(norm["clip"])},
    }
    return Policy(meta=meta, tensors=load(save(tensors)))


def _timed_vec_env(venv):
    """Wrap a VecEnv so that ``.seconds`` adds up the wall time spent in the envs (steps, resets, masks)."""
    from stable_baselines3.common.vec_env import VecEnvWrapper

    class TimedVecEnv(VecEnvWrapper):
        def __init__(self, inner):
            super().__init__(inner)
            self.seconds = 0.0

        def reset(self):
            t = time.perf_counter()
            obs = self.venv.reset()
            self.seconds += time.perf_counter() - t
            return obs

        def step_async(self, actions):
            t = time.perf_counter()
            self.venv.step_async(actions)
            self.seconds += time.perf_counter() - t

        def step_wait(self):
            t = time.perf_counter()
            out = self.venv.step_wait()
            self.seconds += time.perf_counter() - t
            return out

        def env_method(self, method_name, *args, indices=None, **kwargs):
            t = time.perf_counter()
            out = self.venv.env_method(method_name, *args, indices=indices, **kwargs)
            self.seconds += time.perf_counter() - t
            return out

    return TimedVecEnv(venv)


def _pool_weights(args: Args, n_snapshots: int) -> list[float]:
    nb = len(args.baselines)
    base = list(args.baseline_weights) or [1.0] * nb
    if len(base) != nb:
        raise ValueError(f"baseline_weights must give {nb} weights, one per baseline, got {len(base)}")
    total = sum(base)
    if n_snapshots == 0 or args.self_play_weight <= 0:
        return [w / total for w in base]
    share = min(max(args.self_play_weight, 0.0), 1.0)
    return [(1 - share) * w / total for w in base] + [share / n_snapshots] * n_snapshots


#: Game ``options`` that are arguments of the training view, and what sets them in training instead.
VIEW_OPTION_FIELDS = {
    "opponents": "the training field baselines (SPECs of the opponent pool, with baseline_weights)",
    "weights": "the training field baseline_weights",
    "learner_seat": "the training field learner_seat",
    "shaping": "the training field shaping",
    "max_cycles": "nothing: training never truncates its games",
    "render_mode": "nothing: training does not render",
}


def _check_number(args: Args, name: str, ok, what: str) -> None:
    from train.config import _is_number

    value = getattr(args, name)
    if not _is_number(value) or not ok(value):
        raise ValueError(f"{name} must be {what}, got {value!r}")


def _check_args(args: Args) -> None:
    """Every field's type and range (a one-line ``ValueError`` naming the field), before anything is made."""
    from train.config import _is_int

    if args.game not in ("syvere", "tenthousand", "meyer"):
        raise ValueError(f"unknown game {args.game!r}")
    if not isinstance(args.options, dict):
        raise ValueError(f"options must be a dict of the game's options, got {args.options!r}")
    for key in args.options:
        if key in VIEW_OPTION_FIELDS:
            raise ValueError(f"options: {key!r} is not a game option but an argument of the training view: "
                             f"set {VIEW_OPTION_FIELDS[key]}")  # fmt: skip
    for name in ("timesteps", "n_envs", "n_steps", "batch_size", "n_epochs", "snapshot_every", "eval_every",
                 "pool_size", "torch_threads", "teacher_states", "teacher_epochs"):
        value = getattr(args, name)
        if not _is_int(value) or value < 1:
            raise ValueError(f"{name} must be an int >= 1, got {value!r}")
    if not _is_int(args.eval_deals) or args.eval_deals < 0:
        raise ValueError(f"eval_deals must be an int >= 0, got {args.eval_deals!r}")
    if not _is_int(args.seed) or not 0 <= args.seed <= 2**32 - 1:
        raise ValueError(f"seed must be a whole number from 0 to 2**32 - 1, got {args.seed!r}")
    if not isinstance(args.run_dir, (str, os.PathLike)) or not os.fspath(args.run_dir):
        raise ValueError(f"run_dir must be a path, got {args.run_dir!r}")
    for name in ("anneal_lr", "normalize_obs", "progress"):
        if not isinstance(getattr(args, name), (bool, np.bool_)):
            raise ValueError(f"{name} must be true or false, got {getattr(args, name)!r}")
    if not isinstance(args.teacher, str):
        raise ValueError(f"teacher must be an agent SPEC (a string; empty: none), got {args.teacher!r}")
    if args.learner_seat is not None and not _is_int(args.learner_seat):
        raise ValueError(f"learner_seat must be a seat number or None (a random seat each episode), "
                         f"got {args.learner_seat!r}")  # fmt: skip
    _check_number(args, "learning_rate", lambda x: x > 0, "a number > 0")
    _check_number(args, "teacher_lr", lambda x: x > 0, "a number > 0")
    _check_number(args, "gamma", lambda x: 0 < x <= 1, "a number in (0, 1]")
    _check_number(args, "gae_lambda", lambda x: 0 <= x <= 1, "a number in [0, 1]")
    _check_number(args, "clip_range", lambda x: x > 0, "a number > 0")
    _check_number(args, "ent_coef", lambda x: x >= 0, "a number >= 0")
    _check_number(args, "vf_coef", lambda x: x >= 0, "a number >= 0")
    _check_number(args, "shaping", lambda x: x >= 0, "a number >= 0")
    _check_number(args, "self_play_weight", lambda x: 0 <= x <= 1, "a number in [0, 1]")
    # (hidden, baselines and baseline_weights are checked for their types by Args itself)
    if not all(_is_int(h) and h >= 1 for h in args.hidden):
        raise ValueError(f"hidden must be a list of whole numbers >= 1 such as [64, 64], got {list(args.hidden)!r}")
    if args.vec_env not in ("dummy", "subproc"):
        raise ValueError(f"vec_env must be 'dummy' or 'subproc', got {args.vec_env!r}")
    if args.activation not in ("tanh", "relu"):
        raise ValueError(f"activation must be 'tanh' or 'relu', got {args.activation!r}")
    if not args.baselines:
        raise ValueError("baselines must name at least one agent")
    if args.baseline_weights and len(args.baseline_weights) != len(args.baselines):
        raise ValueError(
            f"baseline_weights must give {len(args.baselines)} weights, one per baseline "
            f"({', '.join(args.baselines)}), got {len(args.baseline_weights)}: give one weight per baseline, "
            "or none for equal weights"
        )
    rollout = args.n_steps * args.n_envs
    if args.batch_size > rollout:
        # SB3 cuts each epoch's rollout into minibatches of batch_size: a larger batch_size is one
        # minibatch of the whole rollout, silently. Warned, not refused: fewer n_envs on a small machine
        # (vecbench --n-envs 1) is a fair run, full-batch PPO.
        warnings.warn(
            f"batch_size {args.batch_size} is larger than a rollout (n_steps * n_envs = {args.n_steps} * "
            f"{args.n_envs} = {rollout}): each PPO epoch is one minibatch of {rollout}", stacklevel=2,
        )  # fmt: skip
    if args.shaping and args.gamma != 1.0:
        warnings.warn(
            f"shaping={args.shaping} with gamma={args.gamma}: the shaping leaves the best policy unchanged only "
            "at gamma = 1", stacklevel=2,
        )  # fmt: skip
    if args.teacher and args.gamma != 1.0:
        raise ValueError("a teacher needs gamma = 1: its value targets are undiscounted returns")


#: Settings a resumed run may change: how long and how it runs, not what it learns (up to rounding:
#: ``torch_threads`` changes the order of torch's sums, and so the weights in the last bits, 2.4e-7 after
#: 20 000 Meyer steps, as a change of machine can; the other three change nothing).
RESUMABLE = frozenset({"timesteps", "run_dir", "progress", "torch_threads", "vec_env", "eval_every", "eval_deals"})
#: Seeds of the envs of run segment k of a run of seed s: s * SEED_STRIDE + k * SEGMENT_STRIDE + i.
#: For s up to 998 they stay below EVAL_SEED (and the evaluation of ``dice-envs train --evaluate``).
SEED_STRIDE = 1_000_003
SEGMENT_STRIDE = 1009


def _same_options(game: str, old: dict, new: dict) -> bool:
    """Whether two spellings of a game's options build the same game (``--history 8`` is the
    default spelled out; a preset is its options)."""
    if old == new:
        return True
    from agents.checkpoint import engine_options
    from dice_envs.registry import env_module

    try:
        engines = [env_module(game).raw_env(**options).game for options in (old, new)]
    except ValueError:
        return False
    return engine_options(engines[0]) == engine_options(engines[1])


def _check_resume(run: Path, old: dict, args: Args) -> None:
    """Refuse resuming ``run`` with settings other than it was trained with (``ValueError``): the
    saved model would keep its own (its network, its optimiser's settings) and the checkpoints
    would describe the new ones. Settings the old state file does not hold are not compared."""
    new = args.to_json()
    changed = [k for k in new if k not in RESUMABLE | {"options"} and k in old and old[k] != new[k]]
    if changed:
        listed = "; ".join(f"{k} {old[k]!r} (this command: {new[k]!r})" for k in changed)
        raise ValueError(
            f"{run} was trained with other settings: {listed}. Resuming keeps a run's settings: give the same "
            f"ones (only {', '.join(sorted(RESUMABLE - {'run_dir'}))} may change), or use another --run-dir"
        )


def _write_json(path: Path, data) -> None:
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(strict_json.dumps(data, indent=1, default=float))
        os.replace(tmp, path)
    except OSError as exc:  # a full disk: one line naming the file, and no half-written temp file left
        try:
            tmp.unlink()
        except OSError:
            pass
        raise save_error(exc, path, tmp) from None


def _annealed(schedule: dict, step: int) -> float:
    """The learning rate of ``anneal_lr`` at ``step``: linear from ``rate`` at ``from_step`` to 0 at ``to_step``."""
    span = schedule["to_step"] - schedule["from_step"]
    if span <= 0:
        return 0.0
    return schedule["rate"] * min(max(1.0 - (step - schedule["from_step"]) / span, 0.0), 1.0)


def _anneal_schedule(state: dict, args: Args, done: int, resumed: bool) -> dict:
    """The ``anneal_lr`` schedule of this segment, continuous with the run's so far.

    A run anneals linearly from ``learning_rate`` at step 0 to 0 at ``timesteps`` (one rate per period). A
    resume with another ``--timesteps`` goes on from the rate the run has reached at its saved step down to 0
    at the new total, so that raising the total never raises the rate; a run that had finished its schedule
    (rate 0) goes on from the rate of its last period.
    """
    if not resumed:
        return {"from_step": 0, "rate": float(args.learning_rate), "to_step": int(args.timesteps)}
    old = state.get("anneal") or {"from_step": 0, "rate": float(state["args"]["learning_rate"]),
                                  "to_step": int(state["args"]["timesteps"])}  # (a state saved before this key)
    if old["to_step"] == args.timesteps:
        return old
    rate = _annealed(old, done)
    if rate <= 0:  # the schedule had ended: the rate of its last period (for older state files, of the period
        # that began at the last multiple of the period length below the saved step)
        period = min(state["args"]["snapshot_every"], state["args"]["eval_every"])
        rate = state.get("anneal_last_rate") or _annealed(old, max(done - 1, 0) // period * period)
    return {"from_step": int(done), "rate": float(rate), "to_step": int(args.timesteps)}


@contextmanager
def _signals_deferred() -> Iterator[None]:
    """Within the block, Ctrl-C and SIGTERM are held back and delivered when it ends (in the main thread:
    Python runs signal handlers there only; elsewhere, or for a handler not set from Python, as they come)."""
    import signal
    import threading

    kinds = [s for s in (signal.SIGINT, signal.SIGTERM) if signal.getsignal(s) is not None]
    if threading.current_thread() is not threading.main_thread():
        kinds = []
    caught: list[int] = []
    before = {s: signal.signal(s, lambda signum, _frame: caught.append(signum)) for s in kinds}
    try:
        yield
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)
        for signum in caught:
            signal.raise_signal(signum)  # as if it came now, to the handler put back


def _save_resume(resume_dir: Path, model, venv, state: dict) -> None:
    """What resuming needs: ``model.zip``, ``vecnormalize.pkl`` and ``state.json``, saved whole beside
    ``resume/`` and swapped in (:func:`train.atomic.save_checkpoint_atomically`), with Ctrl-C and SIGTERM
    held back until all three are in place: a stop never leaves a ``state.json`` that describes other files
    (a SIGTERM between the model and the state made a resume go on from the model's later step with the
    older statistics; outside review of the diff, 2026-12-01) nor half a zip, and a kill or a power cut
    leaves a whole save that :func:`train.atomic.recover_checkpoint` finds when the run starts again."""

    def write(directory: Path) -> None:
        directory.mkdir()
        for name, save in (("model.zip", model.save), ("vecnormalize.pkl", venv.save)):
            try:
                save(str(directory / name))
            except OSError as exc:  # (a full disk: the libraries' errors name no file)
                if exc.filename is None:
                    exc.filename = str(directory / name)
                raise
        _write_json(directory / "state.json", state)

    with _signals_deferred():
        save_checkpoint_atomically(write, resume_dir, {"timesteps": state.get("timesteps")})


def _refresh_policy(run: Path, checkpoint: str) -> None:
    """Make ``run/policy`` a copy of ``checkpoint``, saved whole and swapped in as :func:`_save_resume`
    saves (Ctrl-C and SIGTERM held back), so that an interrupted run keeps a whole ``policy/``."""
    import shutil

    with _signals_deferred():
        save_checkpoint_atomically(lambda new: shutil.copytree(checkpoint, new), run / "policy",
                                   {"checkpoint": Path(checkpoint).name})  # fmt: skip


#: What the message of a damaged ``resume/`` tells the user to do (``{resume}``: the directory, or "it").
RESUME_HINT = "delete {resume} to train this run afresh (its checkpoints/ stay), or use another --run-dir"
#: The parts of a run directory checked (:func:`train.rundir.check_run_parts`) once the run is locked.
RUN_PARTS = ("tb", "checkpoints", "resume", "policy")


def _unreadable(run: Path, name: str, exc: BaseException) -> Exception:
    """The error of a file of ``run/resume`` that cannot be loaded: one line naming it, and what to do."""
    detail = " ".join(str(exc).split())[:200]
    detail = f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__
    resume = run / "resume"
    text = f"{resume / name} cannot be read ({detail}): {RESUME_HINT.format(resume=resume)}"
    if isinstance(exc, OSError) and not isinstance(exc, (FileNotFoundError, IsADirectoryError)):
        return OSError(text)  # the system refused (permissions): exit 1
    return ValueError(text)


def _read_state(run: Path) -> dict:
    """``run/resume/state.json``, checked to be a run's state (a ``ValueError`` naming it and the way out)."""
    try:
        state = json.loads((run / "resume" / "state.json").read_text(encoding="utf-8"))
        if not isinstance(state, dict):
            raise ValueError("not a table of the run's state")
        old = state.get("args")
        if not (isinstance(old, dict) and isinstance(old.get("game"), str)
                and isinstance(old.get("options"), dict)):
            raise ValueError("no settings (args) of a run in it")
        for key in ("timesteps", "wall_seconds", "env_seconds", "update_seconds"):
            if isinstance(state.get(key), bool) or not isinstance(state.get(key), (int, float)):
                raise ValueError(f"no number {key} in it")
        for key in ("snapshots", "evals"):
            if not isinstance(state.get(key), list):
                raise ValueError(f"no list {key} in it")
    except Exception as exc:  # noqa: BLE001 - whatever is wrong, it is this file
        raise _unreadable(run, "state.json", exc) from None
    return state


def _load_resume_file(run: Path, name: str, load):
    """``load()``, which reads ``run/resume/name``; any failure is said as :func:`_unreadable` (not as the
    library's own error: a damaged pickle can raise anything, MemoryError among them)."""
    try:
        return load()
    except Exception as exc:  # noqa: BLE001 - whatever is wrong, it is this file
        raise _unreadable(run, name, exc) from None


def _recover_saves(run: Path) -> None:
    """Tidy what a save killed in the middle (SIGKILL, a power cut) left of ``resume/`` and ``policy/``,
    saying so: the newest whole save goes in (:func:`train.atomic.recover_checkpoint`).

    Raises:
        ValueError: ``resume/`` is incomplete and nothing whole is beside it.
    """
    for target, what, legacy, hint in (
        # (a resume/ saved before saves carried a marker is whole when its state.json, written last, is there)
        # (or empty: a run stopped before its first save, by a version that made resume/ at the start)
        (run / "resume", "resume directory",
         lambda path: (path / "state.json").is_file() or not any(path.iterdir()),
         RESUME_HINT.format(resume="it")),
        # (whatever is there without a marker: the checkpoint loader checks)
        (run / "policy", "policy", lambda _path: True,
         "delete it (the run makes it again from its latest checkpoint), or use another --run-dir"),
    ):
        left = [p.name for p in siblings(target) if p.exists()]
        recover_checkpoint(target, what, legacy=legacy, hint=hint)
        if left:
            print(f"{target}: tidied what an interrupted save left ({', '.join(left)}); "
                  f"{target.name}/ is now {'the newest whole save' if target.exists() else 'absent'}",
                  file=sys.stderr, flush=True)  # fmt: skip


def _summary(run: Path, state: dict, args_json: dict, timesteps: int, resumed: bool) -> dict:
    wall = state["wall_seconds"]
    return {
        "game": args_json["game"],
        "options": args_json["options"],
        "timesteps": int(timesteps),
        "wall_seconds": wall,
        # This process's CPU time (all its threads): the figure that does not depend on the load
        # of a shared machine; with one torch thread and DummyVecEnv it is about one core's time.
        "cpu_seconds": state.get("cpu_seconds", math.nan),
        # Steps per second of the whole run, the kickstart included (its share: kickstart_seconds).
        "steps_per_second": timesteps / wall if wall else math.nan,
        # (None: a run that kickstarted before this figure was kept, then resumed)
        "kickstart_seconds": state.get("kickstart_seconds", None if state.get("kickstart") else 0.0),
        "env_share": state["env_seconds"] / wall if wall else math.nan,
        "update_share": state["update_seconds"] / wall if wall else math.nan,
        "policy": str(run / "policy"),
        "evaluations": state["evals"],
        "kickstart": state.get("kickstart"),
        "resumed": resumed,
        # Where each segment of the run began (a resume starts one), with what could make its
        # weights differ from a straight run's: its env seed, torch threads and library versions.
        # (state.json's list of the same name; its "segments" is their count. A run started before summaries
        # held this list has only the segments since.)
        "segment_starts": state.get("segment_starts", []),
        "versions": versions(),
        "args": args_json,
    }


def _nothing_to_train(run: Path, state: dict) -> dict:
    """The summary of a run that has trained its ``--timesteps`` already: its own, unchanged, if it
    describes the saved state; otherwise (the run stopped after its last save) made from that state."""
    done = int(state["timesteps"])
    summary_file = run / "summary.json"
    if summary_file.is_file():
        summary = json.loads(summary_file.read_text())
        if summary.get("timesteps") == done:
            return summary
    snapshots = [run / "checkpoints" / Path(s).name for s in state["snapshots"]]
    snapshots = [s for s in snapshots if (s / "policy.json").is_file()]
    if snapshots and not (run / "policy" / "policy.json").is_file():
        _refresh_policy(run, str(snapshots[-1]))
    summary = _summary(run, state, state["args"], done, resumed=True)
    _write_json(summary_file, summary)
    return summary


def _saved_step(state_file: Path) -> int | None:
    try:
        return int(json.loads(state_file.read_text())["timesteps"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def train(args: Args) -> dict:
    """Train (or resume training) as ``args`` says; return the run summary (also in summary.json).

    A run that has trained ``args.timesteps`` already trains nothing: it says so in one line and returns
    its summary. SIGTERM (``kill``, ``timeout``, a scheduler) stops the run as Ctrl-C does, at once, keeping
    what the last saved period saved; it says so in one line on stderr and raises ``SystemExit(143)``
    (128 + SIGTERM's 15, the status SIGTERM gives by default). An env process that dies (``vec_env=subproc``:
    killed, out of memory) stops it too, with :class:`dice_envs.cli.CommandFailed` saying where it is saved.

    One process at a time trains a run directory: it holds ``RUN/.lock`` (:class:`train.rundir.RunLock`) from
    before it reads the run until it ends, and a second one is refused (:class:`train.rundir.RunDirBusy`, an
    ``OSError``: exit 1) with the first one's pid. A run directory that cannot be written is refused before
    anything is built (:func:`train.rundir.locked_run_dir`); a new one is made, locked, and removed again if the
    command is refused.
    """
    _check_args(args)
    run = Path(args.run_dir)
    with locked_run_dir(run, RUN_PARTS):
        return _start(args, run)


def _from_env_pipe(exc: BaseException) -> bool:
    """Whether ``exc`` (an ``EOFError`` or a ``ConnectionError``) was raised on a ``SubprocVecEnv``'s pipes: its
    traceback passes through SB3's ``subproc_vec_env`` module. A pipe error elsewhere (a closed stdout under
    ``print``, which the command line ends quietly with 141) is no dead env."""
    from stable_baselines3.common.vec_env import subproc_vec_env

    module = os.path.normcase(os.path.realpath(subproc_vec_env.__file__))
    tb = exc.__traceback__
    while tb is not None:
        if os.path.normcase(os.path.realpath(tb.tb_frame.f_code.co_filename)) == module:
            return True
        tb = tb.tb_next
    return False


def _start(args: Args, run: Path) -> dict:
    """:func:`train` once the run directory is made, checked and locked."""
    import torch

    from evaluate.tournament import Terminated, sigterm_as_interrupt

    torch.set_num_threads(args.torch_threads)
    resume_dir = run / "resume"
    state_file = resume_dir / "state.json"
    _recover_saves(run)  # a run killed in the middle of a save
    resumed = state_file.is_file()
    state: dict[str, Any] = {"snapshots": [], "evals": [], "wall_seconds": 0.0, "env_seconds": 0.0,
                             "update_seconds": 0.0, "cpu_seconds": 0.0}
    if resumed:
        state = _read_state(run)
        old = state["args"]
        if old["game"] != args.game or not _same_options(args.game, old["options"], args.options):
            raise ValueError(
                f"{run} holds a run of {old['game']} with options {old['options']}; "
                f"this command trains {args.game} with {args.options}: use another --run-dir"
            )
        _check_resume(run, old, args)
    # Options, baseline SPECs, the seat and the teacher are checked before the run writes anything: a refused
    # command leaves nothing behind (a new run directory, empty, is removed again by locked_run_dir).
    probe = SingleAgentView(args.game, opponents=list(args.baselines), learner_seat=args.learner_seat,
                            shaping=args.shaping, **args.options)
    engine = probe.engine  # (the view built every baseline when its pool was set: a bad one is refused)
    done = int(state.get("timesteps", 0)) if resumed else 0
    if resumed and done >= args.timesteps:
        print(f"already trained {done} steps >= --timesteps {args.timesteps}: nothing to train", flush=True)
        return {**_nothing_to_train(run, state), "nothing_to_train": True}  # (the flag: not in summary.json)
    anneal = _anneal_schedule(state, args, done, resumed) if args.anneal_lr else None
    if args.teacher and not state.get("kickstart"):
        from train.view import resolve_agent

        try:
            resolve_agent(args.game, engine, args.teacher, seed=0)  # built once and dropped, as the baselines
        except ValueError as exc:
            raise ValueError(f"teacher: {exc}") from None
    with sigterm_as_interrupt():
        try:
            return _train(args, run, state, resumed, engine, probe.num_players, anneal)
        except Terminated:
            print(f"\ndice-envs: terminated (SIGTERM); {_where_saved(run)}", file=sys.stderr, flush=True)
            raise SystemExit(143) from None
        except KeyboardInterrupt as exc:  # Ctrl-C: said as SIGTERM is (the command line prints it once)
            if str(exc):
                raise
            raise KeyboardInterrupt(_where_saved(run)) from None
        except (EOFError, ConnectionError) as exc:  # (BrokenPipeError and ConnectionResetError among them)
            if args.vec_env != "subproc" or not _from_env_pipe(exc):
                raise
            from dice_envs.cli import CommandFailed

            detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            raise CommandFailed(f"an env process died (killed, or out of memory?) ({detail}); "
                                f"{_where_saved(run)}") from None  # fmt: skip


def _where_saved(run: Path) -> str:
    """Where a stopped run is saved and what to do, for the messages of a run stopped midway."""
    step = _saved_step(run / "resume" / "state.json")
    if step is not None:
        return f"the run is saved at step {step} in {run}: the same command resumes"
    return f"nothing of the run in {run} was saved yet: the same command starts it again"


def _train(args: Args, run: Path, state: dict, resumed: bool, engine, num_players: int, anneal: dict | None) -> dict:
    """The run itself, once :func:`train` has checked everything and made ``run``."""
    import torch.nn as nn
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.logger import Logger, TensorBoardOutputFormat
    from stable_baselines3.common.utils import safe_mean
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor, VecNormalize
    from torch.utils.tensorboard import SummaryWriter

    resume_dir = run / "resume"
    done = int(state.get("timesteps", 0)) if resumed else 0

    # Each run segment seeds its envs afresh: env i of a segment gets segment_seed + i, so runs of
    # other seeds and the segments of one run (resumed after evals) draw other streams.
    # The segment count is kept in the state file (evaluations need not run between two resumes).
    segment = state.get("segments", len(state["evals"]))
    state["segments"] = segment + 1  # saved with the state at the end of the first period
    segment_seed = args.seed * SEED_STRIDE + segment * SEGMENT_STRIDE
    state.setdefault("segment_starts", []).append(
        {"step": done, "env_seed": segment_seed, "torch_threads": args.torch_threads, "versions": versions()}
    )
    if anneal is not None:
        state["anneal"] = anneal  # saved with the state too

    def make(i):
        def thunk():
            return SingleAgentView(args.game, opponents=list(args.baselines), learner_seat=args.learner_seat,
                                   shaping=args.shaping, **args.options)
        return thunk

    vec_cls = DummyVecEnv if args.vec_env == "dummy" else SubprocVecEnv
    # VecMonitor: episode returns and lengths, logged as charts/ep_rew_mean and charts/ep_len_mean.
    base_venv = VecMonitor(vec_cls([make(i) for i in range(args.n_envs)]))
    activation = nn.Tanh if args.activation == "tanh" else nn.ReLU
    try:
        base_venv.seed(segment_seed)
        # The saved statistics and model are loaded by their libraries; a damaged file (which its marker's
        # sizes do not show) is said as one line naming it (_load_resume_file), not as their errors.
        statistics, model_zip = str(resume_dir / "vecnormalize.pkl"), str(resume_dir / "model.zip")
        if resumed and (resume_dir / "vecnormalize.pkl").is_file():
            venv = _load_resume_file(run, "vecnormalize.pkl", lambda: VecNormalize.load(statistics, base_venv))
        else:
            venv = VecNormalize(base_venv, norm_obs=args.normalize_obs, norm_reward=False, clip_obs=10.0,
                                gamma=args.gamma)
        venv.training = True
        if resumed:
            model = _load_resume_file(run, "model.zip", lambda: MaskablePPO.load(model_zip, env=venv, device="cpu"))
        else:
            model = MaskablePPO(
                "MlpPolicy", venv, learning_rate=args.learning_rate, n_steps=args.n_steps,
                batch_size=args.batch_size, n_epochs=args.n_epochs, gamma=args.gamma, gae_lambda=args.gae_lambda,
                clip_range=args.clip_range, ent_coef=args.ent_coef, vf_coef=args.vf_coef, seed=args.seed,
                device="cpu", verbose=0,
                policy_kwargs={"net_arch": {"pi": list(args.hidden), "vf": list(args.hidden)},
                               "activation_fn": activation},
            )
    except BaseException:
        try:
            base_venv.close()  # (subprocess envs: their processes end)
        except Exception:  # noqa: BLE001 - the first error is the one to report
            pass
        raise
    timed = _timed_vec_env(venv)
    # SB3 seeds the envs with its own seed + i when it builds or loads the model: give them the
    # segment's seeds instead (a resumed segment also reseeds torch, which load() set to the run's seed).
    if resumed:
        model.set_random_seed(segment_seed % 2**32)  # numpy's global seed must be below 2**32
    venv.seed(segment_seed)
    # MaskablePPO reads the masks through env_method: time the env through the wrapper.
    model.env = timed

    class _RenamingTB(TensorBoardOutputFormat):
        """SB3's ``train/*`` scalars under ``losses/``, ``rollout/*`` under ``charts/`` (CleanRL's names).

        A resumed run's writer starts with ``purge_step``: TensorBoard then hides what the interrupted
        segment wrote after its last saved period, which this segment writes again."""

        def __init__(self, folder: str, purge_step: int | None = None):  # (SB3's, with purge_step)
            self.writer = SummaryWriter(log_dir=folder, purge_step=purge_step)
            self._is_closed = False

        def write(self, key_values, key_excluded, step=0):
            renamed, excluded = {}, {}
            for k, v in key_values.items():
                new = k.replace("train/", "losses/", 1).replace("rollout/", "charts/", 1)
                renamed[new] = v
                excluded[new] = key_excluded.get(k, ())
            super().write(renamed, excluded, step)

    purge_step = None
    if resumed:
        # Kickstart epochs are logged at steps 0 .. teacher_epochs - 1: never purge those.
        purge_step = max(done + 1, args.teacher_epochs if state.get("kickstart") else 0)
    elif (run / "tb").is_dir() and any((run / "tb").iterdir()):
        purge_step = 0  # a start again of a run stopped before its first save: hide what that attempt logged
    logger = Logger(folder=str(run / "tb"), output_formats=[_RenamingTB(str(run / "tb"), purge_step)])
    model.set_logger(logger)

    def dump(step: int) -> None:
        """One TensorBoard record per PPO update (SB3's own, inside learn(), is off: log_interval=None)."""
        if model.ep_info_buffer:
            model.logger.record("rollout/ep_rew_mean", safe_mean([e["r"] for e in model.ep_info_buffer]))
            model.logger.record("rollout/ep_len_mean", safe_mean([e["l"] for e in model.ep_info_buffer]))
        model.logger.dump(step)

    # Snapshots are kept by their name under RUN/checkpoints (older state files hold paths relative
    # to the directory the run was started from): a run resumed from elsewhere keeps its pool.
    snapshots: list[str] = [str(run / "checkpoints" / Path(s).name) for s in state["snapshots"]]
    lost = [s for s in snapshots if not (Path(s) / "policy.json").is_file()]
    if lost:
        warnings.warn(f"{len(lost)} self-play snapshot(s) of {run} are missing and leave the pool: {', '.join(lost)}",
                      stacklevel=2)
        snapshots = [s for s in snapshots if s not in lost]

    def update_pool():
        # Snapshots join the pool only when self-play has a share of it. They go by path, with
        # sampled actions: every seat of every env builds its own agent (kept while the snapshot
        # stays in the pool), so the run does not depend on whether the envs share a process.
        recent = snapshots[-args.pool_size:] if args.self_play_weight > 0 else []
        agents = [f"{path}:greedy=false" for path in recent]
        pool = list(args.baselines) + agents
        venv.env_method("set_opponents", pool, _pool_weights(args, len(agents)))
        return len(args.baselines)

    try:
        if args.teacher and not state.get("kickstart"):
            from train.teacher import kickstart

            def log_epoch(epoch, figures):
                for key, value in figures.items():
                    model.logger.record(f"losses/teacher_{key}", value)
                model.logger.dump(epoch)
                if args.progress:
                    print(f"kickstart from {args.teacher}: epoch {epoch + 1}/{args.teacher_epochs} "
                          f"cross-entropy {figures['cross_entropy']:.4f}, agreement {figures['agreement']:.3f}, "
                          f"value loss {figures['value_loss']:.4f}", flush=True)

            if args.progress:
                short = (f"; more than this run's {args.timesteps:,} PPO steps: for a quick run lower it with "
                         f"--set teacher_states=N" if args.teacher_states > args.timesteps else "")  # fmt: skip
                print(f"kickstart from {args.teacher}: playing {args.teacher_states:,} of its decisions "
                      f"(teacher_states){short}", flush=True)  # fmt: skip
            t0, c0 = time.perf_counter(), time.process_time()
            state["kickstart"] = kickstart(model, venv, args, log=log_epoch)
            state["kickstart_seconds"] = time.perf_counter() - t0
            state["wall_seconds"] += state["kickstart_seconds"]
            state["cpu_seconds"] = state.get("cpu_seconds", 0.0) + time.process_time() - c0
            state.update({"args": args.to_json(), "timesteps": model.num_timesteps})
            _save_resume(resume_dir, model, venv, state)

        n_baselines = update_pool()
        returns_by: defaultdict[str, deque[float]] = defaultdict(lambda: deque(maxlen=500))
        latest: dict[str, float] = {}

        from dice_envs.progress import progress_bar

        bar = progress_bar(total=args.timesteps, initial=min(model.num_timesteps, args.timesteps), unit="step",
                           disable=not args.progress, desc=f"train {args.game}")
        times: dict[str, Any] = {"update": 0.0, "rollout_end": None, "undumped": False}

        class _Callback(BaseCallback):
            def _on_rollout_start(self) -> None:
                if times["rollout_end"] is not None:
                    times["update"] += time.perf_counter() - times["rollout_end"]
                if times["undumped"]:  # the update after the last rollout: logged at that rollout's end
                    dump(self.model.num_timesteps)
                    times["undumped"] = False

            def _on_rollout_end(self) -> None:
                times["rollout_end"] = time.perf_counter()
                times["undumped"] = True

            def _on_step(self) -> bool:
                steps = self.training_env.num_envs
                if bar.n + steps > bar.total:  # PPO trains whole rollouts, so a run can pass --timesteps
                    bar.total = bar.n + steps
                bar.update(steps)
                for info, done_ in zip(self.locals["infos"], self.locals["dones"]):
                    if done_ and "learner_return" in info:
                        kinds = {("pool" if i is not None and i >= n_baselines else args.baselines[i])
                                 for i in info["opponents"] if i is not None}
                        label = "pool" if "pool" in kinds else "+".join(sorted(kinds))
                        returns_by[label].append(info["learner_return"])
                return True

        callback = _Callback()
        start = time.perf_counter()
        wall0, env0, upd0 = state["wall_seconds"], state["env_seconds"], state["update_seconds"]
        cpu0, cpu_start = state.get("cpu_seconds", 0.0), time.process_time()
        period = min(args.snapshot_every, args.eval_every)
        try:
            while model.num_timesteps < args.timesteps:
                before = model.num_timesteps
                chunk = min(period - before % period, args.timesteps - before)
                if anneal is not None:
                    # SB3's own schedule restarts with every learn() call; this one follows the run.
                    lr = _annealed(anneal, before)

                    def constant_rate(_progress: float, _lr: float = lr) -> float:
                        return _lr

                    model.lr_schedule = constant_rate
                    state["anneal_last_rate"] = lr  # (saved with the state at the period's end)
                times["rollout_end"], times["undumped"] = None, False
                # log_interval=None: SB3 dumps nothing itself (it would log the steps after the last saved
                # period, and each period's last step twice); dump() logs each update once.
                model.learn(total_timesteps=chunk, reset_num_timesteps=False, callback=callback, progress_bar=False,
                            log_interval=None)  # type: ignore[arg-type]  # (SB3 tests `is not None`)
                now = model.num_timesteps
                # the update after a chunk's last rollout ran inside learn(), after the last rollout end
                if times["rollout_end"] is not None:
                    times["update"] += time.perf_counter() - times["rollout_end"]
                crossed = lambda every: now // every > before // every or now >= args.timesteps  # noqa: E731
                if crossed(args.snapshot_every):
                    path = str(run / "checkpoints" / f"step_{now:09d}")
                    try:
                        save_checkpoint(path, engine, *_net_arrays(model), activation=args.activation,
                                        normalization=_normalization(venv, args),
                                        training={"timesteps": now, "seed": args.seed, "args": args.to_json()})
                    except OSError as exc:  # a full disk: one line naming the checkpoint
                        raise save_error(exc, Path(path)) from None
                    snapshots.append(path)
                    # policy/ is the latest checkpoint (what `play` and `tournament` are pointed at), kept
                    # up to date at every snapshot so that an interrupted run has one.
                    _refresh_policy(run, path)
                    update_pool()
                for label, values in returns_by.items():
                    if values:
                        n = num_players
                        share = np.mean([r if r > 0 else (1 / n if r == 0 else 0.0) for r in values])
                        # Training games, the sampled policy (charts/win_rate_vs_<agent> is the greedy evaluation).
                        model.logger.record(f"charts/train_win_rate_vs_{label}", float(share))
                        if label == "pool":
                            latest["pool"] = float(share)
                if args.eval_deals and crossed(args.eval_every):
                    policy = memory_policy(model, venv, engine, args)

                    def act(obs, mask, _p=policy):
                        return int(np.argmax(_p.probabilities(obs, mask)))

                    record: dict[str, Any] = {"timesteps": now}
                    for k, spec in enumerate(args.baselines):
                        res = play_against(act, args.game, args.options, spec, args.eval_deals,
                                           EVAL_SEED + 1_000_000 * k + now % 1_000_000)
                        rate, low, high = res.interval()
                        record[spec] = {"win_rate": rate, "low": low, "high": high, "games": res.games}
                        model.logger.record(f"charts/win_rate_vs_{spec}", rate)
                        latest[spec] = rate
                    state["evals"].append(record)
                elapsed = time.perf_counter() - start
                model.logger.record("charts/steps_per_second", now / max(wall0 + elapsed, 1e-9))
                dump(now)
                times["undumped"] = False
                bar.set_postfix({k: f"{v:.3f}" for k, v in latest.items()})
                # What resuming needs, saved whole (_save_resume).
                state.update({
                    "args": args.to_json(), "timesteps": now,
                    "snapshots": [str(Path(p).relative_to(run)) for p in snapshots],
                    "wall_seconds": wall0 + elapsed, "env_seconds": env0 + timed.seconds,
                    "cpu_seconds": cpu0 + time.process_time() - cpu_start,
                    "update_seconds": upd0 + times["update"],
                })
                _save_resume(resume_dir, model, venv, state)
        finally:
            bar.close()
    finally:
        logger.close()  # TensorBoard's events written so far reach the file, interrupted or not
        try:
            venv.close()
        except (OSError, EOFError):  # subprocess envs already ended by the signal that stops the run
            pass

    final = snapshots[-1] if snapshots else None
    if final is not None and not (run / "policy" / "policy.json").is_file():
        _refresh_policy(run, final)
    summary = _summary(run, state, args.to_json(), model.num_timesteps, resumed)
    _write_json(run / "summary.json", summary)
    return summary
