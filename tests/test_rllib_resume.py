"""The RLlib trainer's run state: its checkpoint swap, its recovery and its settings check, without Ray;
and its refusals made before Ray starts, which need the package (marked ``ray``; see
``tests/test_ray_rllib.py`` for the trainer on Ray)."""

from __future__ import annotations

import json
import socket

import pytest

from train.rllib import (MARKER, check_resume, complete_checkpoint, recover_checkpoint, run_settings,
                         save_checkpoint_atomically, summary_line)


def fake_save(content: str):
    """A ``save(directory)`` that writes a small checkpoint-like tree holding ``content``."""

    def save(path):
        (path / "learner_group").mkdir(parents=True)
        (path / "algorithm_state.pkl").write_text(content)
        (path / "learner_group" / "state.pkl").write_text(content * 3)

    return save


def content(path) -> str:
    return (path / "algorithm_state.pkl").read_text()


def test_save_swaps_a_complete_checkpoint_into_place(tmp_path):
    resume = tmp_path / "rllib"
    save_checkpoint_atomically(fake_save("one"), resume, {"steps": 1})
    assert complete_checkpoint(resume)["steps"] == 1 and content(resume) == "one"
    save_checkpoint_atomically(fake_save("two"), resume, {"steps": 2})
    marker = complete_checkpoint(resume)
    assert marker["steps"] == 2 and content(resume) == "two"
    assert set(marker["files"]) == {"algorithm_state.pkl", "learner_group/state.pkl"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rllib"]  # no rllib.new / rllib.old left


def test_a_save_that_fails_leaves_the_previous_checkpoint(tmp_path):
    resume = tmp_path / "rllib"
    save_checkpoint_atomically(fake_save("one"), resume, {"steps": 1})

    def dies(path):  # killed half-way: part of the files, no marker
        (path / "learner_group").mkdir(parents=True)
        (path / "algorithm_state.pkl").write_text("partial")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        save_checkpoint_atomically(dies, resume, {"steps": 2})
    assert recover_checkpoint(resume)["steps"] == 1 and content(resume) == "one"
    assert not (tmp_path / "rllib.new").exists()


def test_recovery_takes_a_complete_new_checkpoint_whose_swap_was_interrupted(tmp_path):
    resume, new, old = tmp_path / "rllib", tmp_path / "rllib.new", tmp_path / "rllib.old"
    save_checkpoint_atomically(fake_save("one"), resume, {"steps": 1})
    save_checkpoint_atomically(fake_save("two"), new, {"steps": 2})  # complete, not yet swapped in
    assert recover_checkpoint(resume)["steps"] == 2 and content(resume) == "two"
    assert not new.exists() and not old.exists()
    # Killed between the two renames: rllib.old complete, rllib missing, rllib.new complete.
    resume.rename(old)
    save_checkpoint_atomically(fake_save("three"), new, {"steps": 3})
    assert recover_checkpoint(resume)["steps"] == 3 and not old.exists() and not new.exists()
    # Only rllib.old left (rllib.new already gone): it is put back.
    resume.rename(old)
    assert recover_checkpoint(resume)["steps"] == 3 and not old.exists()


def test_recovery_never_restores_an_incomplete_checkpoint(tmp_path):
    resume = tmp_path / "rllib"
    assert recover_checkpoint(resume) is None  # a new run
    save_checkpoint_atomically(fake_save("one"), resume, {"steps": 1})
    # An incomplete leftover beside a complete checkpoint is deleted.
    new = tmp_path / "rllib.new"
    fake_save("partial")(new)
    assert recover_checkpoint(resume)["steps"] == 1 and not new.exists()
    # A file the marker lists is missing (the review's checkpoint without learner_group/).
    (resume / "learner_group" / "state.pkl").unlink()
    with pytest.raises(ValueError, match="incomplete RLlib checkpoint"):
        recover_checkpoint(resume, "RLlib checkpoint")  # (what train.rllib.train calls it)
    # A checkpoint without a marker (a save killed in place, as older versions wrote).
    (resume / MARKER).unlink()
    with pytest.raises(ValueError, match="incomplete RLlib checkpoint") as info:
        recover_checkpoint(resume, "RLlib checkpoint")
    assert "\n" not in str(info.value)


def test_check_resume_names_every_changed_setting_in_one_line(tmp_path):
    old = run_settings("meyer", {"lives": 6}, (64, 64), 0, 8, 2000)
    check_resume(tmp_path, old, run_settings("meyer", {}, [64, 64], 0, 8, 2000))  # the default spelled out
    check_resume(tmp_path, json.loads(json.dumps(old)), old)
    new = run_settings("meyer", {"lives": 2}, (32,), 1, 4, 1000)
    with pytest.raises(ValueError) as info:
        check_resume(tmp_path, old, new)
    message = str(info.value)
    assert "\n" not in message and message.startswith(f"{tmp_path} was trained with other settings: ")
    for part in ("--lives 6 (this command: 2)", "--hidden 64,64 (this command: 32)",
                 "--seed 0 (this command: 1)", "--envs 8 (this command: 4)", "--batch 2000 (this command: 1000)"):
        assert part in message
    assert "--timesteps" in message  # what may change
    with pytest.raises(ValueError, match=r"game meyer \(this command: syvere\)"):
        check_resume(tmp_path, old, run_settings("syvere", {}, (64, 64), 0, 8, 2000))
    # A setting the old marker does not hold is not compared.
    check_resume(tmp_path, {k: v for k, v in old.items() if k != "seed"}, run_settings("meyer", {}, (64, 64), 5, 8,
                                                                                       2000))


def test_summary_line_gives_this_runs_steps_and_the_total():
    fresh = {"steps_this_run": 4006, "timesteps": 4006, "wall_seconds": 2.0, "env_steps_per_second": 2003.0}
    assert summary_line(fresh, 4000) == "trained 4006 env steps in 2 s (2003 env steps/s)"
    resumed = {"steps_this_run": 4006, "timesteps": 8012, "wall_seconds": 2.0, "env_steps_per_second": 2003.0}
    assert summary_line(resumed, 8000) == ("trained 4006 env steps in 2 s (2003 env steps/s); resumed at 4006, "
                                           "the run has 8012 in all")
    done = {"steps_this_run": 0, "timesteps": 8012, "wall_seconds": 0.0, "env_steps_per_second": 0.0}
    assert summary_line(done, 8000) == "nothing to train: the run already has 8012 env steps (--timesteps 8000)"


def _refused(argv, capsys) -> str:
    from dice_envs.cli import run_guarded
    from train.rllib import main

    assert run_guarded(main, argv, prog="python -m train.rllib") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    return err


@pytest.mark.ray
def test_options_without_decisions_are_refused_before_ray_starts(tmp_path, capsys):
    ray = pytest.importorskip("ray")
    run = tmp_path / "run"
    err = _refused(["syvere", "--max-rolls", "1", "--timesteps", "1000", "--run-dir", str(run)], capsys)
    assert "has no decisions to learn" in err
    assert not ray.is_initialized() and not run.exists()


@pytest.mark.ray
def test_an_unreachable_address_is_refused_at_once(tmp_path, capsys):
    ray = pytest.importorskip("ray")
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    run = tmp_path / "run"
    err = _refused(["meyer", "--timesteps", "1000", "--run-dir", str(run), "--address", f"127.0.0.1:{port}"], capsys)
    assert f"cannot reach a Ray cluster at --address 127.0.0.1:{port}" in err
    assert not ray.is_initialized() and not run.exists()


@pytest.mark.ray
def test_changed_settings_are_refused_before_ray_starts(tmp_path, capsys):
    ray = pytest.importorskip("ray")
    run = tmp_path / "run"
    settings = run_settings("meyer", {"lives": 2}, (64, 64), 0, 8, 2000)
    save_checkpoint_atomically(fake_save("x"), run / "rllib", {"settings": settings, "steps": 1000})
    err = _refused(["meyer", "--lives", "3", "--hidden", "32", "--timesteps", "3000", "--run-dir", str(run)], capsys)
    assert "--lives 2 (this command: 3); --hidden 64,64 (this command: 32)" in err
    assert not ray.is_initialized()


@pytest.mark.ray
def test_a_tournament_at_an_unreachable_address_is_refused_at_once(tmp_path, capsys):
    """The same check for ``tournament --backend ray --address``: it hung for minutes in Ray's retries."""
    ray = pytest.importorskip("ray")
    from dice_envs.cli import main as cli_main

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    db = tmp_path / "results.sqlite"
    code = cli_main(["tournament", "meyer", "--agents", "random", "honest", "--games", "2", "--backend", "ray",
                     "--address", f"127.0.0.1:{port}", "--db", str(db), "--quiet"])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and f"cannot reach a Ray cluster at --address 127.0.0.1:{port}" in err
    assert err.count("\n") == 1 and not ray.is_initialized()


def test_an_option_the_old_run_did_not_know_is_not_compared(tmp_path):
    """A later version's new game option must not make every older run unresumable."""
    old = run_settings("meyer", {}, (64, 64), 0, 8, 2000)
    del old["engine_options"]["history"]
    check_resume(tmp_path, old, run_settings("meyer", {}, (64, 64), 0, 8, 2000))
    with pytest.raises(ValueError, match=r"--lives 6 \(this command: 2\)"):
        check_resume(tmp_path, old, run_settings("meyer", {"lives": 2}, (64, 64), 0, 8, 2000))


def test_an_ignored_sigint_stays_ignored():
    """A training run started with SIGINT ignored (a background job) is not made interruptible."""
    import signal

    from train.rllib import _DeferredInterrupt

    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with _DeferredInterrupt():
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, previous)
