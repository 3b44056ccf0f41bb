"""Resuming a run (from an SB3/CleanRL user's review): settings that would not take effect are
refused, a resumed segment draws new env seeds, and a run's snapshots are found from anywhere."""

from __future__ import annotations

import json
import os
import signal

import pytest

pytest.importorskip("sb3_contrib")

from test_train_cli import TINY  # noqa: E402
from train.cli import main  # noqa: E402


def interrupted_after_first_period(monkeypatch, argv):
    import train.trainer as trainer

    real_write = trainer._write_json

    def interrupted(path, data):
        real_write(path, data)
        if path.name == "state.json":
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C during the save: held back until the save is whole

    monkeypatch.setattr(trainer, "_write_json", interrupted)
    # Ctrl-C raises KeyboardInterrupt, as in a terminal (a process started in the background inherits SIGINT
    # ignored: the fresh-clone CI run of 2026-12-01 saw no interrupt at all).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            main(argv)
    finally:
        signal.signal(signal.SIGINT, previous)
    monkeypatch.setattr(trainer, "_write_json", real_write)


def recorded_seeds(monkeypatch) -> list[int]:
    """The seeds the trainer's envs are reset with (a list that fills as it trains)."""
    import train.trainer as trainer
    from train.view import SingleAgentView

    seeds: list[int] = []

    class Recording(SingleAgentView):
        def reset(self, seed=None, options=None):
            if seed is not None:
                seeds.append(seed)
            return super().reset(seed=seed, options=options)

    monkeypatch.setattr(trainer, "SingleAgentView", Recording)
    return seeds


def test_resuming_with_other_settings_is_refused_and_what_may_change_does(tmp_path, monkeypatch):
    """SB3's saved model keeps its own network and coefficients: --set ent_coef or activation on a
    resume would be silently ignored, and the checkpoints would describe the new values."""
    run = tmp_path / "run"
    argv = ["meyer", "--lives", "2", "--timesteps", "512", "--seed", "1", "--run-dir", str(run), *TINY]
    interrupted_after_first_period(monkeypatch, argv)
    before = (run / "resume" / "state.json").read_text()
    for extra, named in ((["--set", "ent_coef=0.5"], "ent_coef 0.01"), (["--set", "activation=relu"], "activation 'tanh'"),
                         (["--seed", "2"], "seed 1")):  # fmt: skip
        with pytest.raises(ValueError, match=f"was trained with other settings: {named}"):
            main([*argv, *extra])
    assert (run / "resume" / "state.json").read_text() == before  # nothing was touched
    # How long and how it runs may change: more steps, other evaluation settings.
    assert main([*argv[:4], "768", *argv[5:], "--set", "eval_deals=2"]) == 0
    assert json.loads((run / "summary.json").read_text())["timesteps"] == 768


def test_a_resumed_segment_seeds_its_envs_afresh(tmp_path, monkeypatch):
    import train.trainer as trainer

    seeds = recorded_seeds(monkeypatch)
    run = tmp_path / "run"
    argv = ["meyer", "--lives", "2", "--timesteps", "512", "--seed", "3", "--run-dir", str(run), *TINY]
    interrupted_after_first_period(monkeypatch, argv)
    first = list(seeds)
    seeds.clear()
    assert main(argv) == 0
    base = 3 * trainer.SEED_STRIDE
    assert first[:2] == [base, base + 1]  # n_envs=2; not SB3's own seed + i (3, 4), shared with --seed 4
    assert seeds[:2] == [base + trainer.SEGMENT_STRIDE, base + trainer.SEGMENT_STRIDE + 1]


def test_the_summary_records_each_segment_and_the_library_versions(tmp_path, monkeypatch):
    """Where a resumed run's segments began, with their env seeds, torch threads and library
    versions: what can make its weights differ from a straight run's (reproducibility review 10, F3)."""
    import importlib.metadata

    import train.trainer as trainer

    run = tmp_path / "run"
    argv = ["meyer", "--lives", "2", "--timesteps", "512", "--seed", "3", "--run-dir", str(run), *TINY]
    interrupted_after_first_period(monkeypatch, argv)
    saved = json.loads((run / "resume" / "state.json").read_text())["timesteps"]
    assert main([*argv, "--set", "torch_threads=2"]) == 0
    summary = json.loads((run / "summary.json").read_text())
    base = 3 * trainer.SEED_STRIDE
    assert [(s["step"], s["env_seed"], s["torch_threads"]) for s in summary["segment_starts"]] == [
        (0, base, 1), (saved, base + trainer.SEGMENT_STRIDE, 2)
    ]
    assert 0 < saved < 512
    versions = summary["versions"]
    assert versions["torch"] == importlib.metadata.version("torch")
    assert versions["dice-envs"] == importlib.metadata.version("dice-envs")
    assert summary["segment_starts"][1]["versions"] == versions


def test_a_run_resumed_from_another_directory_keeps_its_snapshots(tmp_path, monkeypatch):
    """Snapshots were stored relative to the directory the run started from; resumed from
    elsewhere, the self-play pool silently lost them."""
    (tmp_path / "a").mkdir()
    monkeypatch.chdir(tmp_path / "a")
    argv = ["meyer", "--lives", "2", "--timesteps", "512", "--seed", "1", "--run-dir", "r6", *TINY]
    interrupted_after_first_period(monkeypatch, argv)
    stored = json.loads((tmp_path / "a" / "r6" / "resume" / "state.json").read_text())["snapshots"]
    assert stored == ["checkpoints/step_000000256"]
    monkeypatch.chdir(tmp_path)
    assert main([*argv[:8], os.path.join("a", "r6"), *argv[9:]]) == 0
    stored = json.loads((tmp_path / "a" / "r6" / "resume" / "state.json").read_text())["snapshots"]
    assert stored == ["checkpoints/step_000000256", "checkpoints/step_000000512"]


def test_other_baselines_get_equal_weights_and_a_bad_seat_is_refused_before_anything_is_written(tmp_path):
    from train.config import build_args

    # Other baselines than the recipe's, without weights of their own, are drawn equally (the recipe's
    # three weights no longer fail the count); the recipe's own keep its weights.
    assert build_args("meyer", {"baselines": ("honest",)}).baseline_weights == ()
    assert build_args("meyer", {}).baseline_weights != ()
    run = tmp_path / "run"
    with pytest.raises(ValueError, match=r"baseline_weights must give 1 weights, one per baseline \(honest\), got 2"):
        main(["meyer", "--timesteps", "512", "--run-dir", str(run), "--set", "baselines=honest",
              "--set", "baseline_weights=1,2", *TINY])  # fmt: skip
    with pytest.raises(ValueError, match="learner_seat"):
        main(["meyer", "--timesteps", "512", "--run-dir", str(run), "--set", "learner_seat=5", *TINY])
    assert not run.exists()


def test_every_resume_moves_the_seeds_on_and_big_seeds_resume(tmp_path, monkeypatch):
    """The segment count was the number of evaluations: with none between two resumes (eval_deals=0,
    or the Meyer recipe's saves between its evaluations) a resume replayed the last segment's seeds.
    A run seed of 5000 made the segment seed pass 2**32, which numpy's global seed refuses."""
    import train.trainer as trainer

    seeds = recorded_seeds(monkeypatch)
    run = tmp_path / "run"
    argv = ["meyer", "--lives", "2", "--timesteps", "768", "--seed", "5000", "--run-dir", str(run), *TINY,
            "--set", "eval_deals=0"]  # fmt: skip
    interrupted_after_first_period(monkeypatch, argv)
    interrupted_after_first_period(monkeypatch, [*argv[:4], "512", *argv[5:]])
    seeds_before = list(seeds)
    seeds.clear()
    assert main(argv) == 0
    base = 5000 * trainer.SEED_STRIDE
    assert base > 2**32
    firsts = [s for s in seeds_before if (s - base) % trainer.SEGMENT_STRIDE == 0]
    assert firsts[:2] == [base, base + trainer.SEGMENT_STRIDE]
    assert seeds[0] == base + 2 * trainer.SEGMENT_STRIDE


def test_the_same_game_spelled_otherwise_resumes(tmp_path, monkeypatch):
    """A default spelled out (--history 8) is the same game: the resume goes on."""
    run = tmp_path / "run"
    argv = ["meyer", "--lives", "2", "--timesteps", "512", "--seed", "1", "--run-dir", str(run), *TINY]
    interrupted_after_first_period(monkeypatch, argv)
    assert main([*argv, "--history", "8"]) == 0
    with pytest.raises(ValueError, match="use another --run-dir"):
        main([*argv[:4], "768", *argv[5:], "--history", "4"])


def test_self_play_runs_do_not_depend_on_how_the_envs_are_vectorised(tmp_path):
    """Snapshot opponents are built per seat and env: with self-play in the pool, a DummyVecEnv run
    and a SubprocVecEnv run of one seed end with the same weights (a snapshot object shared by the
    envs of one process made them differ once the first snapshot joined the pool)."""
    from safetensors.numpy import load_file

    weights = []
    for kind in ("dummy", "subproc"):
        run = tmp_path / kind
        argv = ["meyer", "--timesteps", "768", "--seed", "3", "--run-dir", str(run), *TINY,
                "--set", "self_play_weight=0.5", "--set", f"vec_env={kind}"]  # fmt: skip
        assert main(argv) == 0
        assert len(json.loads((run / "resume" / "state.json").read_text())["snapshots"]) >= 2
        weights.append(load_file(str(run / "policy" / "policy.safetensors")))
    assert weights[0].keys() == weights[1].keys()
    assert all((weights[0][k] == weights[1][k]).all() for k in weights[0])
