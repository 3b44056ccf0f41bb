"""Kickstarting: fit the network to a teacher agent's moves before PPO takes over.

Plain PPO learns 10 000 slowly: each of its 308 actions is a set of dice to keep, and which set is
worth keeping has to be found from the game's result alone, many decisions later. A run that first
imitates a teacher (here the exact one-turn solver, ``optimal``, which builds in seconds) starts PPO
from a player of the teacher's strength, and PPO's self-play then works on what the teacher cannot
know (it maximises a turn's points, not the chance of winning the game). This is behaviour cloning
as a warm start, the simplest form of kickstarting (Schmitt et al. 2018, "Kickstarting deep
reinforcement learning", arXiv:1803.03835).

The phase, run once at the start of a run (:func:`kickstart`):

1. The teacher plays ``teacher_states`` learner decisions in the training view (the same opponents
   and seats as training, seeds of their own). Each decision keeps the observation, the mask, the
   teacher's :meth:`action_probabilities` and the learner's return from that decision to the end of
   the game (shaping included, so it is the value PPO's critic will be asked for).
2. The observation statistics of ``VecNormalize`` are updated with these observations.
3. ``teacher_epochs`` passes of Adam over them: cross-entropy of the masked policy to the teacher's
   distribution, plus ``vf_coef`` times the squared error of the value head to the return.

It uses only the SB3 policy's public methods (``get_distribution``, ``predict_values``).
"""

from __future__ import annotations

import time

import numpy as np

from agents.base import sample_action
from dice_envs.dice import sub_seed
from train.view import SingleAgentView, resolve_agent


def collect(args, n_states: int, seed: int) -> dict[str, np.ndarray]:
    """Play the teacher in the learner's seat for at least ``n_states`` decisions of whole games.

    Returns:
        ``obs`` (raw observations), ``masks`` (bool), ``targets`` (the teacher's probabilities),
        ``returns`` (the learner's return from each decision to the end of its game) and
        ``episodes`` (how many games were played).
    """
    view = SingleAgentView(args.game, opponents=list(args.baselines), learner_seat=args.learner_seat,
                           shaping=args.shaping, **args.options)  # fmt: skip
    # The teacher's generator is not the view's (a stochastic teacher would follow the dice).
    teacher = resolve_agent(args.game, view.engine, args.teacher, seed=sub_seed(seed, 0))
    obs_list: list[np.ndarray] = []
    mask_list: list[np.ndarray] = []
    target_list: list[np.ndarray] = []
    return_list: list[float] = []
    episodes = 0

    def new_game(seed_=None):
        """The view's next game, the teacher reset for it and told its seat."""
        obs_, info_ = view.reset(seed=seed_)  # without a seed the view's generator goes on
        teacher.reset(seed=sub_seed(seed, episodes))
        if hasattr(teacher, "set_seat"):
            teacher.set_seat(view.seat)
        return obs_, info_

    obs, info = new_game(seed)
    rewards: list[float] = []
    while len(return_list) < n_states:  # whole games only
        if not info["decision"]:  # a game over before the learner's turn: nothing to imitate
            view.step(0)
            obs, info = new_game()
            continue
        mask = view.action_masks()
        probs = np.asarray(teacher.action_probabilities(obs, mask.astype(np.int8)))
        # The protocol's act(): a draw from these probabilities with the agent's generator (for a
        # deterministic teacher, its one action), without asking the agent twice.
        action = sample_action(teacher.rng, probs)
        obs_list.append(obs)
        mask_list.append(mask)
        target_list.append(probs.astype(np.float32))
        obs, reward, terminated, truncated, info = view.step(action)
        rewards.append(float(reward))
        if terminated or truncated:
            # Undiscounted return to go: gamma is 1 in every recipe that uses a teacher.
            return_list.extend(np.cumsum(rewards[::-1])[::-1].tolist())
            rewards = []
            episodes += 1
            obs, info = new_game()
    return {
        "obs": np.asarray(obs_list, dtype=np.float32),
        "masks": np.asarray(mask_list, dtype=bool),
        "targets": np.asarray(target_list, dtype=np.float32),
        "returns": np.asarray(return_list, dtype=np.float32),
        "episodes": np.asarray(episodes),
    }


def fit(model, venv, data: dict[str, np.ndarray], args, log=None) -> dict[str, float]:
    """Fit ``model.policy`` (policy and value heads) to the teacher's data; return the last epoch's figures.

    Args:
        venv: the run's ``VecNormalize`` (its statistics are updated with the data's observations).
        log: called with ``(epoch, figures)`` after every epoch, if given.
    """
    import torch

    if args.normalize_obs:
        venv.obs_rms.update(data["obs"])
        obs = venv.normalize_obs(data["obs"])
    else:
        obs = data["obs"]
    policy = model.policy
    policy.set_training_mode(True)
    optimizer = torch.optim.Adam(policy.parameters(), lr=args.teacher_lr)
    obs_t = torch.as_tensor(obs, dtype=torch.float32)
    targets_t = torch.as_tensor(data["targets"])
    returns_t = torch.as_tensor(data["returns"])
    masks = data["masks"]
    n = len(obs)
    rng = np.random.default_rng(args.seed)
    figures: dict[str, float] = {}
    for epoch in range(args.teacher_epochs):
        order = rng.permutation(n)
        sums = {"cross_entropy": 0.0, "value_loss": 0.0, "agreement": 0.0}
        for start in range(0, n, args.batch_size):
            idx = order[start : start + args.batch_size]
            o = obs_t[idx]
            dist = policy.get_distribution(o, action_masks=masks[idx])
            log_probs = dist.distribution.logits  # normalised over the legal actions
            target = targets_t[idx]
            ce = -(target * log_probs).sum(dim=1).mean()
            values = policy.predict_values(o).flatten()
            value_loss = torch.nn.functional.mse_loss(values, returns_t[idx])
            loss = ce + args.vf_coef * value_loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), model.max_grad_norm)
            optimizer.step()
            k = len(idx)
            sums["cross_entropy"] += float(ce.detach()) * k
            sums["value_loss"] += float(value_loss.detach()) * k
            agree = (log_probs.argmax(dim=1) == target.argmax(dim=1)).float().sum()
            sums["agreement"] += float(agree)
        figures = {key: value / n for key, value in sums.items()}
        if log is not None:
            log(epoch, figures)
    policy.set_training_mode(False)
    return figures


def kickstart(model, venv, args, log=None) -> dict:
    """Collect the teacher's decisions and fit the model to them; return what was done, for the summary."""
    start = time.perf_counter()
    data = collect(args, args.teacher_states, seed=args.seed * 7919 + 123_456_789)
    collected = time.perf_counter()
    figures = fit(model, venv, data, args, log=log)
    return {
        "teacher": args.teacher,
        "states": int(len(data["obs"])),
        "games": int(data["episodes"]),
        "collect_seconds": collected - start,
        "fit_seconds": time.perf_counter() - collected,
        **figures,
    }
