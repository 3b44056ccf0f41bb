"""Tiny training runs through the CLI in a subprocess: checkpoints that play, resuming, bad input."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agents.checkpoint import load_agent
from train.cli import main
from train.config import RECIPES, build_args, read_config_file
from train.view import SingleAgentView

ROOT = Path(__file__).resolve().parents[1]
TINY = ["--set", "n_envs=2", "--set", "n_steps=64", "--set", "batch_size=64", "--set", "n_epochs=2",
        "--set", "snapshot_every=256", "--set", "eval_every=256", "--set", "eval_deals=1", "--set", "hidden=16,16",
        # The Syvere and 10 000 recipes first imitate a teacher: a few hundred decisions here.
        "--set", "teacher_states=300", "--set", "teacher_epochs=2",
        "--no-progress"]


def run_train(*words, timeout=300, **popen):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "train", *words], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=timeout, **popen)


def play_full_games(game, path, options, games=3):
    """The checkpoint plays whole games in every seat, choosing legal actions only."""
    agent = load_agent(game, path, seed=0)
    env = SingleAgentView(game, opponents=["random"], **options)
    for g in range(games):
        obs, _ = env.reset(seed=g, options={"learner_seat": g % env.num_players})
        while True:
            mask = env.action_masks()
            action = agent.act(obs, mask.astype(np.int8))
            assert mask[action]
            obs, reward, terminated, truncated, info = env.step(action)
            if terminated or truncated:
                break
        assert not info.get("illegal_action") and terminated


@pytest.mark.parametrize(
    "game, options",
    [("meyer", ["--lives", "2"]), ("syvere", ["--num-players", "3"]), ("tenthousand", ["--target", "2000"])],
)
def test_tiny_run_leaves_a_checkpoint_that_plays(tmp_path, game, options):
    run = tmp_path / "run"
    out = run_train(game, *options, "--timesteps", "512", "--seed", "3", "--run-dir", str(run), *TINY)
    assert out.returncode == 0, out.stderr[-2000:]
    summary = json.loads((run / "summary.json").read_text())
    assert summary["timesteps"] == 512 and [e["timesteps"] for e in summary["evaluations"]] == [256, 512]
    assert 0 < summary["env_share"] < 1 and 0 < summary["update_share"] < 1
    assert (summary["kickstart_seconds"] > 0) == (game != "meyer")  # the Syvere and 10 000 recipes kickstart
    assert (run / "policy" / "policy.safetensors").is_file() and list((run / "tb").iterdir())
    assert sorted(p.name for p in (run / "checkpoints").iterdir()) == ["step_000000256", "step_000000512"]
    meta = json.loads((run / "policy" / "policy.json").read_text())
    assert meta["training"]["timesteps"] == 512 and meta["normalization"] is not None
    play_full_games(game, run / "policy", meta["options"])
    assert "checkpoint:" in out.stdout


def test_an_interrupted_run_resumes_from_its_last_period(tmp_path, monkeypatch, ctrl_c):
    """Ctrl-C after the first saved period; the same command then continues from there."""
    import train.trainer as trainer

    run = tmp_path / "run"
    argv = ["meyer", "--timesteps", "768", "--seed", "1", "--run-dir", str(run), *TINY]
    real_write = trainer._write_json

    def interrupted(path, data):
        real_write(path, data)
        if path.name == "state.json":
            os.kill(os.getpid(), signal.SIGINT)  # the user presses Ctrl-C during the save (held back until it ends)

    monkeypatch.setattr(trainer, "_write_json", interrupted)
    with pytest.raises(KeyboardInterrupt) as stopped:
        main(argv)
    # what the command line prints after "interrupted;" (robustness review 10, F14)
    assert str(stopped.value) == f"the run is saved at step 256 in {run}: the same command resumes"
    saved = json.loads((run / "resume" / "state.json").read_text())
    assert saved["timesteps"] == 256 and not (run / "summary.json").exists()
    monkeypatch.setattr(trainer, "_write_json", real_write)
    assert main(argv) == 0  # the same command again
    summary = json.loads((run / "summary.json").read_text())
    assert summary["resumed"] is True and summary["timesteps"] == 768
    assert [e["timesteps"] for e in summary["evaluations"]] == [256, 512, 768]
    assert json.loads((run / "policy" / "policy.json").read_text())["training"]["timesteps"] == 768
    # A run directory holds one game: another game's command is refused.
    with pytest.raises(ValueError, match="use another --run-dir"):
        main(["syvere", "--timesteps", "768", "--run-dir", str(run), *TINY])


def test_config_files_and_recipes(tmp_path):
    cfg = tmp_path / "c.toml"
    cfg.write_text('ent_coef = 0.02\nhidden = [32, 32]\n[options]\nlives = 3\n')
    values = read_config_file(str(cfg))
    args = build_args("meyer", values)
    assert args.ent_coef == 0.02 and args.hidden == (32, 32) and args.options == {"num_players": 2, "lives": 3}
    assert args.baselines == RECIPES["meyer"]["baselines"] and args.gamma == 1.0
    (tmp_path / "bad.json").write_text('{"learning_rat": 1}')
    with pytest.raises(ValueError, match="unknown field.*learning_rat"):
        read_config_file(str(tmp_path / "bad.json"))
    (tmp_path / "broken.json").write_text("{")
    with pytest.raises(ValueError, match="cannot be read"):
        read_config_file(str(tmp_path / "broken.json"))


@pytest.mark.parametrize(
    "argv, message",
    [
        (["meyer", "--colour", "red"], "colour"),
        (["meyer", "--set", "n_envs"], "FIELD=VALUE"),
        (["meyer", "--set", "n_envs=two"], "n_envs"),
        (["meyer", "--set", "n_envs=0", "--run-dir", "/nonexistent/x"], "n_envs must be an int >= 1"),
        (["meyer", "--config", "/nonexistent.toml"], "does not exist"),
        (["meyer", "--evaluate", "/nonexistent"], "no such file or directory"),
    ],
)
def test_bad_input_is_a_value_error(argv, message):
    with pytest.raises(ValueError, match=message):
        main(argv)


def test_a_run_without_self_play_keeps_its_snapshots_out_of_the_pool(tmp_path):
    # With self_play_weight=0 the pool's weights are the baselines' only: the snapshots written
    # every period must not join it (they once did, and the run failed at its first snapshot).
    run = tmp_path / "run"
    argv = ["meyer", "--lives", "2", "--timesteps", "512", "--seed", "1", "--run-dir", str(run),
            "--set", "self_play_weight=0", "--set", "baseline_weights=3,1,1", *TINY]  # fmt: skip
    assert main(argv) == 0
    summary = json.loads((run / "summary.json").read_text())
    assert summary["timesteps"] == 512 and len(list((run / "checkpoints").iterdir())) == 2


def test_evaluate_takes_an_agent_spec_as_the_peer_on_the_same_deals(capsys):
    from agents import make_agent
    from train.benchmark import benchmark
    from train.evaluation import play_against
    from train.view import SingleAgentView

    results = benchmark("meyer", {"num_players": 2, "lives": 2}, "honest", ["bluffer"], 6, seed=77, progress=False)
    engine = SingleAgentView("meyer", opponents=["bluffer"], num_players=2, lives=2).engine
    direct = play_against(make_agent(engine, "honest", seed=77).act, "meyer", {"num_players": 2, "lives": 2},
                          "bluffer", 6, 77)  # fmt: skip
    assert results[0]["games"] == 12 and results[0]["win_rate"] == direct.interval()[0]
    assert "meyer: honest vs bluffer: win rate" in capsys.readouterr().out
    with pytest.raises(ValueError, match="unknown agent 'nosuchagent' for meyer; choose from"):
        main(["meyer", "--evaluate", "nosuchagent", "--deals", "2"])


def test_anneal_lr_decays_the_learning_rate_over_the_whole_run(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    run = tmp_path / "run"
    argv = ["syvere", "--num-players", "3", "--timesteps", "768", "--seed", "1", "--run-dir", str(run),
            "--set", "anneal_lr=true", "--set", "learning_rate=0.0003", *TINY]  # fmt: skip
    assert main(argv) == 0
    events = EventAccumulator(str(run / "tb"))
    events.Reload()
    rates = [round(e.value, 10) for e in events.Scalars("losses/learning_rate")]
    # Two PPO updates per period of 256 steps; the periods run at 1, 2/3 and 1/3 of the rate
    # (not three restarts of SB3's own schedule, which would start each at the full rate).
    assert rates == [round(3e-4 * f, 10) for f in (1, 1, 2 / 3, 2 / 3, 1 / 3, 1 / 3)]


def test_vecbench_times_both_vec_envs_and_prints_their_ratio(capsys, monkeypatch):
    from train import trainer, vecbench

    kinds, real_train = [], trainer.train

    def recording_train(args):
        kinds.append((args.vec_env, args.eval_deals, args.teacher))
        return real_train(args)

    monkeypatch.setattr(trainer, "train", recording_train)
    assert vecbench.main(["meyer", "--timesteps", "128", "--rounds", "1", "--n-envs", "2"]) == 0
    assert kinds == [("dummy", 0, ""), ("subproc", 0, "")]  # each kind once, no evaluation, no kickstart
    lines = [x for x in capsys.readouterr().out.splitlines() if x.startswith(("round ", "meyer:"))]
    rates = {}
    for line in lines[:2]:  # one line per kind, dummy first in round 1
        kind, rate = line.split()[2], float(line.split(": ")[1].split()[0])
        assert rate > 0 and int(line.split()[3]) >= 128  # whole rollouts: at least the steps asked
        rates[kind] = rate
    assert list(rates) == ["dummy", "subproc"]
    ratio = float(lines[2].rsplit(": ", 1)[1])
    # The printed ratio is the ratio of the two printed rates (up to their rounding to whole steps/s).
    assert ratio == pytest.approx(rates["subproc"] / rates["dummy"], rel=0.05, abs=0.01)
    assert lines[3].startswith("meyer: median subproc / dummy") and "over 1 round:" in lines[3]


def test_vecbench_refuses_an_empty_benchmark():
    from train import vecbench

    with pytest.raises(ValueError, match="at least 1"):
        vecbench.main(["meyer", "--rounds", "0"])
