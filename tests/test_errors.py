"""The package's own exception classes (``dice_envs.errors``): each raised where it belongs, and each
still the builtin the package raised before (``ValueError``; ``ImportError`` for a missing extra).

``env()`` refuses misuse with the same errors as ``raw_env()`` (never PettingZoo's
``AssertionError``, which ``python -O`` strips), and an illegal action ending a game under ``env()``
leaves float rewards and ``info["illegal_action"]`` on the offender.
"""

import importlib
import json
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pettingzoo
import pytest

import dice_envs  # noqa: F401  (registers the envs)
from agents.checkpoint import TRAINED_DIR, load_agent, read_checkpoint
from dice_envs import meyer_v0, syvere_v0, tenthousand_v1
from dice_envs.errors import (
    CheckpointError,
    DiceEnvsError,
    IllegalActionError,
    InvalidOptionError,
    MissingExtraError,
)
from dice_envs.extras import NotInstalled, missing_package
from dice_envs.games import meyer, syvere, tenthousand
from dice_envs.options import check_game_options, parse_game_options

MODULES = {"syvere": syvere_v0, "tenthousand": tenthousand_v1, "meyer": meyer_v0}
ROOT = Path(__file__).resolve().parent.parent


def _raises(cls, call, *also):
    with pytest.raises(cls) as info:
        call()
    exc = info.value
    assert isinstance(exc, DiceEnvsError)
    for base in also or (ValueError,):
        assert isinstance(exc, base), (type(exc).__mro__, base)
    return exc


# -- InvalidOptionError ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "call",
    [
        lambda: pettingzoo.make("aec", "dice/meyer-v0", lives=0),
        lambda: pettingzoo.make("aec", "dice/syvere-v0", num_player=3),  # a typo
        lambda: pettingzoo.make("parallel", "dice/syvere-v0", num_players="4"),
        lambda: syvere_v0.raw_env(next_starter="RIGHT"),
        lambda: syvere_v0.env(render_mode="rgb_array"),
        lambda: syvere_v0.env(max_cycles=0),
        lambda: tenthousand_v1.env(target=1234),
        lambda: tenthousand.Game(targt=5000),
        lambda: tenthousand.Game(opening=20000),
        lambda: tenthousand.Game(exact_target=True, bust_penalty=20),
        lambda: meyer.Game(lille_meyer="false"),
        lambda: syvere.Game(num_players=3, first_starter=3),
        lambda: parse_game_options("meyer", ["--lives", "x"]),
        lambda: parse_game_options("meyer", ["--livez", "3"]),
        lambda: check_game_options("syvere", {"render_mode": "ansi"}, refused="a match"),
        lambda: check_game_options("syvere", {"bogus": 1}),
    ],
    ids=lambda call: "",
)
def test_bad_options_raise_invalid_option_error(call):
    _raises(InvalidOptionError, call)


def test_the_messages_are_unchanged():
    exc = _raises(InvalidOptionError, lambda: meyer_v0.env(lives=0))
    assert str(exc) == "lives must be 1..100, got 0"
    exc = _raises(InvalidOptionError, lambda: parse_game_options("meyer", ["--lives", "x"]))
    assert str(exc) == "option --lives must be int (a whole number such as 3), got 'x'"


def test_a_bad_seed_is_a_plain_value_error_not_an_option_error():
    env = syvere_v0.env()
    with pytest.raises(ValueError, match="seed must be >= 0") as info:
        env.reset(seed=-1)
    assert not isinstance(info.value, InvalidOptionError)


def test_openspiel_parameters_raise_invalid_option_error():
    pyspiel = pytest.importorskip("pyspiel")
    pytest.importorskip("dice_envs.openspiel")
    for name, params in [("python_dice_meyer", {"lives": 0}), ("python_dice_syvere", {"players": 9})]:
        exc = _raises(InvalidOptionError, lambda: pyspiel.load_game(name, params))
        assert str(exc).startswith(name + ":")


# -- IllegalActionError ----------------------------------------------------------------------------
def test_engines_refuse_illegal_actions_with_the_legal_ids():
    game = syvere.Game()
    state = game.initial_state()
    if game.is_chance(state):  # the first roll: no pair sums to 7, all six stay
        state = game.apply_chance(state, (6,) * game.num_dice_to_roll(state))
    exc = _raises(IllegalActionError, lambda: game.apply_action(state, 5))
    assert exc.action == 5 and exc.legal == (0, 1)
    assert str(exc) == "illegal action 5 in syvere; legal actions: 0 (roll), 1 (stop)"
    exc = _raises(IllegalActionError, lambda: game.apply_action(state, "roll"))
    assert exc.action == "roll" and exc.legal == (0, 1)
    # At a chance state nobody is to act: legal is None.
    exc = _raises(IllegalActionError, lambda: game.apply_action(game.initial_state(), 0))
    assert exc.legal is None and "chance state" in str(exc)

    g = meyer.Game()
    s = g.apply_chance(g.initial_state(), (5, 4))
    exc = _raises(IllegalActionError, lambda: g.apply_action(s, 0))  # no claim to doubt yet
    assert exc.action == 0 and exc.legal == tuple(g.legal_actions(s)) and all(type(a) is int for a in exc.legal)

    t = tenthousand.Game()
    s = t.apply_chance(t.initial_state(), (1, 2, 3, 4, 6, 6))
    legal = tuple(t.legal_actions(s))
    bad = next(a for a in range(t.num_actions) if a not in legal)
    exc = _raises(IllegalActionError, lambda: t.apply_action(s, bad))
    assert exc.legal == legal
    exc = _raises(IllegalActionError, lambda: t.apply_action(s, np.float64(bad)))
    assert exc.legal == legal


def test_action_ids_and_strings_that_are_no_action():
    _raises(IllegalActionError, lambda: tenthousand.decode_action(308))
    _raises(IllegalActionError, lambda: syvere.Game().action_to_string(None, 7))
    g = meyer.Game()
    s = g.apply_chance(g.initial_state(), (5, 4))
    exc = _raises(IllegalActionError, lambda: g.string_to_action(s, "claim 77"))
    assert exc.action == "claim 77" and exc.legal == tuple(g.legal_actions(s))


BAD_ACTIONS = [5, -1, "roll", True, 1.0, np.array([0]), None]


@pytest.mark.parametrize("action", BAD_ACTIONS, ids=repr)
def test_env_and_raw_env_refuse_a_bad_action_alike(action):
    errors = []
    for make in (syvere_v0.env, syvere_v0.raw_env, lambda: pettingzoo.make("aec", "dice/syvere-v0")):
        env = make()
        env.reset(seed=0)
        errors.append(_raises(IllegalActionError, lambda: env.step(action)))
        assert env.unwrapped.history[-1][0] == "chance"  # nothing was played
    assert len({(type(e), str(e)) for e in errors}) == 1, errors
    assert errors[0].legal == (0, 1)


def test_a_finished_agent_given_an_action_is_refused_alike():
    for make in (meyer_v0.env, meyer_v0.raw_env):
        env = make()
        env.reset(seed=0)
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                for bad in (0, 99):  # in the space and outside it
                    exc = _raises(IllegalActionError, lambda: env.step(bad))
                    assert "the game is over for" in str(exc) and exc.legal is None
                env.step(None)  # a dead agent still steps out with None
            else:
                env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        assert not env.agents


@pytest.mark.parametrize(
    "call",
    [
        lambda e: e.step(0),
        lambda e: e.last(),
        lambda e: e.state(),
        lambda e: e.observe("player_0"),
        lambda e: e.observe("player_9"),
        lambda e: next(iter(e.agent_iter())),  # the raw env's failed on agent_selection (diff review 8)
    ],
    ids=["step", "last", "state", "observe", "observe-unknown", "agent_iter"],
)
def test_calls_before_reset_raise_the_raw_envs_error(call):
    results = []
    for make in (syvere_v0.env, syvere_v0.raw_env):
        with pytest.raises(ValueError) as info:
            call(make())
        results.append((type(info.value), str(info.value)))
    assert results[0] == results[1], results
    assert "before reset" in results[0][1] or "unknown agent" in results[0][1]


def test_bookkeeping_before_reset_is_still_pettingzoos_attribute_error():
    with pytest.raises(AttributeError, match="cannot be accessed before reset"):
        syvere_v0.env().agent_selection


OPTIMIZED = """
import numpy as np
from dice_envs import syvere_v0, tenthousand_v1
from dice_envs.errors import IllegalActionError
assert not __debug__
for mod, a in [(syvere_v0, 5), (syvere_v0, -1), (syvere_v0, "roll"), (syvere_v0, True), (syvere_v0, None),
               (tenthousand_v1, 400)]:
    e = mod.env(); e.reset(seed=0)
    try:
        e.step(a)
    except IllegalActionError as exc:
        print("IllegalActionError", exc.legal is not None)
    else:
        print("no error")
e = syvere_v0.env()
for call in (lambda: e.step(0), lambda: e.state(), lambda: e.last()):
    try:
        call()
    except ValueError as exc:
        print(type(exc).__name__, "before reset" in str(exc))
"""


def test_under_python_O_an_out_of_range_action_to_env_is_still_refused():
    proc = subprocess.run(
        [sys.executable, "-O", "-c", OPTIMIZED], capture_output=True, text=True, check=False, cwd=ROOT
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n")[:-1] == ["IllegalActionError True"] * 6 + ["ValueError True"] * 3, proc.stdout


# -- S7: the illegal action that ends a game under env() -------------------------------------------
@pytest.mark.parametrize("module", [meyer_v0, tenthousand_v1], ids=lambda m: m.__name__)  # syvere masks nothing
def test_an_illegal_action_under_env_leaves_float_rewards_and_marks_the_offender(module):
    env = module.env(num_players=3)
    env.reset(seed=0)
    for _ in range(50):
        offender = env.agent_selection
        mask = env.observe(offender)["action_mask"]
        if (mask == 0).any():
            break
        env.step(int(np.flatnonzero(mask)[0]))
    else:
        pytest.skip("no masked action met")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo logs the illegal move
        env.step(int(np.flatnonzero(mask == 0)[0]))
    assert all(type(r) is float for r in env.rewards.values()), env.rewards
    assert env.rewards[offender] == -1.0 and sum(env.rewards.values()) == -1.0
    assert env.infos[offender]["illegal_action"] is True
    assert not any("illegal_action" in info for agent, info in env.infos.items() if agent != offender)
    seen = []
    for agent in env.agent_iter():  # every agent steps out with None; rewards stay floats
        _, reward, term, trunc, _ = env.last()
        assert type(reward) is float and (term or trunc)
        env.step(None)
        assert all(type(r) is float for r in env.rewards.values())
        seen.append(agent)
    assert len(seen) == 3
    env.reset(seed=1)
    assert not any("illegal_action" in info for info in env.infos.values())


# -- CheckpointError -------------------------------------------------------------------------------
def _copy_checkpoint(tmp_path: Path, game: str = "syvere") -> Path:
    d = tmp_path / "ckpt"
    d.mkdir()
    for f in (TRAINED_DIR / game).iterdir():
        if f.is_file():
            (d / f.name).write_bytes(f.read_bytes())
    return d


def test_missing_truncated_and_tampered_checkpoints_raise_checkpoint_error(tmp_path):
    pytest.importorskip("safetensors")
    missing = tmp_path / "nope"
    exc = _raises(CheckpointError, lambda: load_agent("syvere", missing))
    assert exc.path == missing and "no such file or directory" in str(exc)
    exc = _raises(CheckpointError, lambda: load_agent(syvere.Game(), tmp_path))  # no policy.json
    assert exc.path == tmp_path

    d = _copy_checkpoint(tmp_path)
    meta = d / "policy.json"
    text = meta.read_text()
    meta.write_text(text[: len(text) // 2])  # truncated
    exc = _raises(CheckpointError, lambda: read_checkpoint(d))
    assert exc.path == d and "not valid JSON" in str(exc)

    meta.write_text(text)
    weights = d / "policy.safetensors"
    blob = bytearray(weights.read_bytes())
    blob[-1] ^= 1  # tampered
    weights.write_bytes(bytes(blob))
    exc = _raises(CheckpointError, lambda: load_agent("syvere", d))
    assert exc.path == d and "checksum" in str(exc)


def test_foreign_checkpoints_raise_checkpoint_error(tmp_path):
    pytest.importorskip("safetensors")
    shipped = TRAINED_DIR / "meyer"
    exc = _raises(CheckpointError, lambda: load_agent(syvere.Game(), shipped))  # another game
    assert "it was trained for 'meyer'" in str(exc) and Path(exc.path) == shipped
    exc = _raises(CheckpointError, lambda: load_agent(meyer.Game(lives=3), shipped))  # other options
    assert "other game options" in str(exc)
    d = _copy_checkpoint(tmp_path)
    meta = json.loads((d / "policy.json").read_text())
    meta["format_version"] = 999
    (d / "policy.json").write_text(json.dumps(meta))
    exc = _raises(CheckpointError, lambda: load_agent("syvere", d))
    assert "unknown checkpoint format version" in str(exc)


def test_make_agent_with_a_bad_checkpoint_path_raises_checkpoint_error(tmp_path):
    from agents import make_agent

    _raises(CheckpointError, lambda: make_agent("syvere", str(tmp_path / "nope")))


# -- MissingExtraError -----------------------------------------------------------------------------
def test_a_missing_extra_is_an_import_error_and_a_value_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "scipy", None)  # as if scipy were not installed
    exc = missing_package(ModuleNotFoundError("x", name="scipy.optimize"), "agent 'equilibrium' for meyer")
    assert isinstance(exc, NotInstalled) and isinstance(exc, MissingExtraError)
    assert isinstance(exc, ImportError) and isinstance(exc, ValueError) and isinstance(exc, DiceEnvsError)
    with pytest.raises(ImportError):
        raise exc


def test_the_trained_agent_without_safetensors_raises_missing_extra_error(monkeypatch):
    from agents import make_agent

    for name in [m for m in sys.modules if m == "safetensors" or m.startswith("safetensors.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "safetensors", None)
    exc = _raises(MissingExtraError, lambda: make_agent("syvere", "trained"), ImportError, ValueError)
    assert "pip install 'dice-envs[train]'" in str(exc)


def test_the_openspiel_module_without_pyspiel_raises_missing_extra_error(monkeypatch):
    for name in [m for m in sys.modules if m.split(".")[0] in ("pyspiel", "open_spiel") or m == "dice_envs.openspiel"]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "pyspiel", None)
    monkeypatch.delattr(dice_envs, "openspiel", raising=False)
    with pytest.raises(ImportError) as info:  # what `except ImportError` around an optional import expects
        importlib.import_module("dice_envs.openspiel")
    assert isinstance(info.value, MissingExtraError) and isinstance(info.value, ValueError)
    assert "pip install 'dice-envs[openspiel]'" in str(info.value)


def test_the_command_line_still_exits_1_for_a_missing_extra(monkeypatch, capsys):
    from dice_envs.cli import run_guarded

    def command(argv):
        raise NotInstalled("x needs the package 'numba', which is not installed: pip install 'dice-envs[solve]'")

    assert run_guarded(command, []) == 1

    def plain(argv):
        raise MissingExtraError("y needs the package 'numba', which is not installed")

    assert run_guarded(plain, []) == 1  # the class itself, not only the NotInstalled subclass
    err = capsys.readouterr().err
    assert "dice-envs: x needs the package 'numba'" in err and "dice-envs: y needs" in err
