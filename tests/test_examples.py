"""The example scripts of ``docs/examples/`` run as a user runs them, with tiny settings.

Each runs in a subprocess from an empty temporary directory, so a script that wrote into its working
directory (or into the repository) instead of its ``--out-dir`` would be caught.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "docs" / "examples"


def run_example(name: str, *args: str, cwd: Path) -> str:
    """Run ``docs/examples/NAME`` with ``args`` in ``cwd``; it must exit 0. Returns its stdout."""
    done = subprocess.run([sys.executable, str(EXAMPLES / name), *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300, env={**os.environ, "PYTHONHASHSEED": "0"})  # fmt: skip
    assert done.returncode == 0, f"{name} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def test_random_rollout_plays_one_zero_sum_game_of_each(tmp_path):
    out = run_example("random_rollout.py", "--seed", "3", "--num-players", "3", cwd=tmp_path)
    games = re.findall(r"^dice/(\w+)-v\d+ +(\d+) decisions  returns: (.+)$", out, flags=re.M)
    assert [game for game, _, _ in games] == ["syvere", "tenthousand", "meyer"]
    for _, decisions, returns in games:
        values = [float(v) for v in re.findall(r"player_\d ([+-]\d\.\d\d)", returns)]
        assert int(decisions) > 0 and len(values) == 3
        assert sum(values) == pytest.approx(0, abs=0.02) and max(values) == 1.0  # C-3: one winner, +1
    assert not any(tmp_path.iterdir())


def test_custom_agent_enters_a_tournament_beside_built_in_agents(tmp_path):
    out = run_example("custom_agent.py", "--games", "4", cwd=tmp_path)
    rows = re.findall(r"^ *\d+ (\S+) +-?\d+\.\d ", out, flags=re.M)
    assert sorted(rows) == sorted(["honest", "doubter", "random", "custom_agent:Cautious",
                                   "custom_agent:Cautious:bluff=1/4"])  # fmt: skip
    assert "80 games between 5 entrants" in out  # C(5, 2) tables x 4 deals x 2 seatings
    assert not any(tmp_path.iterdir())


def test_custom_agent_policy_is_a_distribution_over_legal_actions():
    """What the agent protocol (docs/tournaments.md) asks of action_probabilities, over random Meyer games."""
    import dice_envs

    spec = importlib.util.spec_from_file_location("custom_agent_example", EXAMPLES / "custom_agent.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    env = dice_envs.meyer_v0.env(num_players=3, blind_reroll=True)
    agent = module.Cautious(env.unwrapped.game, seed=0, bluff=0.5)
    for seed in range(5):
        env.reset(seed=seed)
        for name in env.agent_iter():
            observation, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            mask = observation["action_mask"]
            p = agent.action_probabilities(observation["observation"], mask)
            assert p.dtype == np.float64 and p.sum() == pytest.approx(1.0) and (p >= 0).all()
            assert not p[mask == 0].any()
            env.step(agent.act(observation["observation"], mask))


def test_sb3_example_trains_exports_and_evaluates(tmp_path):
    pytest.importorskip("sb3_contrib")
    out_dir = tmp_path / "out"
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    out = run_example("sb3_maskable_ppo.py", "--timesteps", "512", "--n-envs", "2", "--n-steps", "128",
                      "--eval-games", "20", "--out-dir", str(out_dir), cwd=cwd)  # fmt: skip
    assert re.search(r"^trained \d+ steps against honest$", out, flags=re.M)
    line = r"^{} vs honest: win rate (\d\.\d{{3}}) \[(\d\.\d{{3}}), (\d\.\d{{3}})\] \(95% Wilson, 20 games\)$"
    for label in ("ppo", "random"):
        rate, low, high = map(float, re.search(line.format(label), out, flags=re.M).groups())
        assert 0 <= low <= rate <= high <= 1
    assert {p.name for p in (out_dir / "policy").iterdir()} == {"policy.json", "policy.safetensors"}
    assert (out_dir / "sb3_log" / "progress.csv").is_file()
    assert not any(cwd.iterdir())

    from agents import make_agent

    agent = make_agent("meyer", out_dir / "policy", seed=0)  # the default rules, as trained
    assert agent.policy.meta["training"]["timesteps"] >= 512
