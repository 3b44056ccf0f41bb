"""Agents for Meyer, for research on bluffing: honest, bluffer and a Bayesian doubter.

All three decide from the observation and the action mask only, decoded with the layout that
the engine publishes (``game.obs_slices``, documented in :mod:`dice_envs.meyer_v0`); the engine
itself (its ranking and options) is public knowledge of the rules. Each has two halves:

* *claiming* (after their own roll): the honest agent claims its dice when they meet the claim to
  beat, otherwise the lowest legal claim; the bluffer does the same but, when its dice meet the
  claim, lies with probability ``lie_probability`` by claiming a legal value above its dice,
  uniformly at random. With ``blind_reroll`` on, all three use the blind reroll when their dice do
  not meet the claim to beat (a chance of a true claim instead of a certain lie), unless
  ``reroll=False``; after it they claim the lowest legal value.
* *answering* a claim: the honest agent and the bluffer doubt when a fresh roll meets the claim
  with probability below ``doubt_below`` (the plain dice odds); the Bayesian doubter doubts when
  doubting risks fewer lives than believing (see :class:`BayesianDoubter`). Every agent doubts
  when believing is not allowed.

Policies: only the bluffer randomises (its lies); :meth:`MeyerAgent.exact_action_probabilities`
gives every agent's policy as exact :class:`fractions.Fraction` values, and
:meth:`MeyerAgent.action_probabilities` the same as float64. ``act`` answers and claims without
randomness when the policy is one-hot, and otherwise draws from ``action_probabilities``.

Probabilities are exact :class:`fractions.Fraction` values.
"""

from fractions import Fraction

import numpy as np

from agents.base import Agent, legal_of, one_hot
from dice_envs.games import meyer


def _fraction(name: str, value, low: Fraction = Fraction(0), high: Fraction = Fraction(1)) -> Fraction:
    """A probability-like parameter as an exact Fraction within ``low..high``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, Fraction, np.floating, np.integer)):
        raise ValueError(f"{name} must be a number in {low}..{high}, got {value!r}")
    if isinstance(value, (float, np.floating)) and not np.isfinite(value):
        raise ValueError(f"{name} must be a number in {low}..{high}, got {value!r}")
    # numpy scalars are float / numbers.Rational at run time; the stubs of Fraction do not say so.
    frac = Fraction(value).limit_denominator(10**9) if isinstance(value, (float, np.floating)) else Fraction(value)  # type: ignore[arg-type]
    if not low <= frac <= high:
        # A SPEC's numbers arrive as Fractions: shown as written (2, 3/2), not as Fraction(2, 1).
        raise ValueError(f"{name} must be in {low}..{high}, got {value if isinstance(value, Fraction) else repr(value)}")
    return frac


#: Posterior tables shared by every BayesianDoubter: (ranking, claim rule, lie prior, claim to
#: beat) -> {claim: q}.
_POSTERIORS: dict[tuple, dict[int, Fraction]] = {}
#: Believe-loss tables shared by every BayesianDoubter, keyed by what they depend on.
_BELIEVE_LOSSES: dict[tuple, dict[int, tuple[Fraction, ...]]] = {}


class MeyerAgent(Agent):
    """Shared decoding and the honest claiming rule; subclasses choose how to answer and lie.

    Args:
        game: a :class:`dice_envs.games.meyer.Game`.
        seed: seed of the agent's generator.
        reroll: use the blind reroll (when allowed) if the own dice do not meet the claim to beat.
    """

    name = "meyer"
    game: meyer.Game

    def __init__(self, game: meyer.Game, seed: int | None = None, reroll: bool = True):
        if getattr(game, "name", None) != "meyer":
            raise ValueError(f"{type(self).__name__} plays meyer, not {getattr(game, 'name', game)!r}")
        super().__init__(game, seed)
        if not isinstance(reroll, (bool, np.bool_)):
            raise ValueError(f"reroll must be True or False, got {reroll!r}")
        self.reroll = bool(reroll)
        self._at = {name: s.start for name, s in game.obs_slices.items()}
        self._in_game = game.obs_slices["in_game"]
        self._claim_cache: dict = {}

    # -- decoding -------------------------------------------------------------------------
    def _claim_from_rank(self, rank: float) -> int:
        """Claim index of an observation rank (1..21), -1 for 0."""
        r = int(rank)
        return self.game.claim_of_rank[r - 1] if r > 0 else -1

    def claim_to_beat(self, observation: np.ndarray) -> int:
        """The claim to beat (claim index), -1 at a round start."""
        return self._claim_from_rank(observation[self._at["beat_rank"]])

    def own_dice(self, observation: np.ndarray) -> int:
        """The claim index of this player's dice under the cup, -1 if they have not seen any."""
        if not observation[self._at["own_known"]]:
            return -1
        return self._claim_from_rank(observation[self._at["own_rank"]])

    def previous_claim(self, observation: np.ndarray) -> int | None:
        """The claim that the claim to beat had to beat: -1 if it opened the round, ``None`` if
        the observation's history window (``history`` < 2) does not tell."""
        if self.game.history < 2:
            return None
        at = self._at.get("history_1_present")
        if not observation[at]:
            return -1
        return self._claim_from_rank(observation[self._at["history_1_rank"]])

    def claim_was_blind(self, observation: np.ndarray) -> bool:
        """Whether the claim to beat was made after a blind reroll."""
        return bool(observation[self._at["beat_blind"]])

    def players_in(self, observation: np.ndarray) -> int:
        """How many players still have lives."""
        return int(observation[self._in_game].sum())

    # -- the policy -----------------------------------------------------------------------------
    def exact_action_probabilities(self, observation: np.ndarray, action_mask: np.ndarray) -> dict[int, Fraction]:
        """The policy as exact probabilities: ``{action id: Fraction}`` over the actions it may
        take (every other action has probability 0); they sum to 1."""
        self.check_mask(action_mask)
        if action_mask[meyer.DOUBT]:  # answering a claim
            if not action_mask[meyer.BELIEVE] or self.doubts(observation):
                return {meyer.DOUBT: Fraction(1)}
            return {meyer.BELIEVE: Fraction(1)}
        own = self.own_dice(observation)
        if self._rerolls(own, action_mask):
            return {meyer.REROLL: Fraction(1)}
        return dict(self._claim_policy(own, action_mask)[0])

    def action_probabilities(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        self.check_mask(action_mask)
        if action_mask[meyer.DOUBT] or self._rerolls(self.own_dice(observation), action_mask):
            return one_hot(self.game.num_actions, self.act(observation, action_mask))
        return self._claim_policy(self.own_dice(observation), action_mask)[1].copy()

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        # The same decisions as exact_action_probabilities; a claim with more than one possible
        # value is drawn from the cached distribution exactly as agents.base.sample_action would
        # draw it from action_probabilities (same support, same cumulative sums, one uniform).
        if not isinstance(action_mask, np.ndarray):
            action_mask = np.asarray(action_mask)
        if action_mask[meyer.DOUBT]:
            if not action_mask[meyer.BELIEVE] or self.doubts(observation):
                return meyer.DOUBT
            return meyer.BELIEVE
        own = self.own_dice(observation)
        if self._rerolls(own, action_mask):
            return meyer.REROLL
        _, _, support, cdf = self._claim_policy(own, action_mask)
        if len(support) == 1:
            return support[0]
        i = int(np.searchsorted(cdf, self.rng.random() * cdf[-1], side="right"))
        return support[min(i, len(support) - 1)]

    def _reroll_repr(self) -> str:
        """``, reroll=False`` when the blind reroll is turned off (the default is not shown)."""
        return "" if self.reroll else ", reroll=False"

    def _rerolls(self, own: int, action_mask: np.ndarray) -> bool:
        """Whether to make the blind reroll: allowed, wanted, and the own dice not a legal claim."""
        return bool(
            action_mask[meyer.REROLL] and self.reroll and (own < 0 or not action_mask[meyer.FIRST_CLAIM + own])
        )

    def _claim_policy(self, own: int, action_mask: np.ndarray):
        """``(exact {action: Fraction}, float64 vector, support actions, cumulative sums)`` of the
        claim made with these dice under this mask; cached, since a game has few of them."""
        key = (own, action_mask.tobytes())
        entry = self._claim_cache.get(key)
        if entry is None:
            legal = legal_of(action_mask, f"{type(self).__name__}.act")
            claims = [int(a) - meyer.FIRST_CLAIM for a in legal if a >= meyer.FIRST_CLAIM]
            if not claims:
                raise ValueError(f"{type(self).__name__}: the mask allows neither an answer nor a claim")
            exact = {meyer.FIRST_CLAIM + c: p for c, p in sorted(self.claim_probabilities(own, claims).items()) if p}
            vector = np.zeros(self.game.num_actions, dtype=np.float64)
            for action, p in exact.items():
                vector[action] = p
            support = list(exact)
            entry = self._claim_cache[key] = (exact, vector, support, np.cumsum(vector[support]))
        return entry

    def lowest(self, claims: list[int]) -> int:
        """The lowest-ranked of these claims."""
        return min(claims, key=self.game.rank.__getitem__)

    def claim_probabilities(self, own: int, claims: list[int]) -> dict[int, Fraction]:
        """Honest: the own dice if they are a legal claim, else the lowest legal claim.

        Args:
            own: the claim index of the own dice (-1 if unseen, after a blind reroll).
            claims: the legal claim indices.

        Returns:
            ``{claim index: probability}`` over the claims it may make.
        """
        return {own if own in claims else self.lowest(claims): Fraction(1)}

    def doubts(self, observation: np.ndarray) -> bool:
        """Whether to doubt the claim to beat (believing being allowed)."""
        raise NotImplementedError


class HonestAgent(MeyerAgent):
    """Claims the truth when it meets the claim to beat, otherwise the lowest legal claim.

    Deterministic.

    Args:
        doubt_below: doubt a claim that a fresh roll meets with probability below this (the
            plain dice odds, e.g. 1/2 doubts ``63`` and above: 16/36 < 1/2); 0..2, default 1/2.
        reroll: see :class:`MeyerAgent`.
    """

    name = "honest"

    def __init__(
        self,
        game: meyer.Game,
        seed: int | None = None,
        doubt_below: Fraction = Fraction(1, 2),
        reroll: bool = True,
    ):
        super().__init__(game, seed, reroll=reroll)
        self.doubt_below = _fraction("doubt_below", doubt_below, high=Fraction(2))

    def doubts(self, observation: np.ndarray) -> bool:
        return self.game.probability_at_least[self.claim_to_beat(observation)] < self.doubt_below

    def __repr__(self) -> str:
        return f"{type(self).__name__}(doubt_below={self.doubt_below}{self._reroll_repr()})"


class BlufferAgent(HonestAgent):
    """Honest, except that with probability ``lie_probability`` it lies when it need not.

    When its dice meet the claim to beat it claims, with probability ``lie_probability``, a legal
    value ranked above its dice, uniformly at random (its own dice if there is none); otherwise
    its dice. When they do not, it claims the lowest legal value (a forced lie). Its policy at
    such a claim is exactly ``1 - lie_probability`` on its dice and ``lie_probability / k`` on
    each of the k legal values above them.

    Args:
        lie_probability: 0..1; default 1/4.
        doubt_below, reroll: as for :class:`HonestAgent`.
    """

    name = "bluffer"

    def __init__(
        self,
        game: meyer.Game,
        seed: int | None = None,
        lie_probability: Fraction = Fraction(1, 4),
        doubt_below: Fraction = Fraction(1, 2),
        reroll: bool = True,
    ):
        super().__init__(game, seed, doubt_below=doubt_below, reroll=reroll)
        self.lie_probability = _fraction("lie_probability", lie_probability)

    def claim_probabilities(self, own: int, claims: list[int]) -> dict[int, Fraction]:
        if own not in claims:
            return {self.lowest(claims): Fraction(1)}
        rank = self.game.rank
        above = [c for c in claims if rank[c] > rank[own]]
        lie = self.lie_probability
        if not above or lie == 0:
            return {own: Fraction(1)}
        distribution = {c: lie / len(above) for c in above}
        if lie < 1:
            distribution[own] = 1 - lie
        return distribution

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(lie_probability={self.lie_probability}, doubt_below={self.doubt_below}"
            f"{self._reroll_repr()})"
        )


class BayesianDoubter(MeyerAgent):
    """Doubts when doubting risks fewer lives than believing, both computed exactly.

    **The claimer model.** The posterior probability that a claim c is true comes from the exact
    dice odds, the claim to beat b and a model of the claimer: the claimer rolled dice D (two fair
    dice) that had to meet b. If D meets b, they claim D with probability ``1 - lie_prior`` and
    otherwise a legal value above D, uniformly (D itself if none is above); if D does not meet b,
    they claim the lowest legal value. So::

        q(c, b) = sum over D ranking >= c of P(D) P(c | D, b)  /  sum over all D of P(D) P(c | D, b)

    This is exactly the behaviour of :class:`BlufferAgent` with ``lie_probability = lie_prior``
    (of :class:`HonestAgent` with ``lie_prior = 0``). Two cases use the plain odds P(D ranks >= c)
    instead: a claim made after a blind reroll (the claimer did not know D), and an observation
    whose ``history`` window is shorter than 2 (b is not observed). A claim no D could produce
    under the model is treated as true with the plain odds too.

    **The rule** (``rule="loss"``, the default). Doubting claim c loses ``cost(c)`` lives (1, or
    ``meyer_costs`` for ``21``) with probability q(c, b). Believing means rolling fresh dice D' and
    claiming at least c like :class:`HonestAgent` (D' if it meets c, else — after the blind reroll
    where the rules and ``reroll`` allow it — the lowest legal value, a lie when D' is lower); the
    next player still in then answers that claim *by this same rule*, and if they believe, the
    round goes on the same way around the table. The expected lives each seat loses in the rest of
    the round is computed exactly (Fractions), from the highest claim down; where a claim can be
    followed by an equal one (``claim_rule="at_least"``) the chain is a linear fixed point over
    the seats, solved exactly, choosing the answers to equal claims that are consistent with the
    losses they imply. The agent doubts when ``q(c, b) * cost(c)`` is below the believer's
    expected loss. It considers only the current round (lives and the end rule play no part).

    The old rule, doubting when q(c, b) < ``threshold``, is kept as ``rule="posterior"``. It was
    fully exploitable (issue 7 item 8): q(``21`` opening) = 310390080/527764873 = 0.588 >= 1/2,
    so it believed an opening ``21``, which only a rolled ``21`` (1/18) can then beat; a learner
    that opened every round with ``claim 21`` and doubted everything won 4000 games of 4000. The
    loss rule doubts that opening: believing it loses a life with probability 17/18 > 0.588 (the
    believer must claim ``21`` again, and the next player doubts a repeated ``21``, true with
    probability 1/18). With the default options it doubts an opening claim of a pair or better
    and believes an opening ``65`` or lower.

    Measured (2 players, 6 lives, default options): the doubter's win rate with its 95% Wilson
    interval over 5000 games, seats rotated (``evaluate.match.play_match("meyer", ["doubter",
    OPPONENT], num_games=5000, seed=2026)``; the slow test ``test_doubter_strength_5000_games``
    repeats it):

    ============================================  ======================  ======================
    opponent                                      ``rule="loss"``         ``rule="posterior"``
    ============================================  ======================  ======================
    ``claim 21``-then-always-doubt (the exploit)  1.000 [0.999, 1.000]    0.000 [0.000, 0.001]
    ``honest``                                    0.744 [0.732, 0.756]    0.697 [0.685, 0.710]
    ``bluffer``                                   0.919 [0.911, 0.926]    0.570 [0.556, 0.583]
    ``random``                                    0.993 [0.990, 0.995]
    ============================================  ======================  ======================

    Where equal claims may follow each other, the answers to them that the fixed point keeps are
    the consistent ones; when both answers are consistent the model keeps "doubt", and when
    neither is (it happens for a few option sets, e.g. ``lie_prior=1``) it keeps "doubt" as well,
    so the model's round always ends. Tests check the table against the same round played out
    through the engine, seat by seat (``tests/test_meyer_agents.py``).

    Claims like :class:`HonestAgent`. Deterministic.

    Args:
        lie_prior: the model's lie probability, 0..1; default 1/4.
        rule: ``"loss"`` (default, above) or ``"posterior"`` (doubt when q < ``threshold``).
        threshold: the ``posterior`` rule's threshold, 0..2; default 1/2. Unused by ``"loss"``.
        reroll: see :class:`MeyerAgent`.
    """

    name = "doubter"
    RULES = ("loss", "posterior")

    def __init__(
        self,
        game: meyer.Game,
        seed: int | None = None,
        lie_prior: Fraction = Fraction(1, 4),
        rule: str = "loss",
        threshold: Fraction = Fraction(1, 2),
        reroll: bool = True,
    ):
        super().__init__(game, seed, reroll=reroll)
        if rule not in self.RULES:
            raise ValueError(f"rule must be one of {', '.join(self.RULES)}, got {rule!r}")
        self.rule = rule
        self.threshold = _fraction("threshold", threshold, high=Fraction(2))
        self.lie_prior = _fraction("lie_prior", lie_prior)
        self._posteriors: dict[int, dict[int, Fraction]] = {}  # previous -> {claim: q}
        # Per number of players still in: {claim: expected lives lost by seat offset, believer 0}.
        self._believe_losses: dict[int, dict[int, tuple[Fraction, ...]]] = {}
        # (claim, previous, blind, players in) -> doubt?
        self._decisions: dict[tuple[int, int | None, bool, int], bool] = {}

    def posterior(self, claim: int, previous: int | None, blind: bool = False) -> Fraction:
        """q: P(the claim is true), exactly; ``previous`` is the claim it had to beat (-1: none,
        ``None``: unknown)."""
        game = self.game
        if blind or previous is None:
            return game.probability_at_least[claim]
        table = self._posteriors.get(previous)
        if table is None:
            key = (game.ranking, game.claim_rule, self.lie_prior, previous)
            table = _POSTERIORS.get(key)
            if table is None:
                table = _POSTERIORS[key] = self._posterior_table(previous)
            self._posteriors[previous] = table
        return table[claim]

    def _posterior_table(self, previous: int) -> dict[int, Fraction]:
        """q(c, previous) for every claim c, from one pass over the claimer's dice D."""
        game = self.game
        rank = game.rank
        legal = game.legal_claims(previous)
        lowest = self.lowest(list(legal))
        lam = self.lie_prior
        # weight[d][c] = P(D = d) P(claim c | D = d, previous), only the non-zero ones.
        joint = [Fraction(0)] * meyer.NUM_CLAIMS
        joint_true = [Fraction(0)] * meyer.NUM_CLAIMS
        for d in range(meyer.NUM_CLAIMS):
            p_d = meyer.CLAIM_PROBABILITY[d]
            if d in legal:
                above = [c for c in legal if rank[c] > rank[d]]
                made = [(d, (1 - lam) if above else Fraction(1))] + [(c, lam / len(above)) for c in above]
            else:
                made = [(lowest, Fraction(1))]
            for c, p in made:
                if p:
                    joint[c] += p_d * p
                    if rank[d] >= rank[c]:
                        joint_true[c] += p_d * p
        return {
            c: joint_true[c] / joint[c] if joint[c] else game.probability_at_least[c] for c in range(meyer.NUM_CLAIMS)
        }

    # -- the loss rule ----------------------------------------------------------------------------
    def cost(self, claim: int) -> int:
        """Lives lost by whoever loses the doubt of this claim (ME-6)."""
        return self.game.meyer_costs if claim == meyer.MEYER else 1

    def doubt_loss(self, claim: int, previous: int | None, blind: bool = False) -> Fraction:
        """Expected lives the answerer loses by doubting: ``q(claim, previous) * cost(claim)``."""
        return self.posterior(claim, previous, blind) * self.cost(claim)

    def believe_loss(self, claim: int, players_in: int | None = None) -> tuple[Fraction, ...]:
        """Expected lives each seat loses in the rest of the round if the answerer believes.

        Args:
            claim: the claim to beat (one that may be believed under the claim rule).
            players_in: players still in (default: all of the game's).

        Returns:
            One Fraction per seat offset from the believer: 0 the believer, 1 the next player
            still in, ..., ``players_in - 1`` the player who made ``claim``.
        """
        n = self.game.num_players if players_in is None else players_in
        if not 2 <= n <= self.game.num_players:
            raise ValueError(f"players_in must be 2..{self.game.num_players}, got {players_in!r}")
        if isinstance(claim, bool) or not isinstance(claim, (int, np.integer)) or not 0 <= claim < meyer.NUM_CLAIMS:
            raise ValueError(f"claim must be a claim index 0..{meyer.NUM_CLAIMS - 1}, got {claim!r}")
        if not self.game.legal_claims(claim):
            raise ValueError(f"claim {meyer.CLAIM_NAMES[claim]} cannot be believed under claim_rule={self.game.claim_rule!r}")
        table = self._believe_losses.get(n)
        if table is None:
            # The table depends only on these (about 0.1 s per number of players to build), so
            # agents built afresh for every game or match share it.
            g = self.game
            key = (g.ranking, g.claim_rule, g.blind_reroll, g.meyer_costs, g.history >= 2, self.lie_prior, self.reroll, n)
            table = _BELIEVE_LOSSES.get(key)
            if table is None:
                table = _BELIEVE_LOSSES[key] = self._solve_believe_losses(n)
            self._believe_losses[n] = table
        return table[claim]

    def _next_answer(self, claim: int, previous: int, blind: bool, n: int, table) -> bool:
        """Whether the next player doubts ``claim`` over ``previous`` (the modelled answer, from
        ``table``, which must already hold ``claim``'s believe losses if believing is allowed)."""
        if not self.game.legal_claims(claim):
            return True
        seen_previous = previous if self.game.history >= 2 else None
        return self.doubt_loss(claim, seen_previous, blind) < table[claim][0]

    def _branches(self, claim: int):
        """The believer's claims over ``claim``: ``[(P, claim made, blind, P(true))]``, summing
        to 1 over the fresh roll D' (and the blind reroll, where it is used)."""
        game = self.game
        legal = game.legal_claims(claim)
        lowest = self.lowest(list(legal))
        rerolls = game.blind_reroll and self.reroll  # claim >= 0 here: the reroll is allowed
        branches = []
        for d in range(meyer.NUM_CLAIMS):
            p = meyer.CLAIM_PROBABILITY[d]
            if d in legal:
                branches.append((p, d, False, Fraction(1)))
            elif rerolls:
                branches.append((p, lowest, True, game.probability_at_least[lowest]))
            else:
                branches.append((p, lowest, False, Fraction(0)))
        return branches

    def _solve_believe_losses(self, n: int) -> dict[int, tuple[Fraction, ...]]:
        game = self.game
        table: dict[int, tuple[Fraction, ...]] = {}
        for claim in game.ranking:  # best first: a believer's claims rank at least as high
            if not game.legal_claims(claim):
                continue
            known = [Fraction(0)] * n  # losses from branches that do not return to ``claim``
            loops = []  # branches whose claim equals ``claim``: their answer is the fixed point
            for p, made, blind, true in self._branches(claim):
                if made == claim:
                    loops.append((p, blind, true))
                    continue
                if self._next_answer(made, claim, blind, n, table):
                    known[1] += p * true * self.cost(made)
                    known[0] += p * (1 - true) * self.cost(made)
                else:
                    after = table[made]  # the next player believes: their losses, one seat on
                    for k in range(n):
                        known[k] += p * after[(k - 1) % n]
            table[claim] = self._fixed_point(claim, n, known, loops)
        return table

    def _fixed_point(self, claim: int, n: int, known: list[Fraction], loops) -> tuple[Fraction, ...]:
        """The believer's losses when some branches claim ``claim`` again.

        The next player's answer to an equal claim depends on the very losses being computed. Each
        assignment of answers (doubt or believe, for the blind and the seen equal claim) gives a
        linear system ``L[k] = K[k] + p L[k-1]`` (p: the chance the next player believes an equal
        claim), solved in closed form around the table; the assignment kept is one whose answers
        are what the rule picks given the L it implies (the first such in the order "all doubt"
        first). If none is consistent the answers "doubt" are kept (the round then cannot loop).
        """
        kinds = sorted({blind for _, blind, _ in loops})
        seen = self.game.history >= 2
        candidates = []
        for mask in range(1 << len(kinds)):
            believes = {kind: bool(mask >> i & 1) for i, kind in enumerate(kinds)}
            base = list(known)
            p_loop = Fraction(0)
            for p, blind, true in loops:
                if believes[blind]:
                    p_loop += p
                else:
                    base[1] += p * true * self.cost(claim)
                    base[0] += p * (1 - true) * self.cost(claim)
            if p_loop >= 1:
                continue  # the round would never end
            # L[k] = base[k] + p L[k-1] around the cycle of n seats.
            scale = 1 / (1 - p_loop**n)
            losses = tuple(scale * sum(p_loop**j * base[(k - j) % n] for j in range(n)) for k in range(n))
            consistent = all(
                (self.doubt_loss(claim, claim if seen else None, blind) >= losses[0]) == believes[blind]
                for blind in kinds
            )
            candidates.append((consistent, mask, losses))
        for consistent, _, losses in candidates:
            if consistent:
                return losses
        return candidates[0][2]

    def doubts(self, observation: np.ndarray) -> bool:
        claim = self.claim_to_beat(observation)
        previous = self.previous_claim(observation)
        blind = self.claim_was_blind(observation)
        if self.rule == "posterior":
            return self.posterior(claim, previous, blind) < self.threshold
        n = self.players_in(observation)
        key = (claim, previous, blind, n)
        decision = self._decisions.get(key)
        if decision is None:
            decision = self._decisions[key] = self.doubt_loss(claim, previous, blind) < self.believe_loss(claim, n)[0]
        return decision

    def __repr__(self) -> str:
        if self.rule == "posterior":
            return (
                f"{type(self).__name__}(rule='posterior', threshold={self.threshold}, lie_prior={self.lie_prior}"
                f"{self._reroll_repr()})"
            )
        return f"{type(self).__name__}(lie_prior={self.lie_prior}{self._reroll_repr()})"


__all__ = ["BayesianDoubter", "BlufferAgent", "HonestAgent", "MeyerAgent"]
