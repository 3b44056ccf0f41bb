"""Meyer agents (honest, bluffer, Bayesian doubter) and the terminal-play hooks."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from agents import AGENTS, make_agent
from agents.base import DeterministicAgent
from agents.meyer import BayesianDoubter, BlufferAgent, HonestAgent
from dice_envs.games import meyer
from dice_envs.games.meyer import Game
from dice_envs.play import meyer as hooks
from evaluate.match import play_match


def mask_of(game, state):
    mask = np.zeros(game.num_actions, dtype=np.int8)
    mask[game.legal_actions(state)] = 1
    return mask


def decide(agent, game, state):
    seat = game.current_player(state)
    return agent.act(game.observe(state, seat), mask_of(game, state))


def run(game, *events, state=None):
    state = game.initial_state() if state is None else state
    for event in events:
        if isinstance(event, tuple):
            state = game.apply_chance(state, event)
        else:
            state = game.apply_action(state, game.string_to_action(state, event))
    return state


def claim_action(value: str) -> int:
    return meyer.FIRST_CLAIM + meyer.claim_index(value)


def test_registered_under_meyer():
    assert AGENTS["meyer"]["honest"] is HonestAgent
    assert AGENTS["meyer"]["bluffer"] is BlufferAgent
    assert AGENTS["meyer"]["doubter"] is BayesianDoubter
    g = Game()
    assert isinstance(make_agent(g, "bluffer", seed=1, lie_probability=0.5), BlufferAgent)
    with pytest.raises(ValueError, match="lie_probability"):
        BlufferAgent(g, lie_probability=1.5)
    with pytest.raises(ValueError, match="threshold"):
        BayesianDoubter(g, threshold="high")
    with pytest.raises(ValueError, match="plays meyer"):
        HonestAgent(object())


@pytest.mark.parametrize("name", ["honest", "bluffer", "doubter"])
@pytest.mark.parametrize(
    "options",
    [{}, {"num_players": 4, "blind_reroll": True, "claim_rule": "higher", "lille_meyer": False, "history": 1}],
)
def test_agents_play_legal_and_seeded(name, options):
    g = Game(**options)

    def game_record(seed):
        agents = [make_agent(g, name, seed=seed + s) for s in range(g.num_players)]
        rng = np.random.default_rng(seed)
        s, record = g.initial_state(), []
        while not g.is_terminal(s):
            if g.is_chance(s):
                s = g.apply_chance(s, tuple(int(x) for x in rng.integers(1, 7, size=2)))
                continue
            a = decide(agents[g.current_player(s)], g, s)
            assert a in g.legal_actions(s)
            record.append(a)
            s = g.apply_action(s, a)
        return record

    for seed in range(5):
        assert game_record(seed) == game_record(seed)


def test_honest_claims_the_truth_or_the_lowest_legal_claim():
    g = Game()
    honest = HonestAgent(g, seed=0)
    assert decide(honest, g, run(g, (6, 3))) == claim_action("63")  # a round start: the truth
    s = run(g, (6, 3), "claim 63", "believe", (5, 5))
    assert decide(honest, g, s) == claim_action("55")  # beats 63: the truth
    s = run(g, (6, 3), "claim 63", "believe", (5, 4))
    assert decide(honest, g, s) == claim_action("63")  # must lie: the lowest legal claim
    g = Game(claim_rule="higher")
    s = run(g, (6, 3), "claim 63", "believe", (5, 4))
    assert decide(HonestAgent(g), g, s) == claim_action("64")


def test_agents_use_the_blind_reroll_only_when_their_dice_fail():
    g = Game(blind_reroll=True)
    for agent in (HonestAgent(g), BlufferAgent(g), BayesianDoubter(g)):
        assert decide(agent, g, run(g, (6, 3), "claim 63", "believe", (5, 4))) == meyer.REROLL
        assert decide(agent, g, run(g, (6, 3), "claim 63", "believe", (6, 4))) != meyer.REROLL
        blind = run(g, (6, 3), "claim 63", "believe", (5, 4), "reroll", (2, 1))
        assert decide(agent, g, blind) == claim_action("63")  # unseen dice: the lowest legal
    assert decide(HonestAgent(g, reroll=False), g, run(g, (6, 3), "claim 63", "believe", (5, 4))) == claim_action("63")


def test_bluffer_lies_with_its_probability():
    g = Game()
    start = run(g, (5, 4))
    honest_like = BlufferAgent(g, seed=0, lie_probability=0)
    assert all(decide(honest_like, g, start) == claim_action("54") for _ in range(50))
    liar = BlufferAgent(g, seed=0, lie_probability=1)
    claims = {decide(liar, g, start) - meyer.FIRST_CLAIM for _ in range(300)}
    assert all(g.rank[c] > g.rank[meyer.claim_index("54")] for c in claims) and len(claims) > 5
    half = BlufferAgent(g, seed=1, lie_probability=Fraction(1, 2))
    lies = sum(decide(half, g, start) != claim_action("54") for _ in range(2000))
    assert 900 < lies < 1100
    # With nothing above the dice there is nothing to lie about.
    assert decide(liar, g, run(g, (1, 2))) == claim_action("21")


def test_honest_doubts_by_the_dice_odds():
    g = Game()
    honest = HonestAgent(g)  # doubt_below = 1/2: P(62 or better) = 1/2, P(63 or better) = 4/9
    assert decide(honest, g, run(g, (1, 1), "claim 62")) == meyer.BELIEVE
    assert decide(honest, g, run(g, (1, 1), "claim 63")) == meyer.DOUBT
    g = Game(claim_rule="higher")
    assert decide(HonestAgent(g, doubt_below=0), g, run(g, (1, 2), "claim 21")) == meyer.DOUBT  # forced


def test_bayesian_posterior_is_exact():
    g = Game()
    honest_model = BayesianDoubter(g, lie_prior=0)
    c54 = meyer.claim_index("54")
    # An honest claimer opens with the truth: an opening claim is surely true.
    assert honest_model.posterior(c54, -1) == 1
    # 54 over 54: either the dice were 54 (2/36) or they were below 54 (14/36) and it is a forced lie.
    assert honest_model.posterior(c54, c54) == Fraction(2, 16)
    # Above the claim to beat, an honest claimer claims its dice: true.
    assert honest_model.posterior(meyer.claim_index("65"), c54) == 1
    # Blind claims and an unknown claim to beat use the plain odds.
    assert honest_model.posterior(c54, c54, blind=True) == g.probability_at_least[c54] == Fraction(22, 36)
    assert honest_model.posterior(c54, None) == Fraction(22, 36)
    # With lies in the model an opening 21 may be a lie: 1/18 * 3/4 + ... computed by hand.
    model = BayesianDoubter(g, lie_prior=Fraction(1, 4))
    # Dice of value d below 21 claim 21 with probability 1/4 * 1/(number of values above d).
    lies = sum(
        meyer.CLAIM_PROBABILITY[d] * Fraction(1, 4) / (g.rank[meyer.MEYER] - g.rank[d]) for d in range(1, 21)
    )
    assert model.posterior(meyer.MEYER, -1) == Fraction(1, 18) / (Fraction(1, 18) + lies)
    for b in range(-1, 21):
        for c in g.legal_claims(b):
            assert 0 <= model.posterior(c, b) <= 1


def test_bayesian_doubter_thresholds_and_history():
    g = Game()
    s = run(g, (6, 3), "claim 63", "believe", (1, 1), "claim 63")  # 63 over 63
    posterior = {"rule": "posterior"}
    assert decide(BayesianDoubter(g, lie_prior=0, threshold=Fraction(1, 2), **posterior), g, s) == meyer.DOUBT
    assert decide(BayesianDoubter(g, threshold=0, **posterior), g, s) == meyer.BELIEVE
    assert decide(BayesianDoubter(g, threshold=2, **posterior), g, run(g, (6, 3), "claim 32")) == meyer.DOUBT
    agent = BayesianDoubter(g)
    obs = g.observe(s, 0)
    assert agent.previous_claim(obs) == meyer.claim_index("63") and agent.claim_to_beat(obs) == meyer.claim_index("63")
    short = Game(history=1)
    assert BayesianDoubter(short).previous_claim(short.observe(run(short, (6, 3), "claim 63"), 1)) is None


# -- terminal play ------------------------------------------------------------------------------
def test_parse_accepts_words_and_values():
    g = Game(num_players=3, blind_reroll=True)
    s = run(g, (4, 5), "claim 54")
    assert hooks.parse(g, s, "d") == hooks.parse(g, s, " Doubt ") == meyer.DOUBT
    assert hooks.parse(g, s, "b") == meyer.BELIEVE
    s = run(g, "believe", (1, 1), state=s)
    assert hooks.parse(g, s, "r") == meyer.REROLL
    for text in ("54", "45", "claim 54", "CLAIM 45"):
        assert hooks.parse(g, s, text) == claim_action("54")
    assert hooks.parse(g, s, "meyer") == claim_action("21")
    assert hooks.parse(g, s, "lille meyer") == claim_action("31")


@pytest.mark.parametrize("text, message", [("53", "may not claim 53"), ("d", "may not doubt"), ("x", "not an answer"), ("77", "not an answer"), ("", "not an answer")])
def test_parse_refuses_with_a_message(text, message):
    g = Game()
    s = run(g, (4, 5), "claim 54", "believe", (1, 1))
    with pytest.raises(ValueError, match=message) as info:
        hooks.parse(g, s, text)
    assert "claim one of: 21 31 66" in str(info.value)


def test_describe_and_render_for_show_only_the_seats_view():
    g = Game(num_players=3)
    s = run(g, (6, 6), "claim 43")  # seat 0 rolled 66 and claimed 43
    assert "Your dice: 66" in hooks.describe(g, s, 0)
    view = hooks.describe(g, s, 1) + "\n" + hooks.render_for(g, s, 1)
    assert "66 >" in view  # the ranking is shown ...
    assert "Your dice" not in view and "⚅" not in view and "(66)" not in view  # ... the cup is not
    assert "Claim to beat: 43 by player_0" in view and "d = doubt" in view
    s = run(g, "believe", (2, 2), state=s)
    text = hooks.describe(g, s, 1)
    assert "Your dice: 22" in text and "claim one of: 21 31" in text and text.rstrip().endswith("43.")


# -- the loss rule of the Bayesian doubter (issue 7 item 8) ------------------------------------
class Claim21ThenDoubt(DeterministicAgent):
    """The exploit of issue 7 item 8: open every round with ``claim 21`` and doubt every claim."""

    name = "claim21"

    def __init__(self, game, seed=None):
        super().__init__(game, seed)
        self._beat = game.obs_slices["beat_rank"].start

    def act(self, observation, action_mask):
        if action_mask[meyer.DOUBT]:
            return meyer.DOUBT
        if observation[self._beat] == 0:  # a round start: nothing to beat
            return meyer.FIRST_CLAIM + meyer.MEYER
        return int(np.flatnonzero(action_mask)[-1])  # never reached: it never believes


def test_loss_rule_doubts_an_opening_21_that_the_posterior_rule_believes():
    g = Game()
    s = run(g, (3, 2), "claim 21")  # seat 0 lies: 32 under the cup
    doubter = BayesianDoubter(g)
    q = doubter.posterior(meyer.MEYER, -1)
    assert q == Fraction(310390080, 527764873) and q > Fraction(1, 2)  # the old rule believes it ...
    assert decide(BayesianDoubter(g, rule="posterior"), g, s) == meyer.BELIEVE
    # ... but a believer must claim 21 again, which the next player doubts (true 1/18 of the time):
    # believing loses a life 17/18 of the time, the claimer (offset 1 in two players) 1/18.
    assert doubter.believe_loss(meyer.MEYER) == (Fraction(17, 18), Fraction(1, 18))
    assert doubter.doubt_loss(meyer.MEYER, -1) == q
    assert decide(doubter, g, s) == meyer.DOUBT
    # With a doubted 21 costing two lives (ME-6) both sides of the comparison double.
    g2 = Game(meyer_costs=2)
    assert BayesianDoubter(g2).believe_loss(meyer.MEYER) == (Fraction(17, 9), Fraction(1, 9))
    assert decide(BayesianDoubter(g2), g2, run(g2, (3, 2), "claim 21")) == meyer.DOUBT


def test_loss_rule_believes_a_low_opening_claim():
    g = Game()
    doubter = BayesianDoubter(g)
    for value in ("32", "43", "54", "65"):
        s = run(g, (3, 2), f"claim {value}")
        assert decide(doubter, g, s) == meyer.BELIEVE, value
        c = meyer.claim_index(value)
        assert doubter.doubt_loss(c, -1) >= doubter.believe_loss(c)[0]
    assert doubter.believe_loss(meyer.claim_index("32"))[0] < Fraction(1, 2)


def engine_round_losses(game, agents, start, exact: bool):
    """Expected lives lost by each seat from ``start`` until the next doubt, computed through the
    engine: its chance outcomes, and every seat's agent acting on its own observation.

    Value iteration over the states reachable from ``start``; under ``claim_rule="higher"`` the
    graph has no cycle and the iteration reaches the exact Fractions, under ``"at_least"``
    (equal claims may follow each other) it is run in floats until it settles.
    """
    graph, stack = {}, [start]
    while stack:
        s = stack.pop()
        if s in graph:
            continue
        if game.is_chance(s):
            graph[s] = [(p, game.apply_chance(s, dice)) for dice, p in game.chance_outcomes(s)]
        else:
            seat = game.current_player(s)
            action = agents[seat].act(game.observe(s, seat), mask_of(game, s))
            after = game.apply_action(s, action)
            if action == meyer.DOUBT:
                graph[s] = tuple(Fraction(b - a) for b, a in zip(s.lives, after.lives))
                continue
            graph[s] = [(Fraction(1), after)]
        stack.extend(t for _, t in graph[s]) if isinstance(graph[s], list) else None
    n = game.num_players
    zero = Fraction(0) if exact else 0.0
    value = {s: (zero,) * n for s in graph}
    for _ in range(10_000):
        new = {}
        for s, edges in graph.items():
            if isinstance(edges, tuple):
                new[s] = edges if exact else tuple(float(x) for x in edges)
            else:
                new[s] = tuple(sum((p if exact else float(p)) * value[t][k] for p, t in edges) for k in range(n))
        settled = new == value if exact else max(abs(a - b) for s in graph for a, b in zip(new[s], value[s])) < 1e-14
        value = new
        if settled:
            return value[start]
    raise AssertionError("the value iteration did not settle")


# A few claims near the top keep the default run short (the reachable rounds grow quickly as the
# claim falls); the slow run covers low claims and the blind reroll under "at_least" too.
@pytest.mark.parametrize(
    "options, claims",
    [
        ({"claim_rule": "higher"}, ["31", "66", "44"]),
        ({"claim_rule": "higher", "num_players": 3}, ["55"]),
        ({"claim_rule": "higher", "blind_reroll": True}, ["55"]),
        ({"claim_rule": "higher", "meyer_costs": 2, "lille_meyer": False}, ["66", "55"]),
        ({}, ["21", "31", "11"]),
        ({"num_players": 3, "meyer_costs": 2}, ["21", "66"]),
        pytest.param({"claim_rule": "higher"}, ["61", "43"], marks=pytest.mark.slow),
        pytest.param({"claim_rule": "higher", "blind_reroll": True}, ["66", "54"], marks=pytest.mark.slow),
        pytest.param({"blind_reroll": True}, ["22", "53"], marks=pytest.mark.slow),
        pytest.param({}, ["64", "42"], marks=pytest.mark.slow),
    ],
)
def test_believe_loss_matches_the_engine(options, claims):
    # An independent computation of what believing costs: play the round out through the engine
    # with every seat a BayesianDoubter, and compare with the agent's closed-form table.
    g = Game(history=2, **options)
    agents = [BayesianDoubter(g) for _ in range(g.num_players)]
    n = g.num_players
    exact = g.claim_rule == "higher"
    for value in claims:
        c = meyer.claim_index(value)
        start = run(g, (3, 2), f"claim {value}", "believe")  # seat 1 believes seat 0's claim
        losses = engine_round_losses(g, agents, start, exact)
        table = agents[1].believe_loss(c, n)
        by_seat = [table[(seat - 1) % n] for seat in range(n)]  # offset k is seat 1 + k
        if exact:
            assert list(losses) == by_seat, value
        else:
            assert losses == pytest.approx([float(x) for x in by_seat], abs=1e-12), value


def test_the_claim_21_exploit_no_longer_wins():
    g = Game()
    exploiter = Claim21ThenDoubt(g)
    result = play_match("meyer", ["doubter", exploiter], num_games=200, seed=7)
    rate, low, _ = result.records[0].win_rate()
    assert low > 0.9, result.table()  # Wilson interval: the doubter wins nearly every game
    old = play_match("meyer", ["doubter:rule=posterior", Claim21ThenDoubt(g)], num_games=50, seed=7)
    assert old.records[0].share_sum == 0, old.table()  # the defect it fixes: lost every game


@pytest.mark.parametrize("opponent", ["honest", "bluffer"])
def test_loss_rule_does_not_lose_to_honest_or_bluffer(opponent):
    result = play_match("meyer", ["doubter", opponent], num_games=300, seed=11)
    rate, low, _ = result.records[0].win_rate()
    assert low > 0.5, result.table()  # the Wilson interval decides: it wins


def test_doubter_parameters_are_checked():
    g = Game(num_players=3, claim_rule="higher")
    with pytest.raises(ValueError, match="rule must be one of loss, posterior"):
        BayesianDoubter(g, rule="bayes")
    with pytest.raises(ValueError, match="lie_prior"):
        BayesianDoubter(g, lie_prior=float("nan"))
    doubter = BayesianDoubter(g)
    with pytest.raises(ValueError, match="players_in must be 2..3"):
        doubter.believe_loss(meyer.claim_index("54"), players_in=4)
    with pytest.raises(ValueError, match="cannot be believed"):
        doubter.believe_loss(meyer.MEYER)
    with pytest.raises(ValueError, match="claim index 0..20"):
        doubter.believe_loss(-1)
    # Three seats, one entry each; a round ends with exactly one doubt, costing one life here.
    losses = doubter.believe_loss(meyer.claim_index("54"))
    assert len(losses) == 3 and sum(losses) == 1


@pytest.mark.slow
@pytest.mark.parametrize(
    "opponent, low, high",
    [("claim21", 0.99, 1.0), ("honest", 0.70, 1.0), ("bluffer", 0.85, 1.0), ("random", 0.95, 1.0)],
)
def test_doubter_strength_5000_games(opponent, low, high):
    # The measurement quoted in BayesianDoubter's docstring (about half a minute each).
    entrant = Claim21ThenDoubt(Game()) if opponent == "claim21" else opponent
    result = play_match("meyer", ["doubter", entrant], num_games=5000, seed=2026)
    rate, lower, upper = result.records[0].win_rate()
    print(result.table())
    assert low < lower and upper <= high, result.table()


def test_repr_tells_a_turned_off_blind_reroll_apart():
    """``bluffer:reroll=false`` plays otherwise under ``blind_reroll``: it must not print as ``bluffer``."""
    import agents

    g = meyer.Game(blind_reroll=True)
    for spec in ("honest", "bluffer", "doubter", "doubter:rule=posterior"):
        on = repr(agents.make_agent(g, spec, seed=0))
        sep = "," if ":" in spec else ":"
        off = repr(agents.make_agent(g, f"{spec}{sep}reroll=false", seed=0))
        assert "reroll" not in on and off == on[:-1] + ", reroll=False)"
