"""Training after the eighth outside review: every field checked before anything is made, a bad teacher
refused up front, the linear policy, ``RUN/policy`` kept up to date, TensorBoard steps written once, resume
edge cases (nothing to train, ``anneal_lr`` with a new budget), SIGTERM, and other baselines' weights.

The refusals run ``train.cli.main`` in-process and check that nothing was created. Where a check that is
missing would let the command train, the command carries :data:`TRIPWIRE`, a baseline SPEC that the trainer
refuses after its field checks and before it makes anything: a missing check then fails the test at once
(with the tripwire's message instead of the field's), without training.
"""

from __future__ import annotations

import inspect
import json
import os
import signal
from pathlib import Path

import pytest

from train.cli import main
from train.config import RECIPES, Args, build_args

from test_train_cli_flags import refused  # noqa: E402  (one-line ValueError, as the flags tests read it)

#: Refused by the trainer's probe, after every field check and before the run directory is made.
TRIPWIRE = ["--set", "baselines=no_such_agent_tripwire"]
#: A tiny run (as test_train_cli.TINY, without importing SB3 at collection time).
TINY = ["--set", "n_envs=2", "--set", "n_steps=64", "--set", "batch_size=64", "--set", "n_epochs=2",
        "--set", "snapshot_every=256", "--set", "eval_every=256", "--set", "eval_deals=1", "--set", "hidden=16,16",
        "--no-progress"]  # fmt: skip


@pytest.fixture
def cwd(tmp_path, monkeypatch) -> Path:
    """An empty working directory, checked empty after the test."""
    work = tmp_path / "cwd"
    work.mkdir()
    monkeypatch.chdir(work)
    yield work
    assert not list(work.iterdir()), "the command created files before refusing its input"


def config(tmp_path: Path, values: dict) -> list[str]:
    path = tmp_path / "c.json"
    path.write_text(json.dumps(values))
    return ["--config", str(path)]


# -- 1: every field's type and range, and view arguments in options (D3, D6) ------------------------------------
@pytest.mark.parametrize(
    "values, message",
    [
        ({"hidden": 64}, r"hidden must be a list such as \[64, 64\], got 64 \(a list even for one: \[64\]\)"),
        ({"hidden": [64, "abc"]}, r"hidden must be a list of whole numbers >= 1"),
        ({"hidden": [64, 1.5]}, r"hidden must be a list of whole numbers >= 1"),
        ({"hidden": [True]}, r"hidden must be a list of whole numbers >= 1"),
        ({"learning_rate": "fast"}, "learning_rate must be a number > 0, got 'fast'"),
        ({"learning_rate": True}, "learning_rate must be a number > 0, got True"),
        ({"ent_coef": "0.01"}, "ent_coef must be a number >= 0, got '0.01'"),
        ({"gamma": None}, "gamma must be a number in"),
        ({"learning_rate": float("inf")}, "learning_rate must be a number > 0, got inf"),
        ({"self_play_weight": float("nan")}, r"self_play_weight must be a number in \[0, 1\], got nan"),
        ({"anneal_lr": "yes"}, "anneal_lr must be true or false"),
        ({"baselines": "honest"}, r'baselines must be a list .*\(a list even for one: \["honest"\]\)'),
        ({"baseline_weights": [1, "x", 1]}, "baseline_weights must be a list of numbers >= 0"),
        ({"options": 3}, "options must be a table"),
        ({"options": {"opponents": ["honest"]}}, "'opponents' is not a game option.*training field baselines"),
        ({"options": {"learner_seat": 1}}, "'learner_seat' is not a game option.*training field learner_seat"),
        ({"options": {"weights": [1]}}, "'weights' is not a game option.*baseline_weights"),
        ({"options": {"shaping": 1.0}}, "'shaping' is not a game option.*training field shaping"),
        ({"options": {"max_cycles": 50}}, "'max_cycles' is not a game option"),
        ({"options": {"render_mode": "ansi"}}, "'render_mode' is not a game option"),
    ],
)
def test_config_values_of_the_wrong_type_are_refused_naming_the_field(cwd, tmp_path, values, message):
    run = tmp_path / "run"
    values = {"baselines": ["no_such_agent_tripwire"], **values}  # the tripwire, in the file itself
    refused(["meyer", *config(tmp_path, values), "--run-dir", str(run), "--timesteps", "256"], message)
    assert not run.exists()


@pytest.mark.parametrize(
    "item, message",
    [
        ("hidden=-4", "hidden must be a list of whole numbers >= 1"),
        ("hidden=0", "hidden must be a list of whole numbers >= 1"),
        ("learning_rate=-0.1", "learning_rate must be a number > 0, got -0.1"),
        ("learning_rate=0", "learning_rate must be a number > 0"),
        ("ent_coef=-5", "ent_coef must be a number >= 0, got -5"),
        ("vf_coef=-1", "vf_coef must be a number >= 0"),
        ("gamma=1.5", r"gamma must be a number in \(0, 1\], got 1.5"),
        ("gamma=0", r"gamma must be a number in \(0, 1\]"),
        ("gae_lambda=7", r"gae_lambda must be a number in \[0, 1\], got 7"),
        ("clip_range=-1", "clip_range must be a number > 0"),
        ("clip_range=0", "clip_range must be a number > 0"),
        ("shaping=-1", "shaping must be a number >= 0"),
        # the teacher's settings whether or not a teacher is set (Meyer's recipe has none)
        ("teacher_states=-1", "teacher_states must be an int >= 1, got -1"),
        ("teacher_epochs=0", "teacher_epochs must be an int >= 1"),
        ("teacher_lr=0", "teacher_lr must be a number > 0"),
    ],
)
def test_out_of_range_fields_are_refused_before_anything_is_made(cwd, tmp_path, item, message):
    run = tmp_path / "run"
    refused(["meyer", "--set", item, "--run-dir", str(run), "--timesteps", "256", *TRIPWIRE], message)
    assert not run.exists()


def test_the_field_checks_hold_for_args_made_in_python(cwd, tmp_path):
    from train.trainer import train

    with pytest.raises(ValueError, match="seed must be a whole number"):
        train(Args(game="meyer", seed=-1, run_dir=str(tmp_path / "run")))
    with pytest.raises(ValueError, match="progress must be true or false"):
        train(Args(game="meyer", progress="no", run_dir=str(tmp_path / "run")))
    with pytest.raises(ValueError, match="hidden must be a list such as"):
        Args(hidden=64)
    assert Args(hidden=[]).hidden == () and Args(hidden=[32, 16]).hidden == (32, 16)
    assert not (tmp_path / "run").exists()


def test_a_batch_larger_than_the_rollout_is_warned_about(cwd, tmp_path):
    """SB3 cuts each epoch's rollout into minibatches of batch_size: a larger one silently becomes a single
    minibatch of the whole rollout. Warned (not refused: fewer envs on a small machine is a fair run)."""
    with pytest.warns(UserWarning, match=r"batch_size 100000 is larger than a rollout \(n_steps \* n_envs = "
                                         r"256 \* 2 = 512\): each PPO epoch is one minibatch of 512"):
        refused(["meyer", "--set", "batch_size=100000", "--set", "n_envs=2", "--run-dir", str(tmp_path / "r"),
                 *TRIPWIRE], "no_such_agent_tripwire")  # fmt: skip


# -- 2: a bad teacher SPEC (D8) ----------------------------------------------------------------------------------
def test_a_bad_teacher_is_refused_before_the_run_directory_is_made(cwd, tmp_path):
    run = tmp_path / "run"
    refused(["meyer", "--set", "teacher=honset", "--run-dir", str(run), "--timesteps", "256", *TINY],
            "teacher: unknown agent 'honset' for meyer")  # fmt: skip
    refused(["meyer", "--set", "teacher=bluffer:x=1", "--run-dir", str(run), "--timesteps", "256", *TINY],
            "teacher: .*no parameter 'x'")  # fmt: skip
    assert not run.exists()


# -- 3: the linear policy (D5) -----------------------------------------------------------------------------------
def test_a_linear_policy_trains_evaluates_and_plays(tmp_path):
    pytest.importorskip("sb3_contrib")
    from agents.checkpoint import load_agent
    from test_train_cli import play_full_games

    run = tmp_path / "run"
    argv = ["meyer", "--lives", "2", "--timesteps", "512", "--run-dir", str(run), *TINY, "--set", "hidden="]
    assert main(argv) == 0
    meta = json.loads((run / "policy" / "policy.json").read_text())
    assert meta["architecture"]["hidden"] == [] and meta["architecture"]["obs_dim"] > 0
    summary = json.loads((run / "summary.json").read_text())
    assert [e["timesteps"] for e in summary["evaluations"]] == [256, 512]
    load_agent("meyer", str(run / "policy"))
    play_full_games("meyer", run / "policy", meta["options"], games=2)


# -- 4: RUN/policy at every snapshot (D9) ------------------------------------------------------------------------
def test_an_interrupted_run_has_a_usable_policy(tmp_path, monkeypatch):
    pytest.importorskip("sb3_contrib")
    from agents.checkpoint import load_agent
    from test_train_resume import interrupted_after_first_period

    run = tmp_path / "run"
    argv = ["meyer", "--lives", "2", "--timesteps", "768", "--run-dir", str(run), *TINY]
    interrupted_after_first_period(monkeypatch, argv)
    assert not (run / "summary.json").exists()
    meta = json.loads((run / "policy" / "policy.json").read_text())
    assert meta["training"]["timesteps"] == 256
    load_agent("meyer", str(run / "policy"))
    assert sorted(p.name for p in run.iterdir()) == ["checkpoints", "policy", "resume", "tb"]  # no temp dirs left


def test_the_policy_swap_holds_ctrl_c_back_until_policy_is_whole(tmp_path, ctrl_c):
    import train.trainer as trainer

    run = tmp_path / "run"
    (run / "policy").mkdir(parents=True)
    (run / "policy" / "policy.json").write_text("old")
    (tmp_path / "ckpt").mkdir()
    (tmp_path / "ckpt" / "policy.json").write_text("new")
    real_replace, order = os.replace, []

    def replace_then_interrupt(src, dst):
        real_replace(src, dst)
        order.append(Path(dst).name)
        if Path(dst).name == "policy.old":  # between the two renames: no policy/ for a moment
            os.kill(os.getpid(), signal.SIGINT)

    os.replace = replace_then_interrupt
    try:
        with pytest.raises(KeyboardInterrupt):
            trainer._refresh_policy(run, str(tmp_path / "ckpt"))
    finally:
        os.replace = real_replace
    # the marker last into the new copy, then the swap; the interrupt came after it, not between its renames
    assert order == ["dice_envs_checkpoint.json", "policy.old", "policy"]
    assert (run / "policy" / "policy.json").read_text() == "new"
    assert sorted(p.name for p in run.iterdir()) == ["policy"]


# -- 5: TensorBoard steps written once, also over an interrupted and resumed run (D7) -------------------------
def test_tensorboard_steps_are_written_once_across_a_resume(tmp_path, monkeypatch):
    pytest.importorskip("sb3_contrib")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    import train.trainer as trainer
    from train.view import SingleAgentView

    calls = {"n": 0}

    class StopsMidPeriod(SingleAgentView):
        """Ctrl-C at learner step 450 of the first segment: after the dump at 384, before the save at 512."""

        def step(self, action):
            calls["n"] += 1
            if calls["n"] == 450:
                raise KeyboardInterrupt
            return super().step(action)

    run = tmp_path / "run"
    argv = ["meyer", "--lives", "2", "--timesteps", "768", "--run-dir", str(run), *TINY]
    monkeypatch.setattr(trainer, "SingleAgentView", StopsMidPeriod)
    with pytest.raises(KeyboardInterrupt):
        main(argv)
    assert json.loads((run / "resume" / "state.json").read_text())["timesteps"] == 256
    monkeypatch.setattr(trainer, "SingleAgentView", SingleAgentView)
    assert main(argv) == 0
    events = EventAccumulator(str(run / "tb"))
    events.Reload()
    tags = events.Tags()["scalars"]
    assert "losses/value_loss" in tags and "charts/ep_rew_mean" in tags
    for tag in tags:
        steps = [e.step for e in events.Scalars(tag)]
        assert steps == sorted(set(steps)), f"{tag}: {steps}"
    # one record per PPO update (2 per period of 256 steps), the interrupted segment's 384 replaced
    assert [e.step for e in events.Scalars("losses/value_loss")] == [128, 256, 384, 512, 640, 768]
    assert [e.step for e in events.Scalars("charts/steps_per_second")] == [256, 512, 768]


# -- 6: resume edge cases ---------------------------------------------------------------------------------------
def test_a_resume_with_no_steps_left_trains_nothing_and_changes_nothing(tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    run = tmp_path / "run"
    argv = ["meyer", "--lives", "2", "--run-dir", str(run), *TINY]
    assert main([*argv, "--timesteps", "512"]) == 0
    summary = (run / "summary.json").read_text()
    tb = sorted(os.listdir(run / "tb"))
    capsys.readouterr()
    for budget in ("256", "512"):
        assert main([*argv, "--timesteps", budget]) == 0
        out = capsys.readouterr().out
        assert out.startswith(f"already trained 512 steps >= --timesteps {budget}: nothing to train\n")
        assert "trained 512 steps in" not in out and out.splitlines()[1] == f"checkpoint: {run / 'policy'}"
        assert (run / "summary.json").read_text() == summary
        assert sorted(os.listdir(run / "tb")) == tb  # no empty event file appended


def _learning_rates(run: Path) -> list[tuple[int, float]]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(run / "tb"))
    events.Reload()
    return [(e.step, round(e.value, 10)) for e in events.Scalars("losses/learning_rate")]


def test_anneal_lr_stays_continuous_when_a_resume_changes_the_budget(tmp_path, monkeypatch):
    """Meyer's recipe anneals 3e-4 to 0 over --timesteps. Resumed at step 256 of 768 with --timesteps 1024,
    the rate went back up (3e-4 * (1 - 256/1024) = 2.25e-4 > 2e-4); now it goes on from the 2e-4 reached at
    256 down to 0 at 1024. A run that finished its schedule goes on from the rate of its last period."""
    pytest.importorskip("sb3_contrib")
    from test_train_resume import interrupted_after_first_period

    run = tmp_path / "run"
    argv = ["meyer", "--lives", "2", "--run-dir", str(run), *TINY]
    interrupted_after_first_period(monkeypatch, [*argv, "--timesteps", "768"])
    assert main([*argv, "--timesteps", "1024"]) == 0
    rates = dict(_learning_rates(run))
    expected = {128: 3e-4, 256: 3e-4, 384: 2e-4, 512: 2e-4, 640: 2e-4 * 2 / 3, 768: 2e-4 * 2 / 3,
                896: 2e-4 / 3, 1024: 2e-4 / 3}  # fmt: skip
    assert rates == {step: round(rate, 10) for step, rate in expected.items()}
    state = json.loads((run / "resume" / "state.json").read_text())
    assert state["anneal"] == {"from_step": 256, "rate": pytest.approx(2e-4), "to_step": 1024}
    # The schedule ended (its rate is 0 at 1024): on to 1536 it goes on from its last period's rate down to 0,
    # not at 0, and not back up at 3e-4 * (1 - 1024/1536) = 1e-4.
    assert main([*argv, "--timesteps", "1536"]) == 0
    rates = dict(_learning_rates(run))
    assert [rates[s] for s in (1152, 1280, 1408, 1536)] == [round(r, 10) for r in (2e-4 / 3,) * 2 + (1e-4 / 3,) * 2]


# -- 7: SIGTERM --------------------------------------------------------------------------------------------------
def test_sigterm_stops_the_run_saying_where_it_is_saved_with_exit_143(tmp_path, monkeypatch, capsys):
    pytest.importorskip("sb3_contrib")
    import train.trainer as trainer
    from dice_envs.cli import run_guarded

    run = tmp_path / "run"
    argv = ["meyer", "--lives", "2", "--timesteps", "768", "--run-dir", str(run), *TINY]
    real_write = trainer._write_json

    def terminated(path, data):
        real_write(path, data)
        if path.name == "state.json":
            # Without a handler of the trainer's, SIGTERM would end the test process itself.
            assert signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL, "the trainer does not handle SIGTERM"
            os.kill(os.getpid(), signal.SIGTERM)

    monkeypatch.setattr(trainer, "_write_json", terminated)
    assert run_guarded(main, argv) == 143
    err = capsys.readouterr().err.strip()
    assert err == f"dice-envs: terminated (SIGTERM); the run is saved at step 256 in {run}: the same command resumes"
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # put back
    monkeypatch.setattr(trainer, "_write_json", real_write)
    assert main(argv) == 0
    assert json.loads((run / "summary.json").read_text())["timesteps"] == 768


# -- 8: other baselines without their weights ---------------------------------------------------------------------
def test_other_baselines_without_weights_are_drawn_equally(cwd, capsys):
    assert RECIPES["meyer"]["baseline_weights"] == (10.0, 1.0, 1.0)
    assert build_args("meyer", {"baselines": ("honest",)}).baseline_weights == ()
    assert build_args("meyer", {"baselines": ["honest", "random"]}).baseline_weights == ()
    # the recipe's own baselines keep its weights; weights given are kept
    assert build_args("meyer", {"baselines": ["honest", "doubter", "bluffer"]}).baseline_weights == (10.0, 1.0, 1.0)
    given = build_args("meyer", {"baselines": ("honest", "random"), "baseline_weights": (3, 1)})
    assert given.baseline_weights == (3, 1)
    assert build_args("meyer", {}).baseline_weights == (10.0, 1.0, 1.0)
    # through the command line: past the weights' check, stopped by the n_envs tripwire
    refused(["meyer", "--set", "baselines=honest", "--set", "n_envs=0"], "n_envs must be an int >= 1")
    assert capsys.readouterr() == ("", "")
    # weights that do not fit the baselines given are still refused
    refused(["meyer", "--set", "baselines=honest", "--set", "baseline_weights=1,2"],
            r"baseline_weights must give 1 weights, one per baseline \(honest\), got 2")  # fmt: skip


# -- 9: the run_dir docstring -------------------------------------------------------------------------------------
def test_the_run_dir_docstring_gives_the_command_line_default():
    source = inspect.getsource(Args)
    doc = source.split("run_dir: str =", 1)[1].split("n_envs:", 1)[0]
    assert "runs/<game>-seed<S>" in doc


def test_a_stop_during_the_save_waits_until_the_three_resume_files_agree(tmp_path):
    """SIGTERM between model.zip and state.json left a state describing older files (diff review 8):
    the signal now waits until all three are written, then stops the run."""
    import signal

    from train.trainer import _save_resume

    class Model:
        def save(self, path):
            os.kill(os.getpid(), signal.SIGTERM)  # arrives in the middle of the save
            Path(path).write_text("model at 512")

    class Venv:
        def save(self, path):
            Path(path).write_text("statistics at 512")

    class Stop(Exception):
        pass

    def stop(signum, frame):
        raise Stop

    resume = tmp_path / "resume"
    resume.mkdir()
    (resume / "state.json").write_text('{"timesteps": 256}')
    before = signal.signal(signal.SIGTERM, stop)
    try:
        with pytest.raises(Stop):
            _save_resume(resume, Model(), Venv(), {"timesteps": 512})
    finally:
        signal.signal(signal.SIGTERM, before)
    assert (resume / "model.zip").read_text() == "model at 512"
    assert (resume / "vecnormalize.pkl").read_text() == "statistics at 512"
    assert json.loads((resume / "state.json").read_text()) == {"timesteps": 512}
    assert sorted(p.name for p in resume.iterdir()) == ["dice_envs_checkpoint.json", "model.zip", "state.json",
                                                       "vecnormalize.pkl"]  # fmt: skip
    assert [p.name for p in tmp_path.iterdir()] == ["resume"]  # nothing left aside


def test_hidden_takes_whole_numbers_written_as_floats_and_numpy_arrays():
    """The stricter check refused what the old tuple(int(h) ...) took (diff review 8): 64.0 and a
    one-dimensional integer array are still whole numbers; 64.5, True and a 2-d array are not."""
    import numpy as np

    from train.config import Args

    assert Args(hidden=[64.0, 32]).hidden == (64, 32) and Args(hidden=np.array([32, 32])).hidden == (32, 32)
    for bad in ([64.5], [True], np.array([[1]])):
        with pytest.raises(ValueError, match="hidden must be a list"):
            Args(hidden=bad)
