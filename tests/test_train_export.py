"""``train.export.save_sb3``: a model trained in your own SB3 loop becomes a safe checkpoint that
plays as the model does (outside training review 8: the export helper CleanRL/SB3 users lacked)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import gymnasium  # noqa: E402
import torch  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402
from stable_baselines3.common.env_util import make_vec_env  # noqa: E402
from stable_baselines3.common.vec_env import VecNormalize  # noqa: E402

import dice_envs  # noqa: E402,F401
from agents import make_agent  # noqa: E402
from train.export import save_sb3  # noqa: E402


@pytest.fixture(autouse=True)
def _sb3_logs_in_tmp(tmp_path, monkeypatch):
    """SB3's default logger makes a folder ``$TMPDIR/SB3-<time>`` per ``learn``; keep it in the test's dir."""
    monkeypatch.setenv("SB3_LOGDIR", str(tmp_path / "sb3_log"))


def _model(normalize: bool, net=(32,), activation=torch.nn.Tanh):
    venv = make_vec_env("dice/Meyer-v0", n_envs=2, seed=0, env_kwargs={"opponents": ["honest"], "lives": 2})
    if normalize:
        venv = VecNormalize(venv, norm_reward=False)
    policy_kwargs = {"net_arch": list(net), "activation_fn": activation}
    model = MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=64, n_epochs=1, seed=0, policy_kwargs=policy_kwargs)
    return model.learn(256), venv


def _model_probabilities(model, venv, obs, mask):
    if isinstance(venv, VecNormalize):
        obs = venv.normalize_obs(obs)
    with torch.no_grad():
        dist = model.policy.get_distribution(torch.as_tensor(obs[None], dtype=torch.float32), action_masks=mask[None])
    return dist.distribution.probs[0].numpy()


@pytest.mark.parametrize("normalize, activation", [(True, torch.nn.Tanh), (False, torch.nn.ReLU)])
def test_the_exported_checkpoint_plays_as_the_model(tmp_path, normalize, activation):
    model, venv = _model(normalize, activation=activation)
    engine = venv.get_attr("engine")[0]
    path = save_sb3(model, tmp_path / "mine", engine)  # the VecNormalize is found on the model's env
    agent = make_agent(engine, path, greedy=False)  # its policy itself, not the argmax
    env = gymnasium.make("dice/Meyer-v0", opponents=["honest"], lives=2)
    obs, _ = env.reset(seed=3)
    for _ in range(30):
        mask = env.unwrapped.action_masks()
        ours = agent.action_probabilities(obs, mask.astype(np.int8))
        assert ours == pytest.approx(_model_probabilities(model, venv, obs, mask.astype(bool)), abs=1e-5)
        obs, _, terminated, truncated, _ = env.step(int(np.argmax(ours)))
        if terminated or truncated:
            obs, _ = env.reset()
    assert (agent.policy.meta["normalization"] is not None) == normalize


def test_an_engine_of_other_options_and_an_unsupported_policy_are_refused(tmp_path):
    from dice_envs.games import meyer

    model, venv = _model(False)
    with pytest.raises(ValueError, match="save_sb3: the network takes .* pass the engine of the env the model was trained on"):
        save_sb3(model, tmp_path / "x", meyer.Game(num_players=3, lives=2))
    model, _ = _model(False, activation=torch.nn.ELU)
    with pytest.raises(ValueError, match="has a ELU; a checkpoint holds Linear layers with Tanh or ReLU"):
        save_sb3(model, tmp_path / "y", venv.get_attr("engine")[0])
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()


def test_a_model_loaded_without_its_env_needs_its_normalisation_said(tmp_path):
    """MaskablePPO.load(path) has no env: its VecNormalize cannot be found, and saving as if there
    were none played another policy (diff review 8); it is refused until vec_normalize is given."""
    model, venv = _model(True)
    engine = venv.get_attr("engine")[0]
    model.save(tmp_path / "model.zip")
    venv.save(str(tmp_path / "norm.pkl"))
    loaded = MaskablePPO.load(tmp_path / "model.zip")
    with pytest.raises(ValueError, match="the model has no env to read its VecNormalize from"):
        save_sb3(loaded, tmp_path / "x", engine)
    assert not (tmp_path / "x").exists()
    norm = VecNormalize.load(str(tmp_path / "norm.pkl"), venv.venv)
    same = make_agent(engine, save_sb3(loaded, tmp_path / "y", engine, vec_normalize=norm), greedy=False)
    direct = make_agent(engine, save_sb3(model, tmp_path / "z", engine), greedy=False)
    assert same.policy.meta["normalization"] == direct.policy.meta["normalization"]
