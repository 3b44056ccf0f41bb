"""The checkpoint format (agents.checkpoint): round trip, the policy's numbers, and refusals.

Tampered, truncated and foreign checkpoints are refused with a message saying what is wrong, and
a pickle payload in place of the weights is never executed.
"""

from __future__ import annotations

import hashlib
import json
import pickle
import shutil
from pathlib import Path

import numpy as np
import pytest

from agents.checkpoint import (
    META_FILE,
    WEIGHTS_FILE,
    TrainedAgent,
    engine_options,
    load_agent,
    read_checkpoint,
    save_checkpoint,
)
from agents import make_agent
from dice_envs.registry import env_module
from train.view import SingleAgentView


def engine(game, **options):
    return env_module(game).raw_env(**options).game


def random_checkpoint(path, game="meyer", hidden=(8, 5), normalization=True, seed=0, **options):
    eng = engine(game, **options)
    rng = np.random.default_rng(seed)
    sizes = [len(eng.observation_low), *hidden]
    layers = [(rng.normal(size=(sizes[i + 1], sizes[i])), rng.normal(size=sizes[i + 1])) for i in range(len(hidden))]
    action = (rng.normal(size=(eng.num_actions, sizes[-1])), rng.normal(size=eng.num_actions))
    norm = None
    if normalization:
        norm = {"mean": rng.normal(size=sizes[0]), "var": rng.uniform(0.5, 2, size=sizes[0]), "epsilon": 1e-8,
                "clip": 10.0}
    save_checkpoint(path, eng, layers, action, activation="tanh", normalization=norm, training={"note": "test"})
    return eng, layers, action, norm


def test_round_trip_and_the_policy_is_the_masked_softmax_of_the_network(tmp_path):
    eng, layers, action, norm = random_checkpoint(tmp_path / "ck", lives=3)
    agent = load_agent(eng, tmp_path / "ck", seed=1, greedy=False)
    meta = agent.policy.meta
    assert meta["game"] == "meyer" and meta["options"] == engine_options(eng) and meta["options"]["lives"] == 3
    assert meta["training"] == {"note": "test"}
    env = SingleAgentView("meyer", opponents=["honest"], lives=3)
    obs, _ = env.reset(seed=5)
    mask = env.action_masks().astype(np.int8)
    # The same network by hand, in float64 from the saved float32 weights.
    x = np.clip((obs - norm["mean"]) / np.sqrt(norm["var"] + 1e-8), -10, 10)
    for w, b in layers:
        x = np.tanh(x @ w.astype(np.float32).T.astype(float) + b.astype(np.float32))
    z = x @ action[0].astype(np.float32).T.astype(float) + action[1].astype(np.float32)
    z = np.where(mask == 1, z, -np.inf)
    expected = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
    probs = agent.action_probabilities(obs, mask)
    assert probs.dtype == np.float64 and probs.shape == (eng.num_actions,)
    np.testing.assert_allclose(probs, expected, rtol=1e-4, atol=1e-6)
    assert probs.sum() == pytest.approx(1.0) and (probs[mask == 0] == 0).all()
    greedy = load_agent(eng, tmp_path / "ck" / WEIGHTS_FILE, greedy=True)  # the file path is a SPEC too
    one_hot = greedy.action_probabilities(obs, mask)
    assert one_hot[int(np.argmax(expected))] == 1.0 and one_hot.sum() == 1.0
    assert greedy.act(obs, mask) == int(np.argmax(expected))
    draws = [agent.act(obs, mask) for _ in range(400)]
    assert set(draws) <= set(np.flatnonzero(probs > 0))
    top = int(np.argmax(probs))
    assert np.mean([d == top for d in draws]) == pytest.approx(probs[top], abs=0.1)


def test_load_by_game_name_uses_the_checkpoints_options(tmp_path):
    random_checkpoint(tmp_path / "ck", game="syvere", num_players=3)
    agent = load_agent("syvere", tmp_path / "ck")
    assert agent.game.num_players == 3
    with pytest.raises(ValueError, match="trained for 'syvere', not 'meyer'"):
        load_agent("meyer", tmp_path / "ck")


def test_the_shipped_checkpoints_say_the_command_line_of_their_game():
    """A preset brings its own values: the command line names the preset, not each value."""
    with pytest.raises(ValueError, match=r"preset='dk' \(here 'no'\).*\(command line: --preset dk\)$"):
        make_agent(engine("tenthousand", preset="no"), "trained")
    with pytest.raises(ValueError, match=r"\(command line: --num-players 2 --target 10000\)$"):
        make_agent(engine("tenthousand", num_players=3, target=5000), "trained")
    with pytest.raises(ValueError, match=r"\(command line: --num-players 4\)$"):
        make_agent(engine("syvere"), "trained")


def test_foreign_checkpoints_are_refused_saying_which(tmp_path):
    random_checkpoint(tmp_path / "ck", lives=6)
    with pytest.raises(ValueError, match="trained for 'meyer', not 'syvere'"):
        TrainedAgent(engine("syvere"), path=str(tmp_path / "ck"))
    with pytest.raises(ValueError, match=r"other game options: lives=6 \(here 3\); it plays only those \(command line: --lives 6\)$"):
        TrainedAgent(engine("meyer", lives=3), path=str(tmp_path / "ck"))
    meta = json.loads((tmp_path / "ck" / META_FILE).read_text())
    meta["observation_layout_version"] = 99
    (tmp_path / "ck" / META_FILE).write_text(json.dumps(meta))
    with pytest.raises(ValueError, match="observation layout v99"):
        TrainedAgent(engine("meyer"), path=str(tmp_path / "ck"))
    meta["format_version"] = 7
    (tmp_path / "ck" / META_FILE).write_text(json.dumps(meta))
    with pytest.raises(ValueError, match="unknown checkpoint format version 7"):
        TrainedAgent(engine("meyer"), path=str(tmp_path / "ck"))


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda d: (d / WEIGHTS_FILE).write_bytes((d / WEIGHTS_FILE).read_bytes()[:-40]), "checksum"),
        (lambda d: _flip_byte(d / WEIGHTS_FILE, -3), "checksum"),
        (lambda d: (d / META_FILE).write_text((d / META_FILE).read_text()[:-30]), "not valid JSON"),
        (lambda d: (d / WEIGHTS_FILE).unlink(), "policy.safetensors is missing"),
        (lambda d: (d / META_FILE).write_text('{"format": "something else"}'), "not a dice-envs policy"),
        (lambda d: _rewrite_meta(d, lambda m: m["architecture"].update(hidden=[8, 6])), "do not match|shape"),
        (lambda d: _rewrite_meta(d, lambda m: m["normalization"].update(mean=[0.0])), "normalization"),
        # not finite (json reads NaN and Infinity): every logit NaN, which played an illegal action (review 8)
        (lambda d: _rewrite_meta(d, lambda m: m["normalization"]["mean"].__setitem__(0, float("nan"))), "finite"),
        (lambda d: _rewrite_meta(d, lambda m: m["normalization"]["var"].__setitem__(-1, float("nan"))), "finite"),
        (lambda d: _rewrite_meta(d, lambda m: m["normalization"]["var"].__setitem__(2, -1.0)), "finite"),
        (lambda d: _rewrite_meta(d, lambda m: m["normalization"].update(clip=float("inf"))), "finite"),
    ],
)
def test_corrupt_truncated_and_tampered_files_are_refused(tmp_path, damage, message):
    random_checkpoint(tmp_path / "ck")
    damage(tmp_path / "ck")
    with pytest.raises(ValueError, match=message):
        load_agent(engine("meyer"), tmp_path / "ck")


def _flip_byte(path: Path, index: int) -> None:
    data = bytearray(path.read_bytes())
    data[index] ^= 0xFF
    path.write_bytes(bytes(data))


def _rewrite_meta(d: Path, change) -> None:
    meta = json.loads((d / META_FILE).read_text())
    change(meta)
    (d / META_FILE).write_text(json.dumps(meta))


class _Payload:
    """Unpickling this runs ``Path.touch`` on the marker: proof that code from the file ran."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (Path(self.marker),))


@pytest.mark.parametrize("fix_checksum", [False, True])
def test_a_pickle_in_place_of_the_weights_is_never_executed(tmp_path, fix_checksum):
    random_checkpoint(tmp_path / "ck")
    marker = tmp_path / "pwned"
    payload = pickle.dumps(_Payload(str(marker)))
    pickle.loads(payload)  # the payload works: loading it with pickle creates the marker ...
    assert marker.exists()
    marker.unlink()
    (tmp_path / "ck" / WEIGHTS_FILE).write_bytes(payload)
    if fix_checksum:  # ... even with a matching checksum, the loader only parses safetensors
        _rewrite_meta(tmp_path / "ck", lambda m: m.update(weights_sha256=hashlib.sha256(payload).hexdigest()))
    with pytest.raises(ValueError, match="checksum" if not fix_checksum else "not a valid safetensors file"):
        read_checkpoint(tmp_path / "ck")
    assert not marker.exists()


def test_missing_directory_and_no_shipped_checkpoint(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match="no such file or directory"):
        load_agent(engine("meyer"), tmp_path / "nothing")
    (tmp_path / "a_file").write_text("x")
    with pytest.raises(ValueError, match="not a checkpoint directory"):
        load_agent(engine("meyer"), tmp_path / "a_file")
    import agents.checkpoint as ck

    monkeypatch.setattr(ck, "TRAINED_DIR", tmp_path)
    with pytest.raises(ValueError, match="no trained checkpoint ships for 'meyer'"):
        TrainedAgent(engine("meyer"))
    random_checkpoint(tmp_path / "meyer")
    assert TrainedAgent(engine("meyer")).policy.path == tmp_path / "meyer"


def test_the_trained_spec_of_make_agent_loads_a_checkpoint_path(tmp_path):
    import agents

    random_checkpoint(tmp_path / "ck")
    agent = agents.make_agent(engine("meyer"), str(tmp_path / "ck"), seed=3)
    assert isinstance(agent, TrainedAgent)
    shutil.rmtree(tmp_path / "ck")


@pytest.mark.parametrize(
    "game, options",
    [("meyer", {"num_players": 2, "lives": 6}), ("syvere", {"num_players": 4}),
     ("tenthousand", {"num_players": 2, "preset": "dk"})],
)
def test_shipped_checkpoints_load_and_play_legal_moves(game, options):
    """Each game's shipped checkpoint (agents/trained/<game>/) is the `trained` agent and plays whole
    games, in every seat, with legal moves only."""
    import agents

    eng = engine(game, **options)
    agent = agents.make_agent(eng, "trained", seed=0)
    assert isinstance(agent, TrainedAgent) and agent.policy.meta["game"] == game
    env = SingleAgentView(game, opponents=["random"], **options)
    for g in range(env.num_players):
        obs, _ = env.reset(seed=g, options={"learner_seat": g})
        while True:
            mask = env.action_masks()
            probs = agent.action_probabilities(obs, mask.astype(np.int8))
            action = agent.act(obs, mask.astype(np.int8))
            assert mask[action] and probs[action] == 1.0
            obs, reward, terminated, truncated, info = env.step(action)
            if terminated or truncated:
                break
        assert terminated and not info.get("illegal_action")
