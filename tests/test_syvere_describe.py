"""``dice-envs solve syvere --describe SITUATION`` (agents.solvers.syvere_describe): one Syvere decision
valued by the one-turn solve and, with three or fewer players in, by the endgame agent's best response;
the situation is the state a real game reaches (the same observation), and bad ones are refused."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest

from agents import make_agent
from agents.solvers import syvere as sy
from agents.solvers.syvere_describe import describe_situation, parse_situation, situation_state
from dice_envs.games import syvere


def _situation_of(state: syvere.State, mover: int, n: int) -> str:
    """The situation text of a real decision, the mover's total first, then clockwise."""
    totals = " ".join(str(state.totals[(mover + i) % n]) for i in range(n))
    parts = [f"totals={totals}", f"dice={''.join(map(str, state.remaining))}", f"rolls={state.rolls}"]
    if state.turn == 0:
        parts.append("starter=yes")
    else:
        parts += [f"limit={state.starter_rolls}", f"after={len(state.round_order) - 1 - state.turn}"]
    return ",".join(parts)


@pytest.mark.parametrize("num_players, options", [(3, {}), (4, {"max_rolls": 4, "elimination": 40}), (2, {})])
def test_a_real_decision_described_is_the_same_observation(num_players, options):
    game = syvere.Game(num_players=num_players, **options)
    agents = [make_agent(game, "heuristic", seed=s) for s in range(num_players)]
    rng = np.random.default_rng(num_players)
    checked = 0
    for _ in range(40):
        state = game.initial_state()
        while not game.is_terminal(state):
            k = game.num_dice_to_roll(state)
            if k:
                state = game.apply_chance(state, tuple(int(v) for v in rng.integers(1, 7, size=k)))
                continue
            mover = game.current_player(state)
            text = _situation_of(state, mover, num_players)
            twin = situation_state(syvere.Game(num_players=num_players, **options), parse_situation(text))
            assert (game.observe(twin, 0) == game.observe(state, mover)).all(), text
            checked += 1
            mask = np.zeros(game.num_actions, dtype=np.int8)
            mask[game.legal_actions(state)] = 1
            state = game.apply_action(state, agents[mover].act(game.observe(state, mover), mask))
    assert checked > 100


def test_the_values_are_the_solvers():
    text = "totals=60 70 78,dice=2666,rolls=1,limit=2"
    d = describe_situation({}, text)
    assert d["turn"]["stop"] == 20 and Fraction(d["turn"]["roll"]).limit_denominator(10**6) == sy.roll_value(4, 1)
    assert d["turn"]["optimal"] == ("stop" if sy.should_stop(4, 20, 1) else "roll")
    from agents.solvers.syvere_endgame import EndgameAgent

    game = syvere.Game(num_players=3)
    state = situation_state(game, parse_situation(text))
    stop, roll = EndgameAgent(game).values(game.observe(state, 0))
    assert (d["win"]["stop"], d["win"]["roll"]) == (stop, roll)
    # the mover (60) holds 20: stopping goes out at 80 while the other player still in (70) is safe
    assert stop == 0.0 and roll > 0.5 and d["win"]["endgame"] == "roll"
    assert d["situation"] == {"totals": [60, 70, 78], "dice": "2666", "held": 20, "rolls": 1, "limit": 2,
                              "starter": False, "after": 0, "players_in": 2}  # fmt: skip


def test_with_four_in_only_the_turn_is_valued():
    d = describe_situation({}, "totals=10 20 30 40,dice=12,starter=yes")
    assert d["win"] is None and d["turn"]["stop"] == 3
    assert any("4-player phase" in line for line in d["lines"])


@pytest.mark.parametrize("text, message", [
    ("dice=12", "totals= is needed"),
    ("totals=10 20,dice=12,foo=1", "unknown key 'foo'"),
    ("totals=10 20,dice=17", "dice= takes the faces held, 1 to 6"),
    ("totals=10 20,dice=34", "holds a pair summing to 7"),  # SY-3 sets such pairs aside at once
    ("totals=80 20,dice=12", "the mover's total 80 is at or above the elimination 77"),
    ("totals=10 20,dice=12,rolls=3", "rolls=3 of a limit of 3: the turn has ended"),  # SY-4
    ("totals=10 20,dice=12,limit=4", "limit=4: the starter may roll at most max_rolls=3 times"),  # SY-6
    ("totals=10 20,dice=12,starter=yes,limit=2", "limit= is for a player who did not start the round"),
    ("totals=10 20 30,dice=12,after=2", "after=2: 2 other player\\(s\\) are in, and the round.s starter played before the mover, so at most 1"),
    ("totals=10,dice=12", "totals= needs at least two seats"),
    ("totals=10 20,dice=1234567", "dice= takes the faces held, 1 to 6 dice of 1 to 6"),
])  # fmt: skip
def test_bad_situations_are_refused_with_the_reason(text, message):
    with pytest.raises(ValueError, match=message):
        describe_situation({}, text)


def test_the_command(capsys):
    from dice_envs.cli import main

    assert main(["solve", "syvere", "--describe", "totals=68 87,dice=3556", "--json"]) == 0
    data = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert data["objective"] == "describe" and data["win"]["stop"] == 0.5  # a tie on 87, valued 1/2 (a guess)
    assert data["value"] == data["win"][data["win"]["endgame"]]
    assert main(["solve", "syvere", "--describe", "totals=68 87,dice=3556", "--roll-limit", "2"]) == 2
    assert "--roll-limit with --describe" in capsys.readouterr().err
    assert main(["solve", "syvere", "--num-players", "3", "--describe", "totals=68 87,dice=356"]) == 2
    assert "gives 2 totals for a game of 3 players" in capsys.readouterr().err


def test_a_meyer_level_given_to_syvere_is_refused_as_a_bad_situation(capsys, tmp_path):
    from dice_envs.cli import main

    assert main(["solve", "syvere", "--describe", "54", "--cache-dir", str(tmp_path)]) == 2
    assert "--describe: '54' is not key=value" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())
