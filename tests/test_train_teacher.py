"""Kickstarting (train.teacher): the imitation data is the teacher's play, and fitting makes the
network play like the teacher."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from agents.checkpoint import load_agent  # noqa: E402
from train.cli import main  # noqa: E402
from train.config import build_args  # noqa: E402
from train.teacher import collect, fit  # noqa: E402
from train.view import SingleAgentView, resolve_agent  # noqa: E402


def _args(**kw):
    base = {"options": {"num_players": 2, "target": 2000}, "teacher": "optimal", "baselines": ("heuristic",),
            "shaping": 0.0, "seed": 4, "hidden": (32, 32), "batch_size": 128, "teacher_epochs": 12,
            "teacher_lr": 3e-3}  # fmt: skip
    base.update(kw)
    return build_args("tenthousand", base)


def test_collected_decisions_are_the_teachers_and_returns_are_the_game_results():
    args = _args()
    data = collect(args, 400, seed=11)
    n = len(data["obs"])
    assert n >= 400 and data["masks"].shape == data["targets"].shape == (n, 308)
    # The teacher is deterministic: one-hot targets, on legal actions only.
    assert np.all(data["targets"].sum(axis=1) == 1) and np.all(data["targets"][~data["masks"]] == 0)
    # Without shaping, every decision's return to go is its game's C-3 result: +1 or -1 for two players.
    assert set(np.unique(data["returns"]).tolist()) <= {-1.0, 1.0}
    # The teacher's moves are what the optimal agent does in those positions.
    engine = SingleAgentView("tenthousand", opponents=["heuristic"], **args.options).engine
    teacher = resolve_agent("tenthousand", engine, "optimal", seed=0)
    for i in range(0, n, 37):
        action = teacher.act(data["obs"][i], data["masks"][i].astype(np.int8))
        assert data["targets"][i, action] == 1


def test_fitting_makes_the_network_agree_with_the_teacher_on_positions_it_did_not_see():
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv, VecNormalize

    torch.set_num_threads(1)  # as the trainer does: small networks are slower on more threads
    args = _args()
    train_data = collect(args, 3000, seed=21)
    held_out = collect(args, 600, seed=99)
    venv = VecNormalize(DummyVecEnv([lambda: SingleAgentView("tenthousand", opponents=["heuristic"], **args.options)]),
                        norm_reward=False)  # fmt: skip
    model = MaskablePPO("MlpPolicy", venv, seed=0, device="cpu",
                        policy_kwargs={"net_arch": {"pi": [32, 32], "vf": [32, 32]}})  # fmt: skip

    def agreement():
        import torch

        obs = torch.as_tensor(venv.normalize_obs(held_out["obs"]), dtype=torch.float32)
        with torch.no_grad():
            logits = model.policy.get_distribution(obs, action_masks=held_out["masks"]).distribution.logits
        return float((logits.argmax(1).numpy() == held_out["targets"].argmax(1)).mean())

    before = agreement()
    figures = fit(model, venv, train_data, args)
    after = agreement()
    # An untrained network picks among up to ~20 legal moves; the fitted one mostly picks the teacher's.
    assert before < 0.5 and after > 0.8 and after > before + 0.3
    assert figures["agreement"] > 0.8
    # VecNormalize learnt the data's statistics (10 000's totals are far from unit scale).
    assert venv.obs_rms.count > len(train_data["obs"])


def test_a_run_with_a_teacher_records_it_and_resumes_without_repeating_it(tmp_path, capsys):
    run = tmp_path / "run"
    words = ["tenthousand", "--target", "2000", "--timesteps", "256", "--seed", "2", "--run-dir", str(run),
             "--set", "teacher=optimal", "--set", "teacher_states=300", "--set", "teacher_epochs=2",
             "--set", "n_envs=2", "--set", "n_steps=64", "--set", "batch_size=64", "--set", "snapshot_every=256",
             "--set", "eval_every=256", "--set", "eval_deals=1", "--set", "hidden=16,16", "--no-progress"]  # fmt: skip
    assert main(words) == 0
    summary = json.loads((run / "summary.json").read_text())
    kick = summary["kickstart"]
    assert kick["teacher"] == "optimal" and kick["states"] >= 300 and 0 <= kick["agreement"] <= 1
    assert 0 < summary["kickstart_seconds"] < summary["wall_seconds"]  # the run's time includes it, and says so
    assert "(kickstart " in capsys.readouterr().out
    load_agent("tenthousand", run / "policy", seed=0)
    # Running the command again with a larger budget resumes: the kickstart is not done twice.
    state = json.loads((run / "resume" / "state.json").read_text())
    assert main([*words[:3], "--timesteps", "512", *words[5:]]) == 0
    again = json.loads((run / "summary.json").read_text())
    assert again["resumed"] and again["timesteps"] == 512 and again["kickstart"] == state["kickstart"]


def test_a_teacher_needs_gamma_one():
    from train.trainer import _check_args

    with pytest.raises(ValueError, match="gamma = 1"):
        _check_args(_args(gamma=0.99))


def test_a_kickstart_larger_than_the_run_says_so_before_it_starts(tmp_path, capsys):
    # A 2k-step smoke run of the 10 000 recipe spent 90 s imitating 200 000 teacher decisions
    # without a word about it (outside RL-pipeline review).
    words = ["tenthousand", "--target", "2000", "--timesteps", "128", "--seed", "3", "--run-dir", str(tmp_path / "r"),
             "--set", "teacher=optimal", "--set", "teacher_states=300", "--set", "teacher_epochs=1",
             "--set", "n_envs=2", "--set", "n_steps=64", "--set", "batch_size=64", "--set", "snapshot_every=128",
             "--set", "eval_every=128", "--set", "eval_deals=1", "--set", "hidden=16,16"]  # fmt: skip
    assert main(words) == 0
    out = capsys.readouterr().out
    notice = ("kickstart from optimal: playing 300 of its decisions (teacher_states); more than this run's 128 PPO "
              "steps: for a quick run lower it with --set teacher_states=N")  # fmt: skip
    assert notice in out
    assert out.index(notice) < out.index("kickstart from optimal: epoch 1/1")
