"""Win rates of a policy against fixed opponents, seats rotated, on common dice.

Used by the trainer's periodic evaluation and by :mod:`train.benchmark`. A *deal* is one seed of
the dice; every deal is played once with the learner in each seat (``num_players`` games), against
the same opponent in every other seat, so seat effects cancel and the seatings of a deal meet the
same dice for as long as their games agree. The win share of a game is C-3's: 1 for a win, 1/k
for a k-way shared win (a complete tie of n players gives 1/n), 0 for a loss.

The interval quoted is Wilson's over the games (what issue 9's targets are stated in); as the
seatings of a deal share its dice, they are not independent games, so a result also carries the
interval over the deals (:func:`evaluate.stats.deal_clustered_share`, as ``match`` and
``tournament`` give): measured on the shipped checkpoints, 1.04 times Wilson's width in 10 000
and 0.88 times in Meyer (outside review 8).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from train.view import SingleAgentView


def win_share(learner_return: float, num_players: int) -> float:
    """The learner's win share from its C-3 return (winners share +1: a k-way winner gets 1/k)."""
    if learner_return > 0:
        return float(learner_return)  # exactly 1/k for one of k winners
    if learner_return == 0:
        return 1.0 / num_players  # everyone won (C-3's complete tie)
    return 0.0


def wilson(share_sum: float, n: int) -> tuple[float, float, float]:
    """Wilson score interval of a win share (95%): ``evaluate.stats.wilson``."""
    from evaluate.stats import wilson as _wilson

    return _wilson(share_sum, n)


@dataclass
class Result:
    """Win share of the learner against one opponent."""

    opponent: str
    games: int
    share_sum: float
    mean_return: float
    #: The learner's win shares summed over each deal's games (one entry a deal; each deal has the
    #: same number of games, one per seat).
    deal_shares: list[float] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.share_sum / self.games

    def interval(self) -> tuple[float, float, float]:
        """``(rate, low, high)``: the Wilson score interval over the games."""
        return wilson(self.share_sum, self.games)

    def deal_interval(self) -> tuple[float, float, float, float]:
        """``(rate, low, high, effective_games)``: the 95% interval over the deals (the deals are
        independent, a deal's seatings are not), or Wilson's over the deals where they cannot give
        one (fewer than 30 deals, a share of 0 or 1, every deal alike)."""
        # The head-to-head matrix's interval over deals (common dice), fallback included.
        from evaluate.ratings import _pair_interval

        if not self.deal_shares:
            return (*self.interval(), float(self.games))
        per = self.games / len(self.deal_shares)
        share, low, high, effective, _ = _pair_interval(self.deal_shares, [per] * len(self.deal_shares), True)
        return share, low, high, effective

    def as_dict(self) -> dict:
        rate, low, high = self.interval()
        _, deal_low, deal_high, effective = self.deal_interval()
        return {"opponent": self.opponent, "games": self.games, "win_rate": rate, "low": low, "high": high,
                "deals": len(self.deal_shares), "deal_low": deal_low, "deal_high": deal_high,
                "effective_games": effective, "mean_return": self.mean_return}


def play_against(
    act: Callable[[np.ndarray, np.ndarray], int],
    game: str,
    options: dict,
    opponent: Any,
    deals: int,
    seed: int,
    progress: Callable[[int], None] | None = None,
) -> Result:
    """Play ``deals`` deals, each in every seat of the learner, against ``opponent`` in the other seats.

    Args:
        act: the learner: ``act(observation, action_mask) -> action``.
        game: the game's short name.
        options: the game's options.
        opponent: a SPEC string, checkpoint path or agent object.
        deals: number of deals (``deals * num_players`` games).
        seed: the first deal's seed; deal ``d`` uses ``seed + d``.
        progress: called with the number of games after each game.
    """
    env = SingleAgentView(game, opponents=[opponent], **options)
    n = env.num_players
    others = [0] * n
    share = 0.0
    total = 0.0
    games = 0
    name = str(opponent if isinstance(opponent, str) else type(opponent).__name__)
    deal_shares = []
    for d in range(deals):
        in_deal = 0.0
        for seat in range(n):
            obs, info = env.reset(seed=seed + d, options={"learner_seat": seat, "opponents": others})
            while True:
                # A game over before the learner's turn is counted too (one formal step; see the view).
                action = act(obs, env.action_masks()) if info["decision"] else 0
                obs, _, terminated, truncated, info = env.step(action)
                if info.get("illegal_action"):  # counted as a loss by the view; here a broken policy
                    raise ValueError(
                        f"the evaluated agent played an illegal action ({action!r}) in {game} against {name}, "
                        f"seat {seat}, deal seed {seed + d}: an agent must pick from the action mask"
                    )
                if terminated or truncated:
                    break
            ret = info["learner_return"]
            in_deal += win_share(ret, n)
            total += ret
            games += 1
            if progress is not None:
                progress(1)
        share += in_deal
        deal_shares.append(in_deal)
    return Result(name, games, share, total / games, deal_shares)
