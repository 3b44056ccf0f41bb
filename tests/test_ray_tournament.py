"""Tournaments on Ray (issue 11): same stored games as a local run, resume after SIGKILL, retries.

The tests marked ``ray`` start a local Ray instance with 2 CPUs (run them with ``-m ray``); the
missing-Ray test needs no Ray and runs by default.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]
COLUMNS = "seed, dice, table_key, deal, rotation, seats, returns, winners, scores, num_actions, log"


def rows(db) -> list[tuple]:
    """Every stored game, without its row id and time, in key order."""
    conn = sqlite3.connect(db)
    try:
        return conn.execute(f"SELECT {COLUMNS} FROM games ORDER BY seed, dice, table_key, deal, rotation").fetchall()
    finally:
        conn.close()


def meyer_checkpoint(path, seed: int) -> str:
    """A small Meyer policy with random weights, written in the checkpoint format."""
    from agents.checkpoint import save_checkpoint
    from dice_envs.games import meyer

    engine = meyer.Game(num_players=2)
    rng = np.random.default_rng(seed)
    size = len(engine.observation_low)
    layers = [(rng.normal(size=(8, size)), rng.normal(size=8))]
    action = (rng.normal(size=(engine.num_actions, 8)), rng.normal(size=engine.num_actions))
    return str(save_checkpoint(path, engine, layers, action))


def _env() -> dict:
    return {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "PYTHONPATH": str(REPO)}


# -- without Ray --------------------------------------------------------------------------------
def test_backend_ray_without_ray_names_the_extra(tmp_path):
    """``--backend ray`` where Ray cannot be imported: the extra to install, exit 1, no traceback."""
    script = textwrap.dedent(
        """
        import sys
        sys.modules["ray"] = None  # makes `import ray` raise ImportError, as if not installed
        from dice_envs.cli import main
        sys.exit(main(sys.argv[1:]))
        """
    )
    db = tmp_path / "results.sqlite"
    proc = subprocess.run(
        [sys.executable, "-c", script, "tournament", "meyer", "--agents", "random", "honest", "--games", "2",
         "--backend", "ray", "--db", str(db), "--quiet"],
        capture_output=True, text=True, cwd=tmp_path, env=_env(), timeout=120,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr  # an installation problem, not bad usage
    assert "pip install 'dice-envs[ray]'" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not db.exists()  # refused before anything was written


def test_address_without_backend_ray_is_refused(tmp_path):
    from evaluate.cli import tournament_main

    with pytest.raises(ValueError, match="--backend ray"):
        tournament_main(["meyer", "--agents", "random", "honest", "--games", "1", "--address", "auto", "--no-db"])


def test_checkpoint_payloads_round_trip(tmp_path):
    """Checkpoint SPECs are read into bytes once and written back to an identical directory."""
    from agents.checkpoint import read_checkpoint
    from evaluate.ray_backend import checkpoint_payloads, materialise

    path = meyer_checkpoint(tmp_path / "ckpt" / "mine", 1)
    payloads = checkpoint_payloads("meyer", ["random", path], ["random", "mine"])
    assert list(payloads) == ["mine"]  # registered agents are built from the package
    assert payloads["mine"]["name"] == "mine"
    written = materialise(payloads, str(tmp_path / "node"))
    assert Path(written["mine"]).name == "mine"
    for name in ("policy.json", "policy.safetensors"):
        assert (Path(written["mine"]) / name).read_bytes() == (Path(path) / name).read_bytes()
    meta, tensors = read_checkpoint(written["mine"])
    assert meta["game"] == "meyer" and "action.weight" in tensors


def test_batch_size():
    from evaluate.ray_backend import batch_size

    assert batch_size(10, 2) == 1
    assert batch_size(3200, 2) == 64
    assert batch_size(640, 2) == 20


# -- on a local Ray instance --------------------------------------------------------------------
@pytest.mark.ray
def test_ray_tournament_stores_the_local_games(ray_instance, tmp_path):
    """Same seed, same stored games, row for row, with a checkpoint entrant shipped to the workers."""
    from evaluate.tournament import run_tournament

    ckpt = meyer_checkpoint(tmp_path / "ckpts" / "netA", 7)
    specs = ["random", "honest", ckpt]
    local = run_tournament("meyer", specs, games=12, seed=5, db=str(tmp_path / "local.sqlite"), workers=1,
                           progress=False)  # fmt: skip
    remote = run_tournament("meyer", specs, games=12, seed=5, db=str(tmp_path / "ray.sqlite"), workers=2,
                            progress=False, backend="ray")  # fmt: skip
    assert remote.played_now == local.played_now == 3 * 12 * 2
    assert rows(tmp_path / "ray.sqlite") == rows(tmp_path / "local.sqlite")
    assert [r.returns for r in remote.records] == [r.returns for r in local.records]
    # The store knows the checkpoint by its files' fingerprint, whichever backend wrote it.
    for db in ("local.sqlite", "ray.sqlite"):
        conn = sqlite3.connect(tmp_path / db)
        assert conn.execute("SELECT fingerprint FROM agents WHERE label='netA'").fetchone()[0]
        conn.close()
    # A second Ray run on the same store plays nothing.
    again = run_tournament("meyer", specs, games=12, seed=5, db=str(tmp_path / "ray.sqlite"), workers=2,
                           progress=False, backend="ray")  # fmt: skip
    assert again.played_now == 0


class _DiesOnce:
    """Mixed into GameWorker: the process dies (as a lost node would) on its first batch, once."""

    marker = ""

    def play(self, tasks):
        if not os.path.exists(self.marker):
            Path(self.marker).write_text("died")
            os._exit(1)
        return super().play(tasks)


class _FailsTable:
    """Mixed into GameWorker: every batch holding a game of deal 0 raises."""

    def play(self, tasks):
        if any(t.deal == 0 for t in tasks):
            raise RuntimeError("this worker refuses deal 0")
        return super().play(tasks)


def _worker(mixin, **attrs):
    import ray

    from evaluate.ray_backend import GameWorker

    # The class travels to the workers by value: this test module is not importable there.
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    return type(f"Test{mixin.__name__}", (mixin, GameWorker), attrs)


@pytest.mark.ray
def test_a_dead_worker_is_replaced_and_its_games_played(ray_instance, tmp_path):
    from evaluate.ray_backend import play_tasks_ray
    from evaluate.tournament import build_agents, build_game, play_game, schedule

    labels = specs = ["random", "honest"]
    tasks = schedule(labels, 2, games=10, seed=2)
    stored = []
    records = play_tasks_ray("meyer", {"num_players": 2}, specs, labels, tasks, workers=2, on_records=stored.extend,
                             size=4, worker_class=_worker(_DiesOnce, marker=str(tmp_path / "died")))  # fmt: skip
    assert (tmp_path / "died").exists()  # a worker did die
    assert [r.task for r in records] == tasks
    assert sorted(r.task.key for r in stored) == sorted(t.key for t in tasks)  # each game handed over once
    game = build_game("meyer", {"num_players": 2})
    agents = build_agents(game, specs, labels)
    assert [r.log for r in records] == [play_game(game, agents, t).log for t in tasks]


@pytest.mark.ray
def test_a_failing_batch_is_retried_then_reported_after_the_others(ray_instance, tmp_path):
    from evaluate.ray_backend import play_tasks_ray
    from evaluate.tournament import schedule

    labels = specs = ["random", "honest"]
    tasks = schedule(labels, 2, games=6, seed=2)
    stored = []
    with pytest.raises(RuntimeError, match=r"2 games failed on Ray after 1 retries.*refuses deal 0"):
        play_tasks_ray("meyer", {"num_players": 2}, specs, labels, tasks, workers=2, on_records=stored.extend,
                       size=2, max_retries=1, worker_class=_worker(_FailsTable))  # fmt: skip
    # Every other game was played and handed to the store before the failure was reported.
    assert sorted(r.task.key for r in stored) == sorted(t.key for t in tasks if t.deal != 0)


@pytest.mark.ray
def test_killed_ray_driver_resumes_without_loss_or_duplicates(tmp_path):
    """SIGKILL the driver (a real subprocess) midway; the rerun completes the local run's table."""
    pytest.importorskip("ray")
    db = tmp_path / "results.sqlite"
    words = ["tournament", "meyer", "--agents", "random", "honest", "bluffer", "--games", "300", "--seed", "9",
             "--quiet", "--bootstrap", "0"]  # fmt: skip
    cmd = [sys.executable, "-m", "dice_envs.cli"]
    # The local Ray instance is started in its own session, so that killing it after the driver
    # ends exactly the processes this test started (by their process group id).
    proc = subprocess.Popen(
        [*cmd, *words, "--db", str(db), "--backend", "ray", "--workers", "2"],
        cwd=tmp_path, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
    )  # fmt: skip
    total = 3 * 300 * 2
    stored = 0
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and proc.poll() is None:
            if db.exists():
                try:
                    stored = sqlite3.connect(db).execute("SELECT COUNT(*) FROM games").fetchone()[0]
                except sqlite3.OperationalError:
                    stored = 0  # the store is being created
                if stored > 0:
                    break
            time.sleep(0.05)
        assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        # Ray's processes of the killed driver are in its session: end them by their group id.
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    midway = len(rows(db))
    assert 0 < midway < total, "the driver was not killed midway"
    rerun = subprocess.run([*cmd, *words, "--db", str(db), "--backend", "ray", "--workers", "2"], cwd=tmp_path,
                           env=_env(), capture_output=True, text=True, timeout=600)  # fmt: skip
    assert rerun.returncode == 0, rerun.stderr[-2000:]
    assert f"played {total - midway} new games" in rerun.stdout
    local = subprocess.run([*cmd, *words, "--db", str(tmp_path / "local.sqlite"), "--workers", "2"], cwd=tmp_path,
                           env=_env(), capture_output=True, text=True, timeout=600)  # fmt: skip
    assert local.returncode == 0, local.stderr[-2000:]
    resumed = rows(db)
    assert len(resumed) == total == len({r[:5] for r in resumed})
    assert resumed == rows(tmp_path / "local.sqlite")


class _BreaksRules:
    """Mixed into GameWorker: an entrant's illegal action, as play_game reports it."""

    def play(self, tasks):
        from evaluate.tournament import AgentFailed

        raise AgentFailed("agent 'honest' at seat 1 (table honest|random, deal 0, rotation 1) played an illegal action")


class _OneIllegalGame:
    """Mixed into GameWorker: its ``random`` entrant doubts at the start of the one game whose
    agent seed is ``target_seed`` (an illegal action, which the real ``play`` catches)."""

    target_seed = 0

    def __init__(self, *args):
        super().__init__(*args)
        inner, target = self.agents["random"], self.target_seed

        class Broken:
            def reset(self, seed=None):
                self.broken = seed == target
                inner.reset(seed=seed)

            def act(self, observation, action_mask):
                return 0 if self.broken else inner.act(observation, action_mask)

        self.agents["random"] = Broken()


@pytest.mark.ray
def test_an_illegal_action_keeps_every_game_finished_before_it(ray_instance):
    from evaluate.ray_backend import play_tasks_ray
    from evaluate.tournament import AgentFailed, keyed_seed, schedule

    labels = specs = ["random", "honest"]
    tasks = schedule(labels, 2, games=40, seed=2)
    failing = next(i for i, t in enumerate(tasks) if t.deal == 25 and t.rotation == 0)  # (agents are seeded per deal)
    task = tasks[failing]
    seed = keyed_seed("agent", task.seed, task.table_key, task.deal, "random")
    stored = []
    with pytest.raises(AgentFailed, match=r"deal 25, rotation 0\) played an illegal action"):
        play_tasks_ray("meyer", {"num_players": 2}, specs, labels, tasks, workers=2, on_records=stored.extend,
                       size=8, worker_class=_worker(_OneIllegalGame, target_seed=seed))  # fmt: skip
    keys = [r.task.key for r in stored]
    assert len(keys) == len(set(keys)) and task.key not in keys
    assert {t.key for t in tasks[:failing]} <= set(keys)  # its batch's first games too


@pytest.mark.ray
def test_an_illegal_action_stops_the_run_at_once_as_locally(ray_instance, tmp_path):
    # It used to be retried three times per batch and reported as games lost on Ray, to be rerun.
    from evaluate.ray_backend import play_tasks_ray
    from evaluate.tournament import AgentFailed, schedule

    labels = specs = ["random", "honest"]
    tasks = schedule(labels, 2, games=4, seed=2)
    with pytest.raises(AgentFailed, match="^agent 'honest' at seat 1 .* played an illegal action$"):
        play_tasks_ray("meyer", {"num_players": 2}, specs, labels, tasks, workers=1, size=2,
                       worker_class=_worker(_BreaksRules))  # fmt: skip


class _OneRaisingGame(_OneIllegalGame):
    """Mixed into GameWorker: its ``random`` entrant raises (a bug in the agent's code) at the start
    of the one game whose agent seed is ``target_seed``."""

    def __init__(self, *args):
        super().__init__(*args)
        broken = self.agents["random"]
        inner_act = type(broken).act

        def act(self, observation, action_mask):
            if self.broken:
                raise ZeroDivisionError("a bug in the agent's own code")
            return inner_act(self, observation, action_mask)

        type(broken).act = act


@pytest.mark.ray
def test_an_agents_exception_keeps_the_finished_games_and_stops_as_locally(ray_instance):
    """An exception in an agent's code is seeded, so it comes back on every retry: the run stops with
    the agent's own error and traceback, keeping every game finished before it (it used to lose its
    batch's finished games, replay the batch four times, and report the whole batch failed)."""
    from evaluate.ray_backend import play_tasks_ray
    from evaluate.tournament import keyed_seed, schedule

    labels = specs = ["random", "honest"]
    tasks = schedule(labels, 2, games=40, seed=2)
    failing = next(i for i, t in enumerate(tasks) if t.deal == 25 and t.rotation == 0)
    task = tasks[failing]
    seed = keyed_seed("agent", task.seed, task.table_key, task.deal, "random")
    stored = []
    with pytest.raises(ZeroDivisionError, match="a bug in the agent's own code") as caught:
        play_tasks_ray("meyer", {"num_players": 2}, specs, labels, tasks, workers=2, on_records=stored.extend,
                       size=8, worker_class=_worker(_OneRaisingGame, target_seed=seed))  # fmt: skip
    assert "in act" in str(caught.value.__cause__)  # the agent's frame, from the worker
    keys = [r.task.key for r in stored]
    assert len(keys) == len(set(keys)) and task.key not in keys
    assert {t.key for t in tasks[:failing]} <= set(keys)  # its batch's first games too


@pytest.mark.ray
def test_joining_a_cluster_uses_its_cpus_and_refuses_more(ray_instance):
    """With --address and no --workers, as many workers as the cluster has CPUs (2 here), not this
    machine's cores; more than it has are refused, where the extra actors waited for ever."""
    from evaluate.tournament import run_tournament

    joined = run_tournament("meyer", ["random", "honest"], games=40, seed=1, db=None, progress=False,
                            backend="ray", address="auto")  # fmt: skip
    assert joined.workers == 2 and joined.played_now == 80
    with pytest.raises(ValueError, match=r"^--workers 3, but the Ray cluster at auto has 2 CPUs: give --workers 2"):
        run_tournament("meyer", ["random", "honest"], games=40, seed=1, db=None, progress=False, backend="ray",
                       address="auto", workers=3)  # fmt: skip
