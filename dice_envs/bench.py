"""Steps per second of random legal play, for every registered env and two PettingZoo peers.

Every env is made through ``pettingzoo.make`` (so with its standard wrappers) and played by the
same loop: ``last()``, a uniformly random legal action from the mask, ``step()``; steps are
decisions (the end-of-game ``step(None)`` calls are timed, not counted). PettingZoo's
``tictactoe_v3`` and ``connect_four_v3`` run in the same process, interleaved with ours, and each
line reports its ratio to tictactoe, so that the figures compare across machines and loads. A
benchmark, not a test.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
import pettingzoo

import dice_envs  # noqa: F401  (registers the envs)
from dice_envs.dice import sub_seed
from dice_envs.extras import NotInstalled
from dice_envs.registry import ENVS

PEERS = ("classic/tictactoe-v3", "classic/connect_four-v3")


def steps_per_second(env, steps: int, seed: int = 0) -> float:
    """Play random legal moves for at least ``steps`` steps (whole games); return steps/s.

    A step is a decision: the ``step(None)`` calls that step finished agents out at the end of a
    game take time but are not counted (they would favour short games and many players).
    """
    # Not the env's seed: the moves would follow the dice drawn from the same stream.
    rng = np.random.default_rng(sub_seed(seed, 1))
    uniforms = rng.random(4096)
    done_steps = 0
    env.reset(seed=seed)
    start = time.perf_counter()
    while done_steps < steps:
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)  # stepping a finished agent out: timed, but not a step of play
                continue
            legal = obs["action_mask"].nonzero()[0]
            env.step(int(legal[int(uniforms[done_steps % 4096] * len(legal))]))
            done_steps += 1
        env.reset()
    return done_steps / (time.perf_counter() - start)


def run(steps: int = 50_000, rounds: int = 5, configs=None, write=print) -> list[tuple[str, float, float]]:
    """Benchmark every env (or the given ``[(label, env_id, kwargs)]``) beside the peers.

    The envs take turns: ``rounds`` rounds, each playing ``steps / rounds`` steps of every env
    in the same order, so that a change in the machine's load hits them all alike. Each line
    reports the median steps/s over the rounds and the median of the per-round ratios to
    tictactoe_v3.

    Returns:
        ``[(label, median steps/s, median ratio to tictactoe), ...]``, tictactoe first.
    """
    if rounds < 1 or steps < rounds:
        raise ValueError(f"bench needs rounds >= 1 and steps >= rounds; got steps={steps}, rounds={rounds}")
    try:
        import pygame  # noqa: F401  (PettingZoo's classic envs need it)
    except ImportError:
        raise NotInstalled(
            "the bench compares with PettingZoo's tictactoe_v3, which needs pygame-ce: "
            "pip install 'dice-envs[dev]'"
        ) from None
    if configs is None:
        configs = [(env_id, env_id, {}) for env_id in ENVS]
        configs += [("dice/syvere-v0 (8 players)", "dice/syvere-v0", {"num_players": 8})]
    configs = [(peer, peer, {}) for peer in PEERS] + list(configs)
    per_round = max(1, steps // rounds)
    rates: dict[str, list[float]] = {label: [] for label, _, _ in configs}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pettingzoo's notices must not end up in the table
        envs = {label: pettingzoo.make("aec", env_id, **kwargs) for label, env_id, kwargs in configs}
        for r in range(rounds):
            for label, _, _ in configs:
                rates[label].append(steps_per_second(envs[label], per_round, seed=r))
    base = rates[configs[0][0]]
    results = []
    write(f"{'env':<34} {'steps/s':>10} {'x tictactoe':>12}   (median of {rounds} interleaved rounds)")
    for label, _, _ in configs:
        rate = float(np.median(rates[label]))
        ratio = float(np.median([a / b for a, b in zip(rates[label], base)]))
        results.append((label, rate, ratio))
        write(f"{label:<34} {rate:>10,.0f} {ratio:>12.2f}")
    return results
