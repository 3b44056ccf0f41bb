"""The quality benchmark: a checkpoint's win rates against fixed opponents, with Wilson intervals.

Every deal is played once with the checkpoint in each seat (seats rotated, common dice), on seeds
from ``--eval-seed`` upwards (2 000 000 000 by default), far from the seeds training uses (below
10**9) and from the trainer's periodic evaluation (10**9 and up). Run it as::

    dice-envs train meyer --evaluate agents/trained/meyer --opponents honest doubter bluffer --deals 2000

(2 players: 2000 deals = 4000 games; Syvere with 4 players: 1000 deals = 4000 games.) ``--evaluate``
also takes a built-in or solver agent's SPEC, to measure a peer on the same deals::

    dice-envs train tenthousand --evaluate optimal --opponents heuristic --deals 2000
"""

from __future__ import annotations

import os
import time

from agents.checkpoint import load_agent
from dice_envs import strict_json
from train.config import RECIPES
from train.evaluation import play_against


def benchmark(game: str, options: dict | None, checkpoint: str, opponents: list[str] | None, deals: int,
              seed: int = 2_000_000_000, greedy: bool = True, progress: bool = True) -> list[dict]:
    """Play ``checkpoint`` against each opponent and print one line per opponent, then JSON.

    Args:
        game: the game's short name.
        options: the game's options; ``None`` for the checkpoint's own.
        checkpoint: the checkpoint path.
        opponents: SPECs; ``None`` for the game's recipe baselines.
        deals: deals per opponent (each played in every seat).
        seed: the first deal's seed.
        greedy: the checkpoint plays its argmax (else samples from its policy).
        progress: show a progress bar per opponent.
    """
    if deals < 1:
        raise ValueError(f"--deals must be >= 1, got {deals}")
    from agents.spec import parse_spec

    name, params = parse_spec(game, checkpoint)
    if not isinstance(name, os.PathLike):
        # A built-in or solver agent (``optimal``, ``heuristic``): the peer a checkpoint is compared
        # with, on the same deals; the game is the recipe's unless options are given.
        return _benchmark_spec(game, options, checkpoint, opponents, deals, seed, progress)
    greedy = params.get("greedy", greedy)  # ``RUN/policy:greedy=false`` as the SPEC says
    agent = load_agent(game, name, seed=seed, greedy=greedy)
    from agents.checkpoint import check_compatible

    if options:
        from dice_envs.registry import env_module

        engine = env_module(game).raw_env(**options).game
        check_compatible(agent.policy.meta, engine, agent.policy.path)
    options = dict(agent.policy.meta["options"]) if not options else options
    results = _play_each(game, options, agent, f"{game}: {checkpoint}", opponents, deals, seed, progress, {"greedy": greedy})
    print(strict_json.dumps({"checkpoint": checkpoint, "results": results}))
    return results


def _benchmark_spec(game, options, spec, opponents, deals, seed, progress) -> list[dict]:
    from agents import make_agent
    from dice_envs.registry import env_module

    options = dict(options or RECIPES[game]["options"])
    agent = make_agent(env_module(game).raw_env(**options).game, spec, seed=seed)
    results = _play_each(game, options, agent, f"{game}: {spec}", opponents, deals, seed, progress, {})
    print(strict_json.dumps({"agent": spec, "results": results}))
    return results


def _play_each(game, options, agent, label, opponents, deals, seed, progress, extra) -> list[dict]:
    """``agent`` against each opponent (the recipe's baselines if none): a line each, and the results."""
    from dice_envs.progress import optional_progress_bar

    results = []
    for opponent in list(opponents or RECIPES[game]["baselines"]):
        start = time.perf_counter()
        # no bar without tqdm: evaluating a built-in agent needs no extra
        bar = optional_progress_bar(progress, total=deals * agent.game.num_players, desc=f"vs {opponent}", unit="game")
        try:
            res = play_against(agent.act, game, options, opponent, deals, seed,
                               progress=None if bar is None else bar.update)  # fmt: skip
        finally:
            if bar is not None:
                bar.close()
        seconds = time.perf_counter() - start
        rate, low, high = res.interval()
        _, deal_low, deal_high, _ = res.deal_interval()
        print(f"{label} vs {opponent}: win rate {rate:.4f} [{low:.4f}, {high:.4f}] (95% Wilson) over "
              f"{res.games} games, [{deal_low:.4f}, {deal_high:.4f}] over the {len(res.deal_shares)} deals, "
              f"mean return {res.mean_return:+.4f}, {seconds:.0f} s", flush=True)
        results.append({**res.as_dict(), "seconds": seconds, "seed": seed, **extra})
    return results
