"""The OpenSpiel adapter (dice_envs.openspiel): pyspiel's own checks, exact chance, and the same
games, information states and returns as the PettingZoo env (C-3, ME-2, ME-3, ME-4, TT-9, TT-10)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from dice_envs import openspiel as dos  # noqa: E402  (after the skip: needs the [openspiel] extra)
from dice_envs.registry import env_module  # noqa: E402

SMALL = {
    "syvere": "python_dice_syvere(players=3,elimination=30)",
    "tenthousand": "python_dice_tenthousand(target=1000,opening=300)",
    "tenthousand_no": "python_dice_tenthousand_no(players=3,target=1500)",
    "tenthousand_farkle": "python_dice_tenthousand_farkle(target=1500,exact_target=true)",
    "meyer": "python_dice_meyer(players=3,lives=2,blind_reroll=true)",
}


@pytest.mark.parametrize("variant", sorted(SMALL))
def test_pyspiels_own_random_simulation_check_passes(variant):
    """pyspiel.random_sim_test plays games and checks legal actions, chance probabilities summing
    to 1, cloning, returns at the end and (with serialize) a state rebuilt from its history."""
    game = pyspiel.load_game(SMALL[variant])
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def test_the_games_are_registered_with_the_engines_facts():
    names = set(pyspiel.registered_names())
    assert {dos.short_name(v) for v in dos.VARIANTS} <= names
    meyer = pyspiel.load_game("python_dice_meyer")
    assert meyer.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert meyer.num_distinct_actions() == env_module("meyer").raw_env().action_space("player_0").n == 24
    assert meyer.max_chance_outcomes() == 27 and meyer.num_players() == 2  # ids of 1 and 2 dice: 6 + 21
    assert (meyer.min_utility(), meyer.max_utility(), meyer.utility_sum()) == (-1.0, 1.0, 0.0)
    syvere = pyspiel.load_game("python_dice_syvere(players=8)")  # OpenSpiel's name for the player count
    assert syvere.get_type().information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert syvere.num_players() == 8 and syvere.engine.num_players == 8
    assert syvere.max_chance_outcomes() == 6 + 21 + 56 + 126 + 252 + 462  # every roll of one to six dice
    assert syvere.get_parameters()["max_rolls"] == 3 and "num_players" not in syvere.get_parameters()


def test_each_10000_preset_is_a_game_with_its_values_as_defaults():
    from dice_envs.games.tenthousand import PRESETS
    from evaluate.tournament import effective_options

    for variant, preset in (("tenthousand", "dk"), ("tenthousand_no", "no"), ("tenthousand_farkle", "farkle")):
        game = pyspiel.load_game(dos.short_name(variant))
        params = game.get_parameters()
        assert {k: params[k] for k in PRESETS[preset]} == PRESETS[preset]
        assert effective_options("tenthousand", game.engine) == effective_options(
            "tenthousand", env_module("tenthousand").raw_env(preset=preset).game
        )
    # TT-9 as the env reads it: a smaller target lowers the preset's opening, a given one above it is
    # refused; the parameters say what the engine plays by, and load back to the same game.
    small = pyspiel.load_game("python_dice_tenthousand(target=500)")
    assert small.engine.opening == small.get_parameters()["opening"] == 500
    assert small.get_parameters()["min_bank"] == 300 and "opening=500" in str(small)
    assert pyspiel.load_game(str(small)).get_parameters() == small.get_parameters()
    with pytest.raises(Exception, match="python_dice_tenthousand: opening 800 is above the target 500"):
        pyspiel.load_game("python_dice_tenthousand(target=500,opening=800)")
    with pytest.raises(Exception, match="Unknown parameter 'preset'"):
        pyspiel.load_game("python_dice_tenthousand(preset=no)")
    # a refusal names OpenSpiel's parameter (players), not the engine's option (num_players)
    with pytest.raises(ValueError, match=r"^python_dice_meyer: players must be 2\.\.8, got 9$"):
        pyspiel.load_game("python_dice_meyer(players=9)")


def test_chance_is_exact_and_named_as_the_rules_name_rolls():
    game = pyspiel.load_game("python_dice_meyer")
    state = game.new_initial_state()
    outcomes = dict(state.chance_outcomes())
    assert len(outcomes) == 21 and sum(outcomes.values()) == pytest.approx(1.0, abs=1e-12)
    assert outcomes[dos.chance_action((1, 1))] == 1 / 36 and outcomes[dos.chance_action((2, 1))] == 1 / 18
    assert dos.chance_action((2, 1)) == 7 and dos.roll_of(7) == (1, 2)  # ids 0-5 are one die
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, 7) == "roll 21"  # ME-2
    # A chance id names one roll whatever the state: a trajectory reads back the same afterwards.
    state.apply_action(7)
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, 7) == "roll 21"
    syvere = pyspiel.load_game("python_dice_syvere").new_initial_state()
    assert syvere.action_to_string(pyspiel.PlayerId.CHANCE, dos.chance_action((6,) * 6)) == "roll 666666"
    with pytest.raises(Exception, match="chance action 0 rolls 1 dice; 2 are rolled here"):
        game.new_initial_state().apply_action(dos.chance_action((1,)))
    probabilities = dict(syvere.chance_outcomes())
    assert len(probabilities) == 462
    # six 1s: (1/6)^6; 123456: 6!/6^6
    assert probabilities[dos.chance_action((1,) * 6)] == pytest.approx(float(Fraction(1, 6**6)), rel=1e-12)
    assert probabilities[dos.chance_action((1, 2, 3, 4, 5, 6))] == pytest.approx(float(Fraction(720, 6**6)), rel=1e-12)
    with pytest.raises(ValueError, match=r"chance action 923 is not a roll \(ids 0 .. 922\)"):
        dos.roll_of(923)


@pytest.mark.parametrize("game_name,options", [("meyer", {"num_players": 3, "lives": 2, "blind_reroll": True}),
                                               ("syvere", {"num_players": 3}),
                                               ("tenthousand", {"preset": "no", "target": 2000})])  # fmt: skip
def test_a_game_of_the_env_replays_in_openspiel_with_the_same_views_and_returns(game_name, options):
    """The env's game (its rolls and moves) replayed as OpenSpiel actions: every information state
    string equals the env's (ME-3: a roll hidden from the others), the observation tensor is the
    env's observation, and the returns are the env's C-3 returns."""
    env = env_module(game_name).raw_env(**options)
    env.reset(seed=7)
    rng = np.random.default_rng(3)
    views = []
    while env.agents:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        observation = env.observe(agent)
        views.append((len(env.history), int(agent.split("_")[1]), observation["observation"].copy()))
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    variant = "tenthousand_no" if game_name == "tenthousand" else game_name
    params = {("players" if k == "num_players" else k): v for k, v in options.items() if k != "preset"}
    game = pyspiel.load_game(dos.short_name(variant), params)
    from dice_envs.information import information_events, information_string

    state = game.new_initial_state()
    for i, event in enumerate(env.history):
        for n, seat, observation in views:
            if n == i:
                assert state.current_player() == seat
                assert np.array_equal(state.observation_tensor(seat), observation.astype(np.float32))
        if event[0] == "chance":
            assert state.is_chance_node()
            action = dos.chance_action(event[1])
            assert action in dict(state.chance_outcomes())
        else:
            action = event[2]
            assert action in state.legal_actions()
        state.apply_action(action)
        for seat in range(game.num_players()):  # each seat's string as it grows, step by step
            expected = information_string(env.game, information_events(env.game, seat, env.history[: i + 1]))
            assert state.information_state_string(seat) == expected
    assert state.is_terminal()
    assert state.returns() == list(env.game.returns(env.game_state))
    for seat, agent in enumerate(env.possible_agents):
        assert state.information_state_string(seat) == env.information_state_string(agent)
    if game_name == "meyer":
        seen = state.information_state_string(1)
        assert "dice unseen" in seen and "revealed" in seen


def test_a_game_past_the_length_cap_raises_instead_of_inventing_a_result(monkeypatch):
    monkeypatch.setattr(dos, "MAX_GAME_LENGTH", 50)
    game = pyspiel.load_game("python_dice_meyer")
    state = game.new_initial_state()
    with pytest.raises(RuntimeError, match="not over after 50 decisions"):
        for _ in range(100):  # "21" claimed and believed for ever (claim_rule=at_least)
            if state.is_chance_node():
                state.apply_action(dos.chance_action((1, 2)))
            else:
                legal = state.legal_actions()
                names = {state.action_to_string(state.current_player(), a): a for a in legal}
                state.apply_action(names.get("believe", names.get("claim 21")))
    assert state.decisions == 50  # decisions only: the rolls between them are not counted


def test_observers_honour_openspiels_observation_types():
    """The public observation (no private information) shows no hidden roll (ME-3, ME-8); private
    information of every player is refused; there is no information-state tensor to be had."""
    from open_spiel.python.observation import make_observation

    game = pyspiel.load_game("python_dice_meyer")
    state = game.new_initial_state()
    state.apply_action(dos.chance_action((5, 4)))
    own = make_observation(game, pyspiel.IIGObservationType(perfect_recall=False))
    public = make_observation(game, pyspiel.IIGObservationType(perfect_recall=False,
                                                               private_info=pyspiel.PrivateInfoType.NONE))  # fmt: skip
    own.set_from(state, 0)
    public.set_from(state, 0)
    assert not np.array_equal(own.tensor, public.tensor)
    assert np.array_equal(public.tensor, game.engine.observe(state.engine_state._replace(seen_by=-1), 0))
    other = make_observation(game, pyspiel.IIGObservationType(perfect_recall=False))
    other.set_from(state, 1)
    public.set_from(state, 1)
    assert np.array_equal(other.tensor, public.tensor)  # seat 1 never saw the dice anyway
    recall = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True,
                                                               private_info=pyspiel.PrivateInfoType.NONE))  # fmt: skip
    assert recall.string_from(state, 0) == "seat 0|roll 2 dice unseen"
    assert state.information_state_string(0) == "seat 0|roll 54"
    assert public.string_from(state, 0) != own.string_from(state, 0)
    with pytest.raises(Exception, match="no information-state tensor"):
        state.information_state_tensor(0)
    with pytest.raises(Exception, match="no observation holds every player's private information"):
        make_observation(game, pyspiel.IIGObservationType(perfect_recall=False,
                                                          private_info=pyspiel.PrivateInfoType.ALL_PLAYERS))  # fmt: skip


def test_games_and_the_solvers_holding_them_pickle():
    import pickle

    from open_spiel.python.algorithms import outcome_sampling_mccfr

    solver = outcome_sampling_mccfr.OutcomeSamplingSolver(pyspiel.load_game("python_dice_meyer(lives=1)"))
    np.random.seed(1)
    for _ in range(20):
        solver.iteration()
    again = pickle.loads(pickle.dumps(solver))
    state = again._game.new_initial_state()
    state.apply_action(dos.chance_action((3, 1)))
    assert again.average_policy().action_probabilities(state) == solver.average_policy().action_probabilities(state)

    game = pyspiel.load_game("python_dice_tenthousand_no(target=2000,players=3)")
    again = pickle.loads(pickle.dumps(game))
    assert type(again) is dos.TenthousandNoGame and again.get_parameters() == game.get_parameters()
    state = game.new_initial_state()
    state.apply_action(state.chance_outcomes()[0][0])
    copy = game.deserialize_state(state.serialize())
    assert copy.history() == state.history() and copy.information_state_string(1) == state.information_state_string(1)


def test_openspiels_algorithms_run_on_meyer():
    """Outcome-sampling MCCFR learns from the information state strings and gives a policy over the
    legal actions; rl_environment steps a game on the observation tensors."""
    from open_spiel.python import rl_environment
    from open_spiel.python.algorithms import outcome_sampling_mccfr

    game = pyspiel.load_game("python_dice_meyer(lives=1,claim_rule=higher)")
    solver = outcome_sampling_mccfr.OutcomeSamplingSolver(game)
    np.random.seed(0)
    for _ in range(200):
        solver.iteration()
    policy = solver.average_policy()
    state = game.new_initial_state()
    state.apply_action(dos.chance_action((5, 4)))
    probabilities = policy.action_probabilities(state)
    assert set(probabilities) == set(state.legal_actions()) and sum(probabilities.values()) == pytest.approx(1.0)
    env = rl_environment.Environment(game, observation_type=rl_environment.ObservationType.OBSERVATION)
    step = env.reset()
    while not step.last():
        player = step.observations["current_player"]
        step = env.step([step.observations["legal_actions"][player][0]])
    assert sorted(step.rewards) == [-1.0, 1.0]
