"""Agents given through the Python API are checked as a SPEC is (outside API review 8: D2, D3, D7).

An agent object is bound to the engine it was built on; a match, the Gymnasium view and a
tournament refuse one built for another game or other options instead of letting it read the
wrong observation layout. Parameters given as Python values must be of the declared type, as a
SPEC's text is read by it; seeds are checked; a checkpoint may be a ``pathlib.Path``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import agents
from agents import make_agent
from dice_envs.errors import InvalidSpecError
from dice_envs.games import meyer, syvere, tenthousand
from evaluate.match import play_match
from evaluate.tournament import run_tournament

SHIPPED = Path(agents.__file__).parent / "trained"


@pytest.mark.parametrize(
    "game, agent, message",
    [
        ("syvere", lambda: make_agent(meyer.Game(), "honest"), "HonestAgent was built for meyer, not syvere"),
        ("meyer", lambda: make_agent(meyer.Game(), "doubter"), "built for meyer with lives=6 \\(this game: 2\\)"),
    ],
)
def test_play_match_refuses_an_agent_built_for_another_game_or_options(game, agent, message):
    options = {"lives": 2} if game == "meyer" else None
    with pytest.raises(InvalidSpecError, match=message) as info:
        play_match(game, [agent(), "random"], 3, 0, options)
    assert isinstance(info.value, ValueError) and "agents.make_agent(env.unwrapped.game, SPEC)" in str(info.value)


def test_an_agent_built_on_equal_options_plays_and_one_without_a_game_passes():
    class Plain:  # a user's agent that reads nothing of the layout: nothing to check
        def act(self, observation, action_mask):
            return int(np.flatnonzero(action_mask)[0])

    built = make_agent(meyer.Game(lives=2), "honest")  # another engine object, the same options
    result = play_match("meyer", [built, Plain()], 4, 0, {"lives": 2})
    assert result.num_games == 4


def test_the_view_refuses_an_opponent_built_for_other_options():
    import gymnasium

    four = make_agent(syvere.Game(num_players=4), "heuristic")
    with pytest.raises(InvalidSpecError, match="an opponent in syvere: SyvereHeuristic was built for syvere with num_players=4"):
        env = gymnasium.make("dice/Syvere-v0", opponents=[four], num_players=2)
        env.reset(seed=0)
    env = gymnasium.make("dice/Syvere-v0", opponents=[four], num_players=4)
    env.reset(seed=0)  # the right table size plays


def test_run_tournament_takes_specs_and_says_so_for_an_object():
    with pytest.raises(TypeError, match="run_tournament takes agent SPECs .* got HonestAgent"):
        run_tournament("meyer", [make_agent(meyer.Game(), "honest"), "random"], games=1, db=None, progress=False)


@pytest.mark.parametrize(
    "game, spec, params, message",
    [
        (meyer.Game, "trained", {"greedy": "false"}, "greedy must be bool, got 'false' \\(text is read by type only in a SPEC"),
        (meyer.Game, "trained", {"greedy": 1}, "greedy must be bool, got 1"),
        (syvere.Game, "heuristic", {"starter_margin": 2.7}, "starter_margin must be int, got 2.7"),
        (syvere.Game, "heuristic", {"stop_at": (7, "4")}, "stop_at must be tuple of ints"),
        (meyer.Game, "bluffer", {"lie_probability": "0.3"}, "lie_probability must be Fraction, got '0.3'"),
    ],
)
def test_python_parameters_of_the_wrong_type_are_refused(game, spec, params, message):
    with pytest.raises(InvalidSpecError, match=message):
        make_agent(game(), spec, **params)


def test_python_parameters_of_the_declared_type_build_the_same_agent_as_the_spec():
    assert repr(make_agent(meyer.Game(), "trained", greedy=False)) == repr(make_agent(meyer.Game(), "trained:greedy=false"))
    assert make_agent(meyer.Game(), "trained", greedy=False).greedy is False
    numpy_int = make_agent(syvere.Game(), "heuristic", starter_margin=np.int64(2), stop_at=(7, 4))
    assert numpy_int.starter_margin == 2 and numpy_int.stop_at == (7, 4)
    assert repr(make_agent(meyer.Game(), "bluffer", lie_probability=0.25)) == repr(
        make_agent(meyer.Game(), "bluffer:lie_probability=1/4")
    )


@pytest.mark.parametrize("seed", [-1, 1.5, "a", True])
def test_a_bad_seed_is_named(seed):
    with pytest.raises(ValueError, match="a seed is a whole number >= 0 or None"):
        make_agent(tenthousand.Game(), "greedy", seed=seed)
    agent = make_agent(tenthousand.Game(), "greedy", seed=0)
    with pytest.raises(ValueError, match="reset: a seed is a whole number >= 0 or None"):
        agent.reset(seed)


def test_a_checkpoint_may_be_a_path_object():
    from_path = make_agent(syvere.Game(num_players=4), SHIPPED / "syvere")
    from_text = make_agent(syvere.Game(num_players=4), str(SHIPPED / "syvere"))
    assert type(from_path).__name__ == "TrainedAgent" and repr(from_path) == repr(from_text)


def test_the_agent_classes_are_in_the_public_surface():
    for name in ("HonestAgent", "BlufferAgent", "BayesianDoubter", "SyvereHeuristic", "GreedyAgent", "ThresholdAgent",
                 "DeterministicAgent", "check_fits"):  # fmt: skip
        assert name in agents.__all__ and hasattr(agents, name)


@pytest.mark.parametrize("spec", ["no_such_agent", "bluffer:lie_probability=x", "bluffer:nope=1", "random:", "x.y:Z"])
def test_a_bad_spec_is_an_invalid_spec_error(spec):
    with pytest.raises(InvalidSpecError) as info:
        make_agent(meyer.Game(), spec)
    assert isinstance(info.value, ValueError)


def test_an_engine_shows_its_options():
    assert repr(syvere.Game(num_players=4)) == (
        "syvere.Game(num_players=4, elimination=77, max_rolls=3, next_starter='right', first_starter=0)"
    )
    dk = tenthousand.Game(preset="dk")
    spelled = tenthousand.Game(**{k: v for k, v in dk.option_values().items() if k != "preset"})
    assert repr(dk).startswith("tenthousand.Game(num_players=2, preset='dk', ")
    assert {k: v for k, v in spelled.option_values().items() if k != "preset"} == {
        k: v for k, v in dk.option_values().items() if k != "preset"
    }


def test_check_fits_passes_what_reads_the_same_and_ignores_a_users_game_attribute():
    from agents import check_fits

    class Named:  # a user's own "game" attribute, not an engine
        name = "meyer"

    class Mine:
        game = Named()

        def act(self, observation, action_mask):
            return 0

    check_fits(Mine(), meyer.Game(), "here")  # nothing to compare: passes
    check_fits(make_agent(meyer.Game(), "random"), meyer.Game(num_players=4, lives=2), "here")  # reads the mask only
    spelled = {k: v for k, v in tenthousand.Game(preset="dk").option_values().items() if k != "preset"}
    check_fits(make_agent(tenthousand.Game(preset="dk"), "heuristic"), tenthousand.Game(**spelled), "here")
    with pytest.raises(InvalidSpecError, match="RandomAgent was built for meyer, not syvere"):
        check_fits(make_agent(meyer.Game(), "random"), syvere.Game(), "here")


def test_numpy_scalars_are_values_of_their_kind():
    agent = make_agent(meyer.Game(), "bluffer", reroll=np.True_, lie_probability=np.float64(0.25))
    assert agent.reroll is True or agent.reroll == np.True_
