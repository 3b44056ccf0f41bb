"""Tournament games on a Ray cluster (``dice-envs tournament ... --backend ray [--address ADDR]``).

The games of a tournament are independent and keyed (:mod:`evaluate.tournament`: dice, seats and
the agents' seeds are functions of the game's key), so where a game is played cannot change its
result: a Ray run stores exactly the games a local run stores, game for game. This module only
moves the work:

* **Workers are actors.** Each of ``workers`` Ray actors builds the engine and every entrant once
  (solver tables loaded, networks read) and then plays batches of games with
  :func:`evaluate.tournament.play_game`, the same function local workers call.
* **Checkpoints travel through the object store.** The driver reads the two files of every
  checkpoint SPEC once, puts them in Ray's object store with one ``ray.put``, and each actor writes
  them to a temporary directory of its own node and loads the agent from there. Nothing is read
  from the driver's disk by a worker, so the workers may run on other machines, and no file is
  re-read per game. (Registered agents, ``trained`` included, are built from the package, which
  every node of a cluster has installed.)
* **Results stream back to the driver**, batch by batch as they finish, and the driver alone
  writes them to the SQLite store (``on_records``): the store's guarantees are the local run's.
  A killed driver loses at most the batches in flight, which are not stored and so are played
  again by the next run; a game is never stored twice (the store's unique key).
* **Failures.** A batch whose task fails (an actor's process died, a node was lost, or the task
  raised) is sent again, to any actor, up to ``max_retries`` times; an actor that died is
  restarted by Ray (``max_restarts``). A batch that still fails is reported at the end with a
  :class:`RuntimeError` naming its games and the last error, after every other batch has been
  played and written: re-running the command plays only what is missing.

Without ``address`` a local Ray instance is started with ``num_cpus=workers`` and shut down at
the end; with one (``ray://host:10001``, ``host:6379`` or ``auto``) the driver joins that
cluster and ``workers`` defaults to its CPU count.

Ray is an optional dependency (the ``[ray]`` extra); :func:`require_ray` turns its absence into
a :class:`RayUnavailable` (a :class:`~dice_envs.extras.NotInstalled`: ``dice-envs`` prints it and
exits with status 1).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Sequence

from dice_envs import strict_json
from dice_envs.extras import NotInstalled
from evaluate.tournament import GameRecord, GameTask, Progress

#: What to install for ``--backend ray``.
INSTALL_HINT = "pip install 'dice-envs[ray]'"
#: Batches sent again after a failure before the failure is reported.
DEFAULT_MAX_RETRIES = 3
#: Seconds to wait for a TCP connection to ``--address`` before giving up (Ray itself retries for minutes).
CONNECT_TIMEOUT = 10.0
#: Batches kept in flight per actor: one playing, one queued, so an actor never waits for the driver.
IN_FLIGHT_PER_ACTOR = 2


class RayUnavailable(NotInstalled):
    """Ray (the ``[ray]`` extra) is not installed."""


def require_ray(what: str = "--backend ray"):
    """Import Ray, or raise :class:`RayUnavailable` saying that ``what`` needs the ``[ray]`` extra."""
    try:
        import ray
    except ImportError as exc:
        raise RayUnavailable(f"{what} needs Ray, which is not installed ({exc}): {INSTALL_HINT}") from None
    return ray


def checkpoint_payloads(game_name: str, specs: Sequence[str], labels: Sequence[str]) -> dict[str, dict]:
    """The checkpoint SPECs' files, read once: ``{label: {"name": dir name, "files": {file: bytes}}}``.

    Only SPECs that are checkpoint paths appear; registered agents are built from the package.
    """
    from agents.checkpoint import META_FILE, WEIGHTS_FILE, checkpoint_dir
    from agents.spec import parse_spec

    payloads: dict[str, dict] = {}
    for spec, label in zip(specs, labels):
        name, _ = parse_spec(game_name, spec)
        if not isinstance(name, os.PathLike):
            continue
        directory = checkpoint_dir(name)
        files = {}
        for file in (META_FILE, WEIGHTS_FILE):
            path = directory / file
            if not path.is_file():
                raise ValueError(f"checkpoint {str(directory)!r}: {file} is missing")
            files[file] = path.read_bytes()
        payloads[label] = {"name": directory.resolve().name or "checkpoint", "files": files}
    return payloads


def materialise(payloads: dict[str, dict], root: str) -> dict[str, str]:
    """Write shipped checkpoints under ``root``: ``{label: checkpoint directory}``.

    Each checkpoint gets a directory of its own (``root/<i>/<original name>``), so two checkpoints
    with the same directory name do not collide, and keeps its original name, which is what a
    checkpoint agent reports as its path.
    """
    paths = {}
    for i, (label, payload) in enumerate(sorted(payloads.items())):
        directory = os.path.join(root, str(i), payload["name"])
        os.makedirs(directory, exist_ok=True)
        for file, data in payload["files"].items():
            with open(os.path.join(directory, file), "wb") as handle:
                handle.write(data)
        paths[label] = directory
    return paths


class GameWorker:
    """The body of a Ray actor: one engine and every entrant, built once, then batches of games.

    Args:
        game_name, options: the game and its options (``num_players`` included).
        specs, labels: the entrants.
        payloads: :func:`checkpoint_payloads` (Ray resolves the driver's object reference).
    """

    def __init__(self, game_name: str, options: dict, specs: list, labels: list, payloads: dict):
        from evaluate.tournament import build_agents, build_game

        # One intra-op thread per worker, as local workers do: the actor owns one CPU.
        torch = sys.modules.get("torch")
        if torch is not None:
            torch.set_num_threads(1)
        root = tempfile.mkdtemp(prefix="dice-envs-ray-")
        try:
            paths = materialise(payloads, root)
            specs = [paths.get(label, spec) for spec, label in zip(specs, labels)]
            self.game = build_game(game_name, options)
            self.agents = build_agents(self.game, specs, labels)
        finally:
            # A checkpoint agent holds its weights in memory once built: the files can go now,
            # which leaves nothing behind when Ray kills the actor at the end.
            shutil.rmtree(root, ignore_errors=True)

    def play(self, tasks: list[GameTask]) -> tuple[list[GameRecord], BaseException | None]:
        """Play a batch of games (see :func:`evaluate.tournament.play_batch_remote`): the games
        finished, and the failure of an entrant that stopped the batch, if any (an illegal action
        or an exception in an agent's code: seeded, it would happen again on every retry, so the
        driver stops as a local run does). Only a lost actor is retried."""
        from evaluate.tournament import play_batch_remote

        return play_batch_remote(self.game, self.agents, tasks)

    def ping(self) -> int:
        """The actor's process id (the driver waits for it: the actor is built and ready)."""
        return os.getpid()


def batch_size(num_tasks: int, workers: int) -> int:
    """Games per Ray task: about 16 batches per worker, between 1 and 64 games.

    Large enough that a task's overhead (a few hundred microseconds) is small against its games,
    small enough that the store hears of finished games often and the load stays balanced.
    """
    return max(1, min(64, num_tasks // (workers * 16)))


def probe_address(address: str) -> None:
    """Refuse (``ValueError``) an ``--address`` HOST:PORT that takes no TCP connection within
    :data:`CONNECT_TIMEOUT` s: ``ray.init`` would retry for minutes with no message of its own."""
    target = address[len("ray://"):] if address.startswith("ray://") else address
    host, colon, port = target.rpartition(":")
    if not colon or not port.isdigit() or not host:
        return  # "auto", "local" and the like: Ray resolves them and fails fast itself
    host = host.strip("[]")
    try:
        with socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT) as connection:
            if _tls():  # a TLS cluster answers a plain preface with nothing it would say to Ray
                return
            answer = _http2_answer(connection)
    except OSError as exc:
        reason = "timed out" if isinstance(exc, TimeoutError) else (exc.strerror or str(exc) or type(exc).__name__)
        raise ValueError(f"cannot reach a Ray cluster at --address {address} ({reason} within {CONNECT_TIMEOUT:.0f} s): "
                         "is `ray start --head` running there, and is the port open?") from None
    if not (len(answer) == 9 and answer[3] == _SETTINGS):
        # Something else listens there (a web server, a database): ray.init would spend tens of
        # seconds and print pages of its own C++ client's warnings before it gave up.
        heard = f"it answered {answer!r}" if answer else "it sent nothing back"
        raise ValueError(f"--address {address} is not a Ray cluster: a Ray head (GCS, or the Ray Client server for "
                         f"ray://) speaks gRPC over HTTP/2, and {heard}; give the address `ray start --head` printed")


#: HTTP/2's client connection preface and an empty SETTINGS frame (RFC 9113, 3.4 and 6.5).
_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])
_SETTINGS = 4  # the frame type a server's own preface starts with


def _tls() -> bool:
    """Whether Ray speaks TLS here (``RAY_USE_TLS``, Ray's own switch): then only the TCP
    connection is probed, the plain HTTP/2 preface meaning nothing to such a server."""
    return os.environ.get("RAY_USE_TLS", "0").strip().lower() in ("1", "true", "yes")


def _http2_answer(connection: socket.socket) -> bytes:
    """The first 9 bytes (one frame header) a server sends back to HTTP/2's client preface, or
    fewer if it closes or stays silent for :data:`CONNECT_TIMEOUT` s. A gRPC server such as Ray's
    GCS answers with a SETTINGS frame header (type 4 in byte 3)."""
    connection.settimeout(CONNECT_TIMEOUT)
    connection.sendall(_PREFACE)
    answer = b""
    try:
        while len(answer) < 9:
            chunk = connection.recv(9 - len(answer))
            if not chunk:
                break
            answer += chunk
    except (TimeoutError, ConnectionResetError):
        pass
    return answer


def start_ray(address: str | None, workers: int | None):
    """Join the cluster at ``address``, or start a local instance with ``workers`` CPUs.

    Returns:
        ``(ray, workers, started)``: the module, the number of actors to run (the cluster's
        CPUs if ``workers`` is ``None``) and whether this call started Ray (then the caller shuts
        it down).
    """
    ray = require_ray()
    started = False
    if not ray.is_initialized():
        kwargs = dict(include_dashboard=False, logging_level="warning", log_to_driver=True)
        with _sigterm_kept():
            if address:
                join_ray(ray, address, **kwargs)
            else:
                # A small object store: results are a few kB per game and checkpoints are small, and
                # Ray's default (30% of memory) would reserve shared memory other programs need.
                ray.init(num_cpus=workers or os.cpu_count() or 1, object_store_memory=256 * 2**20, **kwargs)
        started = True
    cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
    if workers is None:
        workers = cpus
    elif address and workers > cpus:
        if started:
            ray.shutdown()
        # Each actor takes one CPU: those beyond the cluster's would wait for ever (the run hung).
        raise ValueError(f"--workers {workers}, but the Ray cluster at {address} has {cpus} CPU{'s' * (cpus != 1)}: "
                         f"give --workers {cpus} or fewer, or leave it out to use them all")
    return ray, int(workers), started


def join_ray(ray, address: str, **kwargs) -> None:
    """``ray.init(address=...)`` after :func:`probe_address`, a failure naming the token setting
    (:func:`auth_hint`): the tournaments' and the RLlib trainer's way to join a cluster."""
    probe_address(address)
    try:
        ray.init(address=address, **kwargs)
    except ConnectionError as exc:
        raise ConnectionError(f"{exc}{auth_hint()}") from None


@contextmanager
def _sigterm_kept() -> Iterator[None]:
    """Keep this process's own SIGTERM handler across ``ray.init``, which replaces it with one that
    calls ``sys.exit`` (measured with Ray 2.60): a tournament's handler (``sigterm_as_interrupt``) stops
    the run as Ctrl-C does and says so; without this, SIGTERM under ``--backend ray`` exited with 15 and
    no message. Only a handler someone installed is put back, in the main thread; the default is left
    to Ray."""
    main = threading.current_thread() is threading.main_thread()
    before = signal.getsignal(signal.SIGTERM) if main else None
    try:
        yield
    finally:
        if main and callable(before):
            signal.signal(signal.SIGTERM, before)


def auth_hint() -> str:
    """What to try when joining a cluster failed and this shell has not set Ray's token mode:
    clusters started with ``ray start`` use token authentication from Ray 2.59 on, and a driver
    sends its token only under ``RAY_AUTH_MODE=token`` (measured with Ray 2.60: the same
    ``ray.init`` fails without it and joins with it)."""
    if os.environ.get("RAY_AUTH_MODE"):
        return ""
    return ("; if the cluster uses token authentication (`ray start` turns it on from Ray 2.59), set "
            "RAY_AUTH_MODE=token in this shell (the token is read from RAY_AUTH_TOKEN or ~/.ray/auth_token)")


def play_tasks_ray(
    game_name: str,
    options: dict,
    specs: Sequence[str],
    labels: Sequence[str],
    tasks: list[GameTask],
    workers: int | None = None,
    on_records: Callable[[list[GameRecord]], None] | None = None,
    progress: Progress | None = None,
    address: str | None = None,
    max_retries: int = DEFAULT_MAX_RETRIES,
    size: int | None = None,
    worker_class: type = GameWorker,
) -> list[GameRecord]:
    """Play ``tasks`` on Ray actors; the same contract as :func:`evaluate.tournament.play_tasks`.

    Args:
        game_name, options, specs, labels: the tournament (``options`` with ``num_players``).
        tasks: the games to play.
        workers: actors (each takes one CPU); default all CPUs of the cluster.
        on_records: called on the driver with every batch of finished games, as they finish.
        progress: advanced by every finished batch.
        address: a Ray cluster to join; ``None`` starts a local instance of ``workers`` CPUs.
        max_retries: times a failed batch is sent again before it is reported.
        size: games per batch (default :func:`batch_size`).
        worker_class: the actors' class, :class:`GameWorker` or a subclass of it.

    Returns:
        The records, in the order of ``tasks``.

    Raises:
        RayUnavailable: Ray is not installed.
        dice_envs.cli.CommandFailed: (a ``RuntimeError``) batches that failed ``max_retries + 1`` times (every other game was played
            and passed to ``on_records`` first).
    """
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise ValueError(f"--workers must be a whole number >= 1, got {workers!r}")
    if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
        raise ValueError(f"max_retries must be a whole number >= 0, got {max_retries!r}")
    began = time.perf_counter()  # Ray's own start (a local instance: seconds) counts in the start-up
    ray, workers, started = start_ray(address, workers)
    if progress is not None:
        progress.workers = workers
    if not tasks:
        if started:
            ray.shutdown()
        return []
    try:
        return _play(
            ray, worker_class, game_name, options, specs, labels, tasks, workers, on_records, progress, max_retries,
            size, began,
        )  # fmt: skip
    finally:
        if started:
            ray.shutdown()


def _play(
    ray: Any,
    worker_class: type,
    game_name: str,
    options: dict,
    specs: Sequence[str],
    labels: Sequence[str],
    tasks: list[GameTask],
    workers: int,
    on_records: Callable[[list[GameRecord]], None] | None,
    progress: Progress | None,
    max_retries: int,
    size: int | None,
    began: float,
) -> list[GameRecord]:
    payloads = ray.put(checkpoint_payloads(game_name, specs, labels))  # read once, shipped to every node
    # Ray does not restart the actors itself (max_restarts=0): a dead one is replaced below by a new
    # actor, built from the same object reference, which this driver holds until the end.
    actor_class = ray.remote(num_cpus=1, max_restarts=0, max_task_retries=0)(worker_class)

    def new_actor():
        return actor_class.remote(game_name, dict(options), list(specs), list(labels), payloads)

    workers = min(workers, len(tasks))
    start = time.perf_counter()
    actors = [new_actor() for _ in range(workers)]
    try:
        ray.get([actor.ping.remote() for actor in actors])
    except ray.exceptions.RayError:
        pass  # an actor that cannot start fails its batches below, where it is retried and reported
    if progress is not None:
        # Starting Ray's workers and building the agents takes seconds; the bar's games per
        # second count from here, so that they say how fast games are played.
        if progress.enabled:
            now = time.perf_counter()
            print(f"Ray: {workers} worker{'s' * (workers != 1)} ready in {now - began:.1f} s (Ray {start - began:.1f} s, the workers "
                  f"{now - start:.1f} s)", file=sys.stderr, flush=True)  # fmt: skip
        progress.start = time.perf_counter()
    size = size or batch_size(len(tasks), workers)
    queue = [(i, tasks[i : i + size]) for i in range(0, len(tasks), size)]
    queue.reverse()  # pop() from the end sends the batches in schedule order
    attempts: dict[int, int] = {}
    failed: dict[int, tuple[list[GameTask], str]] = {}
    pending: dict = {}  # object ref -> (batch index, batch, actor index, actor)
    load = [0] * len(actors)
    done: dict[tuple, GameRecord] = {}

    def submit() -> None:
        while queue:
            a = min(range(len(actors)), key=load.__getitem__)
            if load[a] >= IN_FLIGHT_PER_ACTOR:
                return
            index, batch = queue.pop()
            pending[actors[a].play.remote(batch)] = (index, batch, a, actors[a])
            load[a] += 1

    broken: list[BaseException] = []  # an entrant's failure: nothing more is sent, the rest finish

    submit()
    while pending:
        ready, _ = ray.wait(list(pending), num_returns=1, timeout=1.0)
        for ref in ready:
            index, batch, a, actor = pending.pop(ref)
            try:
                records, error = ray.get(ref)
            except ray.exceptions.RayError as exc:
                from evaluate.tournament import AgentFailed

                cause = getattr(exc, "cause", None)
                if isinstance(cause, AgentFailed):
                    # An agent broke the rules: it would again on every retry. Stop sending, as
                    # the local pool does, and keep the games finished alongside.
                    broken.append(cause)
                    queue.clear()
                    if actors[a] is actor:
                        load[a] -= 1
                    continue
                if actors[a] is actor:
                    load[a] -= 1
                    if isinstance(exc, ray.exceptions.RayActorError):
                        # The actor's process (or its node) died: a new actor takes its place. Its
                        # other batches fail as well and come back here, to be sent again.
                        ray.kill(actor, no_restart=True)
                        actors[a], load[a] = new_actor(), 0
                attempts[index] = attempts.get(index, 0) + 1
                if attempts[index] <= max_retries and not broken:
                    queue.append((index, batch))  # sent again first, to the least loaded actor
                else:
                    failed[index] = (batch, _short(exc))
                continue
            if actors[a] is actor:
                load[a] -= 1
            for record in records:
                done[record.task.key] = record
            if records and on_records is not None:
                on_records(records)
            if progress is not None:
                progress.advance(len(records))
            if error is not None:
                broken.append(error)
                queue.clear()
        submit()
    for actor in actors:
        ray.kill(actor)
    if broken:
        raise broken[0]
    if failed:
        lost = [task for _, (batch, _) in sorted(failed.items()) for task in batch]
        first = ", ".join(str(t.key) for t in lost[:3]) + (" ..." if len(lost) > 3 else "")
        reasons = sorted({why for _, why in failed.values()})
        from dice_envs.cli import CommandFailed

        raise CommandFailed(
            f"{len(lost)} games failed on Ray after {max_retries} retries ({first}); every other game was "
            f"stored, so running the command again plays only these. Last errors: {'; '.join(reasons)}"
        )
    return [done[task.key] for task in tasks]


def _short(exc: BaseException) -> str:
    """The first line of a Ray error's message (its full text repeats the remote traceback)."""
    lines = [line for line in str(exc).splitlines() if line.strip()]
    return f"{type(exc).__name__}: {lines[-1] if lines else ''}"[:300]


# -- benchmark ----------------------------------------------------------------------------------
def bench(game_name: str, specs: Sequence[str], games: int, seed: int = 0, options: dict | None = None,
          workers: Sequence[int] = (1, 2), address: str | None = None) -> list[dict]:
    """Games per second of the same tournament's games: local processes and Ray actors, no store.

    Every run plays the same games (the tournament of ``specs`` with ``games`` deals per table);
    a local run with one worker is the plain single-process rate. Ray's figures are given twice:
    over the whole call (starting the actors and building their agents included) and over the
    playing alone (from the moment every actor is ready).

    Returns:
        One dict per run: ``backend``, ``workers``, ``games``, ``seconds``, ``games_per_second``
        and, for Ray, ``startup_seconds`` and ``playing_games_per_second``.
    """
    from evaluate.tournament import build_agents, build_game, make_labels, play_tasks, schedule

    options = dict(options or {})
    labels = make_labels(game_name, specs)
    num_players = int(options.pop("num_players", 2))
    full = {**options, "num_players": num_players}
    game = build_game(game_name, full)
    tasks = schedule(labels, num_players, games, seed)
    agents = build_agents(game, specs, labels)
    figures = []
    for w in workers:
        start = time.perf_counter()
        play_tasks(game_name, full, specs, labels, tasks, workers=w, game=game, agents=agents)
        seconds = time.perf_counter() - start
        figures.append({"backend": "local", "workers": w, "games": len(tasks), "seconds": seconds,
                        "games_per_second": len(tasks) / seconds})
        print(_bench_line(figures[-1]), file=sys.stderr, flush=True)
    ray, _, started = start_ray(address, max(workers))
    try:
        for w in workers:
            bar = Progress(len(tasks), "", enabled=False)
            start = time.perf_counter()
            play_tasks_ray(game_name, full, specs, labels, tasks, workers=w, progress=bar)
            end = time.perf_counter()
            figures.append({"backend": "ray", "workers": w, "games": len(tasks), "seconds": end - start,
                            "games_per_second": len(tasks) / (end - start), "startup_seconds": bar.start - start,
                            "playing_games_per_second": len(tasks) / (end - bar.start)})
            print(_bench_line(figures[-1]), file=sys.stderr, flush=True)
    finally:
        if started:
            ray.shutdown()
    return figures


def _bench_line(f: dict) -> str:
    line = f"{f['backend']:>5} x{f['workers']}: {f['games']} games in {f['seconds']:.1f} s, {f['games_per_second']:,.0f} games/s"
    if "startup_seconds" in f:
        line += f" ({f['startup_seconds']:.1f} s to start the actors; {f['playing_games_per_second']:,.0f} games/s playing)"
    return line


def main(argv: list[str] | None = None) -> int:
    """``python -m evaluate.ray_backend GAME --agents SPEC... --games N [--workers 1 2]``: the benchmark."""
    import argparse

    from dice_envs.options import parse_game_options

    parser = argparse.ArgumentParser(
        prog="python -m evaluate.ray_backend",
        description="Games per second of one tournament's games: local processes against Ray actors.",
    )
    parser.add_argument("game", choices=("meyer", "syvere", "tenthousand"))
    parser.add_argument("--agents", nargs="+", default=["random", "honest", "bluffer"], metavar="SPEC")
    parser.add_argument("--games", type=int, default=500, help="deals per table (default 500)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="worker counts to measure")
    parser.add_argument("--address", default=None, help="a Ray cluster to join (default a local instance)")
    args, rest = parser.parse_known_args(argv)
    options = parse_game_options(args.game, rest)
    if args.games < 1 or any(w < 1 for w in args.workers):
        raise ValueError("--games and --workers must be whole numbers >= 1")
    figures = bench(args.game, args.agents, args.games, args.seed, options, args.workers, args.address)
    print(strict_json.dumps(figures))
    return 0


if __name__ == "__main__":  # pragma: no cover
    from dice_envs.cli import run_guarded

    sys.exit(run_guarded(main, sys.argv[1:], prog="python -m evaluate.ray_backend"))
