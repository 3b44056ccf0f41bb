"""Self-play training on RLlib (issue 11): a few thousand steps per game leave a checkpoint that is an agent.

Marked ``ray`` (a local Ray instance with 2 CPUs; run with ``-m ray``), except the tests that need
no Ray.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]

#: Short games, so that episodes end within a few thousand steps even for an untrained policy.
GAMES = [
    ("meyer", {"lives": 2}),
    ("syvere", {"elimination": 40}),
    ("tenthousand", {"target": 2000}),
]


def sample_decisions(game: str, options: dict, n: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Observations and masks of ``n`` decisions of games played with random legal actions."""
    from dice_envs.registry import env_module

    env = env_module(game).env(**options)
    rng = np.random.default_rng(seed)
    found = []
    episode = 0
    while len(found) < n:
        env.reset(seed=seed + episode)
        episode += 1
        for agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            found.append((obs["observation"].copy(), obs["action_mask"].copy()))
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            if len(found) >= n:
                break
    return found


def test_fixed_normalization_maps_the_bounds_to_plus_minus_one():
    from dice_envs.registry import env_module
    from train.rllib import fixed_normalization, scale

    for game, options in GAMES:
        engine = env_module(game).env(**options).unwrapped.game
        norm = fixed_normalization(engine)
        low, high = np.asarray(engine.observation_low), np.asarray(engine.observation_high)
        varying = high > low
        assert np.allclose(scale(low, norm)[varying], -1.0, atol=1e-6)
        assert np.allclose(scale(high, norm)[varying], 1.0, atol=1e-6)


@pytest.mark.parametrize("entry", ["python -m train.rllib", "dice-envs train --backend rllib"])
def test_rllib_without_ray_names_the_extra(tmp_path, entry):
    script = textwrap.dedent(
        """
        import sys
        sys.modules["ray"] = None  # as if Ray were not installed
        if sys.argv[1] == "module":  # as `python -m train.rllib` runs it
            from dice_envs.cli import run_guarded
            from train.rllib import main
            sys.exit(run_guarded(main, ["meyer", "--timesteps", "10", "--run-dir", "run"], prog="python -m train.rllib"))
        from dice_envs.cli import main
        sys.exit(main(["train", "meyer", "--backend", "rllib", "--timesteps", "10", "--run-dir", "run"]))
        """
    )
    which = "module" if entry.startswith("python") else "cli"
    proc = subprocess.run([sys.executable, "-c", script, which], capture_output=True, text=True, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=120)  # fmt: skip
    assert proc.returncode == 1, proc.stderr  # an installation problem, not bad usage
    assert "training with RLlib (--backend rllib) needs Ray, which is not installed" in proc.stderr
    assert "pip install 'dice-envs[ray]'" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "run").exists()


@pytest.mark.ray
@pytest.mark.parametrize("game,options", GAMES, ids=[g for g, _ in GAMES])
def test_rllib_checkpoint_is_an_agent_with_the_modules_policy(ray_instance, tmp_path, game, options):
    """2000 self-play steps; the export loads as an agent whose probabilities are the module's, and plays."""
    from agents.checkpoint import load_agent
    from evaluate.tournament import run_tournament
    from train.rllib import masked_probabilities, scale, train

    modules = []
    summary = train(game, options, timesteps=2000, seed=3, run_dir=str(tmp_path / "run"), batch=1000,
                    progress=False, inspect=modules.append)  # fmt: skip
    assert summary["timesteps"] >= 2000 and summary["env_steps_per_second"] > 0
    assert json.loads((tmp_path / "run" / "summary.json").read_text())["policy"] == summary["policy"]

    agent = load_agent(game, summary["policy"], greedy=False, seed=0)
    norm = agent.policy.meta["normalization"]
    decisions = sample_decisions(game, options, 40, seed=11)
    obs = np.stack([scale(o, norm) for o, _ in decisions])
    masks = np.stack([m for _, m in decisions]).astype(np.float32)
    theirs = masked_probabilities(modules[0], obs, masks)
    for (o, m), p in zip(decisions, theirs):
        ours = agent.action_probabilities(o, m)
        assert ours.dtype == np.float64 and abs(ours.sum() - 1) < 1e-12
        assert np.all(ours[m == 0] == 0) and np.all(p[m == 0] == 0)  # masked actions: never sampled
        np.testing.assert_allclose(ours, p, rtol=0, atol=2e-6)

    # As a SPEC path, in a tournament against a built-in agent: every game ends, every move legal
    # (the engine refuses an illegal action with a ValueError, which would fail the game).
    result = run_tournament(game, [summary["policy"], "random"], games=4, seed=1, options=options, db=None,
                            workers=1, progress=False)  # fmt: skip
    assert len(result.records) == 8
    assert all(len(r.winners) >= 1 for r in result.records)
    assert result.labels[0] == "run"  # RUN/policy, as an SB3 run's: labelled by the run's name


@pytest.mark.ray
def test_rllib_run_resumes_from_its_checkpoint(ray_instance, tmp_path):
    from train.rllib import train

    run = str(tmp_path / "run")
    first = train("meyer", {"lives": 2}, timesteps=1000, seed=4, run_dir=run, batch=1000, progress=False)
    assert (tmp_path / "run" / "rllib").is_dir()
    second = train("meyer", {"lives": 2}, timesteps=2000, seed=4, run_dir=run, batch=1000, progress=False)
    # The second run went on from the first one's steps: it sampled only what was missing.
    assert first["steps_this_run"] == first["timesteps"] >= 1000
    assert second["timesteps"] >= 2000
    assert second["steps_this_run"] == second["timesteps"] - first["timesteps"] < second["timesteps"]


@pytest.mark.ray
@pytest.mark.parametrize("game,options", GAMES, ids=[g for g, _ in GAMES])
def test_multi_agent_env_delivers_every_seats_return_and_refuses_illegal_actions(game, options):
    """Random legal play through the RLlib env: each seat's rewards add up to its C-3 return."""
    pytest.importorskip("ray.rllib")
    from train.rllib import _env_class

    env = _env_class()({"game": game, "options": options})
    rng = np.random.default_rng(5)
    for episode in range(3):
        obs, _ = env.reset(seed=100 + episode)
        (agent,) = obs
        illegal = np.flatnonzero(obs[agent]["action_mask"] == 0)
        if illegal.size:
            with pytest.raises(ValueError, match="illegal action"):
                env.step({agent: int(illegal[0])})
        totals = {a: 0.0 for a in env.possible_agents}
        acted = set()
        while True:
            (agent,) = obs
            acted.add(agent)
            legal = np.flatnonzero(obs[agent]["action_mask"])
            obs, rewards, terminated, truncated, _ = env.step({agent: int(rng.choice(legal))})
            for a, r in rewards.items():
                totals[a] += r
            if terminated["__all__"] or truncated["__all__"]:
                break
            assert len(obs) == 1  # turn-based: only the seat to act observes
        assert terminated["__all__"]
        engine = env.engine
        returns = engine.returns(env.aec.unwrapped.game_state)
        # Every seat that played hears the end, including those that did not make the last move.
        assert set(obs) == set(rewards) == acted == set(env.possible_agents)
        assert all(terminated[a] for a in acted)
        assert [totals[a] for a in env.possible_agents] == [float(r) for r in returns]


@pytest.mark.ray
def test_reset_skips_games_over_before_anyone_acts(monkeypatch):
    """Syvere 4p with elimination 10: the games of seeds 166 and 278 are over at reset (review finding 1)."""
    pytest.importorskip("ray.rllib")
    import train.rllib
    from train.rllib import _env_class

    options = {"num_players": 4, "elimination": 10}
    env = _env_class()({"game": "syvere", "options": options})
    for seed in (166, 278, 0):
        obs, _ = env.reset(seed=seed)
        ((agent, o),) = obs.items()
        assert o["action_mask"].sum() > 0 and agent == env.aec.agent_selection
        assert not env.aec.terminations[agent]
    monkeypatch.setattr(train.rllib, "MAX_EMPTY_RESETS", 1)
    with pytest.raises(RuntimeError, match="1 games in a row were over before anyone acted"):
        env.reset(seed=166)
    with pytest.raises(ValueError, match="no decisions to learn"):
        _env_class()({"game": "syvere", "options": {"max_rolls": 1}})


@pytest.mark.ray
def test_rllib_trains_where_games_can_be_over_at_reset(ray_instance, tmp_path):
    from train.rllib import train

    summary = train("syvere", {"num_players": 4, "elimination": 6}, timesteps=3000, seed=1,
                    run_dir=str(tmp_path / "run"), batch=1500, progress=False)  # fmt: skip
    assert summary["timesteps"] >= 3000


@pytest.mark.ray
def test_rllib_resume_keeps_settings_and_only_complete_checkpoints(ray_instance, tmp_path, capsys):
    import shutil

    from train.rllib import MARKER, main, train

    run = tmp_path / "run"
    first = train("meyer", {"lives": 2}, timesteps=1000, seed=4, run_dir=str(run), batch=1000, progress=False)
    assert json.loads((run / "rllib" / MARKER).read_text())["steps"] == first["timesteps"]
    base = ["meyer", "--lives", "2", "--seed", "4", "--batch", "1000", "--run-dir", str(run)]
    # Other settings: refused in one line naming them, before anything is trained.
    with pytest.raises(ValueError) as info:
        main([*base[:2], "3", *base[3:], "--hidden", "32", "--timesteps", "2000"])
    assert "--lives 2 (this command: 3); --hidden 64,64 (this command: 32)" in str(info.value)
    with pytest.raises(ValueError, match=r"--seed 4 \(this command: 5\)"):
        main([*base[:4], "5", *base[5:], "--timesteps", "2000"])
    # A save killed before its marker (a partial rllib.new) is ignored and tidied.
    shutil.copytree(run / "rllib", run / "rllib.new")
    shutil.rmtree(run / "rllib.new" / "learner_group")
    (run / "rllib.new" / MARKER).unlink()
    capsys.readouterr()
    assert main([*base, "--timesteps", "2000"]) == 0
    out, err = capsys.readouterr()
    summary = json.loads((run / "summary.json").read_text())
    ran, total = summary["steps_this_run"], summary["timesteps"]
    assert ran == total - first["timesteps"] > 0 and total >= 2000
    assert out.splitlines()[0].startswith(f"trained {ran} env steps in ")
    assert out.splitlines()[0].endswith(f"; resumed at {first['timesteps']}, the run has {total} in all")
    last = [line for line in err.splitlines() if line.startswith("rllib self-play:")][-1]
    assert last.startswith(f"rllib self-play: 100% {total}/{total} ")  # not "0% N/?" after an overshoot
    assert not (run / "rllib.new").exists()
    # A checkpoint missing a file (learner_group/: the weights) is never restored.
    shutil.rmtree(run / "rllib" / "learner_group")
    with pytest.raises(ValueError, match="incomplete RLlib checkpoint"):
        main([*base, "--timesteps", "3000"])


@pytest.mark.ray
def test_rllib_saves_on_ctrl_c(ray_instance, tmp_path, monkeypatch, ctrl_c):
    """A SIGINT during training: the batch ends, the run is saved, KeyboardInterrupt is raised."""
    import signal

    import train.rllib as rllib

    mean_return = rllib._mean_return
    handler = signal.getsignal(signal.SIGINT)

    def interrupt_once(result):
        if not calls:
            os.kill(os.getpid(), signal.SIGINT)
        calls.append(1)
        return mean_return(result)

    calls = []
    monkeypatch.setattr(rllib, "_mean_return", interrupt_once)
    run = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt):
        rllib.train("meyer", {"lives": 2}, timesteps=100_000, seed=2, run_dir=str(run), batch=500, progress=False)
    assert len(calls) == 1  # stopped after the batch that was running
    steps = json.loads((run / "rllib" / rllib.MARKER).read_text())["steps"]
    assert 500 <= steps < 100_000
    assert signal.getsignal(signal.SIGINT) is handler  # the handler is put back


@pytest.mark.ray
def test_more_env_runners_than_cpus_are_refused(ray_instance, tmp_path):
    from train.rllib import train

    cpus = int(ray_instance.cluster_resources()["CPU"])
    with pytest.raises(ValueError, match=f"--env-runners {cpus + 1} needs {cpus + 1} CPUs"):
        train("meyer", {}, timesteps=1000, run_dir=str(tmp_path / "run"), env_runners=cpus + 1, progress=False)
    assert not (tmp_path / "run").exists()
