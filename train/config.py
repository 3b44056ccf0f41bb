"""The training configuration: one dataclass of arguments (CleanRL style) and a default recipe per game.

Precedence, lowest first: the dataclass defaults, the game's recipe (:data:`RECIPES`), a
``--config FILE`` (JSON or TOML, keys are the field names below), then command-line flags.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import math
import os
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Args:
    """Everything a training run needs; each field's docstring says what it does."""

    game: str = "meyer"
    """Short name of the game: syvere, tenthousand or meyer."""
    options: dict = field(default_factory=dict)
    """The game's options (num_players, preset, lives, ...), as the env takes them."""
    timesteps: int = 500_000
    """Total learner decisions (env steps) to train for; a resumed run stops at the same total."""
    seed: int = 0
    """Seed of everything random in the run (envs, opponents, network initialisation)."""
    run_dir: str = "runs/run"
    """Directory of the run: checkpoints/, policy/ (the latest), resume/, tb/, summary.json. ``dice-envs train``
    defaults it to ``runs/<game>-seed<S>`` (``--run-dir``); ``runs/run`` is the default of ``Args`` made in Python."""
    n_envs: int = 8
    """Parallel environments."""
    vec_env: str = "dummy"
    """``dummy`` (all envs in this process) or ``subproc`` (one process each); dummy is about twice as fast on 2
    cores (``python -m train.vecbench``: subproc / dummy 0.43 for Meyer, 0.55 for 10 000)."""
    torch_threads: int = 1
    """torch's intra-op threads; 1 was fastest for these small networks on 2 cores."""
    n_steps: int = 256
    """Steps per env between PPO updates (the rollout is n_steps * n_envs)."""
    batch_size: int = 512
    """PPO minibatch size."""
    n_epochs: int = 4
    """PPO epochs over each rollout."""
    learning_rate: float = 3e-4
    """Adam learning rate (constant unless ``anneal_lr``)."""
    anneal_lr: bool = False
    """Decay the learning rate linearly towards 0 over ``timesteps`` (CleanRL's ``anneal_lr``), in steps of
    one snapshot/evaluation period; a resumed run picks up the decay where it stopped. Resumed with another
    ``timesteps``, it goes on from the rate reached at the saved step (a finished run: from its last
    period's) down to 0 at the new total: the rate never goes back up."""
    gamma: float = 1.0
    """Discount; 1 because the only reward is the game's result (C-3), however late it comes."""
    gae_lambda: float = 0.95
    """GAE lambda."""
    clip_range: float = 0.2
    """PPO clipping."""
    ent_coef: float = 0.01
    """Entropy bonus."""
    vf_coef: float = 0.5
    """Value loss weight."""
    hidden: tuple = (64, 64)
    """Hidden layer sizes of the policy and (separately) of the value network: a list of whole numbers >= 1
    (``[64]`` is one layer of 64; ``[]`` a linear policy)."""
    activation: str = "tanh"
    """Activation of the hidden layers: tanh or relu."""
    normalize_obs: bool = True
    """Normalise observations with running statistics (VecNormalize); saved in every checkpoint."""
    shaping: float = 0.0
    """Scale of the potential-based reward shaping on the learner's standing (0 = off); see train.view."""
    baselines: tuple = ("random",)
    """SPECs of the built-in agents in the opponent pool; the periodic evaluation plays each of them."""
    baseline_weights: tuple = ()
    """Drawing weights of the baselines (default equal). Other ``baselines`` than the recipe's, given without
    weights, are drawn with equal weights (the recipe's weights belong to its own baselines)."""
    self_play_weight: float = 0.5
    """Share of the opponent pool given to the learner's past snapshots once there are any."""
    pool_size: int = 8
    """Past snapshots kept in the pool (the oldest leave first)."""
    snapshot_every: int = 50_000
    """Timesteps between snapshots added to the pool (and checkpoints written)."""
    eval_every: int = 50_000
    """Timesteps between evaluations against the baselines."""
    eval_deals: int = 50
    """Deals per baseline in the periodic evaluation (each played in every seat)."""
    teacher: str = ""
    """SPEC of an agent to imitate before PPO starts (kickstarting, see train.teacher); empty = none."""
    teacher_states: int = 200_000
    """Learner decisions the teacher plays to make the imitation data (whole games)."""
    teacher_epochs: int = 10
    """Passes over the imitation data."""
    teacher_lr: float = 1e-3
    """Adam learning rate of the imitation phase."""
    learner_seat: Any = None
    """The learner's seat, or None for a random seat each episode."""
    progress: bool = True
    """Show a progress bar (tqdm) with steps/s and the latest win rates."""

    def __post_init__(self) -> None:
        # The list fields, read from a config file or Python, are checked for their types here (the
        # trainer checks every field's range before it creates anything: train.trainer._check_args).
        self.hidden = _int_list("hidden", self.hidden, "[64, 64]")
        self.baselines = tuple(os.fspath(b) if isinstance(b, os.PathLike) else b
                               for b in _list("baselines", self.baselines, '["honest"]'))  # fmt: skip
        if not all(isinstance(b, str) and b for b in self.baselines):
            raise ValueError(f"baselines must be a list of agent SPECs (strings), got {list(self.baselines)!r}")
        weights = _list("baseline_weights", self.baseline_weights, "[1.0]")
        if not all(_is_number(w) and w >= 0 for w in weights) or (weights and not sum(weights) > 0):
            raise ValueError(
                f"baseline_weights must be a list of numbers >= 0, not all 0, got {list(weights)!r}"
            )
        self.baseline_weights = tuple(float(w) for w in weights)

    def to_json(self) -> dict:
        """The arguments as a JSON-able dict."""
        d = dataclasses.asdict(self)
        d["hidden"] = list(self.hidden)
        d["baselines"] = list(self.baselines)
        d["baseline_weights"] = list(self.baseline_weights)
        return d


def _is_number(value: Any) -> bool:
    """Whether ``value`` is a finite real number (``True`` and ``"0.1"`` are not)."""
    import numpy as np

    return (isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))
            and math.isfinite(value))  # fmt: skip


def _is_int(value: Any) -> bool:
    import numpy as np

    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _list(name: str, value: Any, example: str) -> tuple:
    """``value`` as a tuple, if it is a list, tuple or one-dimensional numpy array; a ``ValueError``
    naming ``name`` otherwise."""
    import numpy as np

    if isinstance(value, np.ndarray) and value.ndim == 1:
        return tuple(value.tolist())
    if not isinstance(value, (list, tuple)):
        scalar = not isinstance(value, (dict, np.ndarray))
        hint = f" (a list even for one: [{value!r}])" if scalar else ""
        if isinstance(value, str):
            hint = f' (a list even for one: ["{value}"])'
        raise ValueError(f"{name} must be a list such as {example}, got {value!r}{hint}")
    return tuple(value)


def _int_list(name: str, value: Any, example: str) -> tuple:
    values = _list(name, value, example)
    # whole numbers, also written as floats (64.0: a JSON or YAML writer's habit); not 64.5, not True
    values = tuple(int(v) if _is_number(v) and float(v).is_integer() and not _is_int(v) else v for v in values)
    if not all(_is_int(v) and v >= 1 for v in values):
        raise ValueError(f"{name} must be a list of whole numbers >= 1 such as {example}, got {list(values)!r}")
    return tuple(int(v) for v in values)


FIELDS = {f.name: f for f in dataclasses.fields(Args)}


def field_docs() -> dict[str, str]:
    """Each field of :class:`Args` with its docstring, the string written under it in the source (Python
    keeps no such strings at run time); ``{}`` where the source is not installed."""
    import ast
    import inspect

    try:
        tree = ast.parse(inspect.getsource(Args))
    except (OSError, TypeError):
        return {}
    body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
    docs: dict[str, str] = {}
    for node, after in zip(body, body[1:]):
        if (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and isinstance(after, ast.Expr)
                and isinstance(after.value, ast.Constant) and isinstance(after.value.value, str)):
            docs[node.target.id] = inspect.cleandoc(after.value.value)
    return docs


def describe_fields(args: Args) -> str:
    """The fields of ``args``, each with its value and its docstring: what ``dice-envs train GAME --fields``
    prints."""
    import textwrap

    docs = field_docs()
    lines = []
    for name in FIELDS:
        value = getattr(args, name)
        if isinstance(value, tuple):  # as --set takes a list
            shown = ",".join(str(v) for v in value)
        else:
            shown = json.dumps(value) if isinstance(value, (dict, str)) else str(value)
        lines.append(f"{name} = {shown}")
        doc = " ".join(docs.get(name, "").split())
        lines.extend(textwrap.wrap(doc, width=96, initial_indent="    ", subsequent_indent="    "))
    return "\n".join(lines)

#: The default recipe of each game: overrides of the dataclass defaults. A recipe is defined by its
#: timestep budget, not by wall time. The runs that made the shipped checkpoints took, in CPU
#: seconds of their one process (DummyVecEnv, one torch thread, evaluations and kickstart included,
#: on a 2-core machine at load 4-6): Meyer 866 s, Syvere 860 s, 10 000 1168 s, within the budgets
#: of 15, 15 and 30 minutes; their wall times at that load were 21, 30 and 48 minutes.
RECIPES: dict[str, dict[str, Any]] = {
    # Mostly the honest agent (the hardest target): with a self-play share of 0.2-0.3 and equal
    # weights the runs stayed at 0.73-0.74 against honest over 1.4M steps; this recipe 0.804.
    "meyer": {
        "options": {"num_players": 2, "lives": 6},
        "timesteps": 1_500_000,
        "baselines": ("honest", "doubter", "bluffer"),
        "baseline_weights": (10.0, 1.0, 1.0),
        "self_play_weight": 0.0,
        "anneal_lr": True,
        "ent_coef": 0.01,
        "snapshot_every": 50_000,
        "eval_every": 100_000,
        "eval_deals": 100,
    },
    # Kickstarted from the one-turn solver (100k decisions); three recipes (plain PPO 1.4M steps,
    # this one, and with anneal_lr and no self-play) all ended at 0.298-0.299 against three heuristics.
    "syvere": {
        "options": {"num_players": 4},
        "timesteps": 1_100_000,
        "baselines": ("heuristic",),
        "self_play_weight": 0.1,
        "teacher": "optimal",
        "teacher_states": 100_000,
        "learning_rate": 1e-4,
        "ent_coef": 0.001,
        "snapshot_every": 50_000,
        "eval_every": 100_000,
        "eval_deals": 50,
    },
    # Kickstarted (train.teacher): 200k decisions of the one-turn solver imitated first (99.8%
    # agreement), then PPO at a lower learning rate and entropy so as not to unlearn it. Plain PPO
    # with this network reached 0.34 against the heuristic in 300-500k steps; this recipe 0.524.
    "tenthousand": {
        "options": {"num_players": 2, "preset": "dk"},
        "timesteps": 1_100_000,
        "baselines": ("heuristic",),
        "self_play_weight": 0.2,
        "hidden": (128, 128),
        "shaping": 1.0,
        "teacher": "optimal",
        "teacher_states": 200_000,
        "learning_rate": 1e-4,
        "ent_coef": 0.001,
        "n_steps": 512,
        "snapshot_every": 100_000,
        "eval_every": 100_000,
        "eval_deals": 100,
    },
}


def read_config_file(path: str) -> dict[str, Any]:
    """Read a JSON or TOML config file (by its extension) into a dict of field values.

    Raises:
        ValueError: an unreadable file or a key that is not a field of :class:`Args`.
    """
    if not os.path.isfile(path):
        raise ValueError(f"config file {path!r} does not exist")
    try:
        if path.endswith(".toml"):
            # (by name: either module type-checks on every Python the package supports)
            try:
                tomllib = importlib.import_module("tomllib")
            except ModuleNotFoundError:  # Python 3.10: the tomli backport, a dependency there
                tomllib = importlib.import_module("tomli")

            with open(path, "rb") as f:
                data = tomllib.load(f)
        else:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
    except Exception as exc:  # noqa: BLE001 - any parse error is the user's file
        raise ValueError(f"config file {path!r} cannot be read: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(f"config file {path!r} must hold a table of fields")
    unknown = sorted(set(data) - set(FIELDS))
    if unknown:
        raise ValueError(f"config file {path!r}: unknown field(s) {', '.join(unknown)}; fields are {', '.join(FIELDS)}")
    return data


def _as_tuple(value: Any) -> Any:
    return tuple(value) if isinstance(value, (list, tuple)) else value


def build_args(game: str, overrides: dict[str, Any]) -> Args:
    """The game's recipe with ``overrides`` (from a config file and flags) applied on top."""
    if game not in RECIPES:
        raise ValueError(f"unknown game {game!r}; choose from {', '.join(RECIPES)}")
    values = {**RECIPES[game], **overrides, "game": game}
    if (
        "baselines" in overrides
        and "baseline_weights" not in overrides
        and _as_tuple(overrides["baselines"]) != _as_tuple(RECIPES[game].get("baselines", ()))
    ):
        # The recipe's weights are its own baselines': other baselines are drawn with equal weights.
        values["baseline_weights"] = ()
    if "options" in overrides:
        if not isinstance(overrides["options"], dict):
            raise ValueError(f"options must be a table of the game's options (lives = 2), got {overrides['options']!r}")
        values["options"] = {**RECIPES[game]["options"], **overrides["options"]}
    return Args(**values)
