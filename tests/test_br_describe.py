"""How the exact best response exploits a Meyer agent at one level
(``evaluate.exploitability.describe_best_response``, ``dice-envs solve meyer --exploitability SPEC
--describe BEAT``): the decisions shown are the ones the best response plays, and its values add up
to the computation's."""

from __future__ import annotations

import numpy as np
import pytest

from agents import make_agent
from agents.base import Agent
from agents.solvers.meyer import Rules, make_game
from dice_envs.games import meyer
from evaluate.exploitability import BestResponsePlayer, OutsideModel, describe_best_response, exploitability


class AlwaysDoubt(Agent):
    """Doubts every claim it may doubt; claims the lowest legal claim (never rerolls)."""

    name = "always-doubt"

    def action_probabilities(self, observation, action_mask):
        p = np.zeros(len(action_mask))
        legal = np.flatnonzero(action_mask)
        p[meyer.DOUBT if action_mask[meyer.DOUBT] else legal.max()] = 1.0  # claim index 20 is 32, the lowest
        return p


def _states(game, m, a, b, rules):
    """The states of one level, the best response in seat 1 and the agent in seat 0:
    (kind, key, state, claims) for its claims by dice and its answers by the agent's claim."""
    names = [meyer.CLAIM_NAMES[c] for c in game.claim_of_rank]
    base = game.initial_state()._replace(lives=(a, m), to_roll=0)
    beat = -1 if b < 0 else game.claim_of_rank[b]
    claims_before = [] if b < 0 else [(b, 0, False)]
    for d in range(len(names)):
        cup = tuple(sorted(rules.dice_of_rank[d]))
        s = base._replace(actor=1, phase=meyer.CLAIM, cup=cup, seen_by=1, claim=beat, claimer=-1 if b < 0 else 0)
        yield "claim", names[d], s, claims_before
    opened = [] if b < 0 else [(b, 1, False)]
    for z in range(len(names)):
        for zb in (0, 1) if rules.blind else (0,):
            s = base._replace(actor=1, phase=meyer.RESPOND, cup=(1, 2), seen_by=0 if not zb else -1,
                              claim=game.claim_of_rank[z], claimer=0, claim_blind=bool(zb))
            yield "answer", (names[z], bool(zb)), s, opened + [(z, 0, bool(zb))]


@pytest.mark.parametrize("options, spec", [
    ({"lives": 2}, "doubter"),
    ({"lives": 2}, "bluffer"),
    ({"lives": 2, "blind_reroll": True}, "honest"),
    ({"lives": 2, "claim_rule": "higher"}, "doubter"),
])  # fmt: skip
def test_the_decisions_shown_are_the_ones_the_best_response_plays(options, spec):
    game = make_game(options)
    agent = make_agent(game, spec, seed=0)
    result = exploitability(game, agent)
    player = BestResponsePlayer(result.tables["br"])
    rules = Rules(game)
    names = [meyer.CLAIM_NAMES[c] for c in game.claim_of_rank]
    checked = 0
    for m, a in ((1, 1), (2, 1), (2, 2)):
        for beat in (None, "54", "62", "11"):
            b = -1 if beat is None else game.rank[meyer.claim_index(beat)]
            level = describe_best_response(game, agent, lives=(m, a), beat=beat, result=result)
            claims = {row["dice"]: row for row in level["claims"]}
            answers = {(row["claim"], row["blind"]): row for row in level["answers"]}
            doubted = level["agent_doubts_opening"] or 0.0
            if doubted < 1:  # having believed, the agent claims something: the rows are all it does
                assert sum(row["probability"] for row in level["answers"]) == pytest.approx(1.0, abs=1e-12)
            for kind, key, state, history in _states(game, m, a, b, rules):
                if kind == "claim":
                    shown = claims[key]["action"]
                    action = player.decide(state, 1, history)
                    played = "reroll" if action == meyer.REROLL else names[game.rank[action - meyer.FIRST_CLAIM]]
                    assert played == shown, (m, a, beat, key)
                    checked += 1
                elif key in answers:
                    action = player.decide(state, 1, history)
                    assert ("doubt" if action == meyer.DOUBT else "believe") == answers[key]["action"], (m, a, beat, key)
                    checked += 1
    assert checked > 300


@pytest.mark.parametrize("options", [{"lives": 3}, {"lives": 2, "blind_reroll": True, "meyer_costs": 2}])
def test_the_values_shown_add_up_to_the_best_responses_value(options):
    game = make_game(options)
    agent = make_agent(game, "doubter", seed=0)
    result = exploitability(game, agent)
    rules = Rules(game)
    L = game.lives
    level = describe_best_response(game, agent, result=result)
    by_dice = {row["dice"]: row["value"] for row in level["claims"]}
    names = [meyer.CLAIM_NAMES[c] for c in game.claim_of_rank]
    starting = sum(rules.p[d] * by_dice[names[d]] for d in range(len(names)))
    assert starting == pytest.approx(result.br_first, abs=1e-12)
    assert level["value_starting"] == result.br_first
    answering = sum(row["probability"] * max(row["doubt_value"], row["believe_value"] or -np.inf)
                    for row in level["answers"])  # fmt: skip
    assert answering == pytest.approx(result.br_second, abs=1e-12)
    assert sum(row["probability"] for row in level["answers"]) == pytest.approx(1.0, abs=1e-12)
    assert (level["best_response_lives"], level["agent_lives"], level["claim_to_beat"]) == (L, L, "start")


def test_against_an_agent_that_doubts_everything_every_claim_is_true_and_wins():
    game = make_game({"lives": 1})
    level = describe_best_response(game, AlwaysDoubt(game), name="always-doubt")
    assert len(level["claims"]) == 21
    for row in level["claims"]:
        assert not row["bluff"] and row["value"] == 1.0 and row["agent_doubts"] == 1.0, row
    # its own opening claims are the lowest claim, 32, whatever its dice: true only with 32 itself...
    (only,) = level["answers"]
    assert only["claim"] == "32" and only["probability"] == pytest.approx(1.0)
    # ...and every dice makes 32 true (the lowest value), so doubting it loses: the BR believes
    assert only["true"] == pytest.approx(1.0) and only["action"] == "believe"
    assert only["doubt_value"] == -1.0
    assert "best response to always-doubt, round start, lives 1 (best response) v 1 (always-doubt)" in level["lines"][0]


def test_bluffs_are_marked_and_the_text_shows_each_row():
    game = make_game({"lives": 1})
    level = describe_best_response(game, make_agent(game, "doubter", seed=0), beat="54", name="doubter")
    rules = Rules(game)
    names = [meyer.CLAIM_NAMES[c] for c in game.claim_of_rank]
    for row in level["claims"]:
        d = names.index(row["dice"])
        y = names.index(row["action"])
        assert row["bluff"] == (not rules.true[d, y])
        line = next(line for line in level["lines"] if line.strip().startswith(f"dice {row['dice']}:"))
        assert (" (bluff)" in line) == row["bluff"]
    assert any(row["bluff"] for row in level["claims"])  # the doubter believes low claims: bluffing pays
    assert level["claim_to_beat"] == "54"


def test_bad_levels_and_agents_outside_the_model_are_refused_before_any_work():
    game = make_game({"lives": 2})
    with pytest.raises(ValueError, match="lives must be two numbers in 1..2"):
        describe_best_response(game, make_agent(game, "doubter", seed=0), lives=(3, 1))
    with pytest.raises(ValueError, match="nothing can be claimed over 21"):
        describe_best_response(make_game({"lives": 2, "claim_rule": "higher"}), make_agent(game, "doubter"), beat="21")

    class Alternates(Agent):  # remembers its last answer: outside the exact model
        def reset(self, seed=None):
            super().reset(seed)
            self.flip = False

        def action_probabilities(self, observation, action_mask):
            self.flip = not getattr(self, "flip", False)
            p = np.zeros(len(action_mask))
            legal = np.flatnonzero(action_mask)
            p[legal[0] if self.flip else legal[-1]] = 1.0
            return p

    with pytest.raises(OutsideModel, match="exact only for an agent inside the model, and mine is not"):
        describe_best_response(game, Alternates(game), name="mine")


def test_the_command_describes_the_best_response_and_refuses_what_it_cannot(capsys, tmp_path):
    import json

    from dice_envs.cli import main

    words = ["solve", "meyer", "--lives", "2", "--exploitability", "doubter", "--describe", "54",
             "--lives-pair", "1", "2", "--cache-dir", str(tmp_path), "--no-progress"]  # fmt: skip
    assert main([*words, "--json"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    data = json.loads(out[-1])
    game = make_game({"lives": 2})
    expected = describe_best_response(game, make_agent(game, "doubter", seed=0), lives=(1, 2), beat="54",
                                      name="doubter")  # fmt: skip
    assert data["describe"][:-1] == expected["lines"]
    assert data["describe"][-1] == f"exploitability of doubter: {exploitability(game, make_agent(game, 'doubter')).value:.9f}"
    assert data["level"]["claims"] == expected["claims"] and data["objective"] == "best response"
    refusals = [
        (["--lives-pair", "3", "1"], "--lives-pair takes the best response's and the agent's lives, two numbers in 1..2"),
        (["--export", "x.csv"], "--export writes the equilibrium's strategy; not with --exploitability"),
        (["--games", "100"], "--games sets the simulated lower bound; --describe shows the exact best response"),
    ]
    for extra, message in refusals:
        base = words[:8] + words[11:] if "--lives-pair" in extra else words  # without the good --lives-pair
        assert main([*base, *extra]) == 2
        assert message in capsys.readouterr().err
