"""Meyer edges from a review: indifference in describe_level, claim spellings in string_to_action,
per-seat `play --opponents`, and an honest solve-time estimate."""

import io
import sys

import numpy as np
import pytest

import dice_envs.play as play_module
from agents.solvers import meyer as solver
from agents.solvers.meyer import Rules, make_game
from dice_envs import cli
from dice_envs.games import meyer


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("meyer_edges_cache")


def _rows(lines):
    """{dice name: (the row's text)} of describe_level's dice lines."""
    return {line.split(":", 1)[0].split()[1]: line for line in lines if line.startswith("  dice ")}


def _ties(row: str) -> list[str]:
    if "[indifferent:" not in row:
        return []
    listed = row.split("[indifferent: ", 1)[1].split(" equally good", 1)[0]
    return listed.split(", ")


# -- 1. describe_level marks indifference -------------------------------------------------------
def test_an_arbitrary_underclaim_is_marked_indifferent(cache):
    # Over 54 with one life each, every claim is doubted: any true claim wins, any lie loses, so
    # the roller is indifferent among the true claims (or, with no true one, among all claims).
    game = make_game({"lives": 1})
    rules = Rules(game)
    lines = solver.describe_level({"lives": 1}, beat="54", cache_dir=cache)
    assert len(lines) == 1 + meyer.NUM_CLAIMS + 2  # the layout is kept: header, dice rows, doubts, note
    rows = _rows(lines)
    assert rows["64"].startswith("  dice 64: 63 1.000") and "indifferent" in rows["64"]
    assert _ties(rows["64"]) == ["64", "63", "62", "61", "54"]
    b = game.rank[meyer.claim_index("54")]
    name = [meyer.CLAIM_NAMES[c] for c in game.claim_of_rank]
    for d in range(meyer.NUM_CLAIMS):
        true_claims = [name[y] for y in rules.legal[b][::-1] if rules.true[d, y]]
        row = rows[name[d]]
        if len(true_claims) == 1:  # dice 54: the one true claim is strictly best
            assert "indifferent" not in row
        elif not true_claims:  # every claim is a lie and loses alike
            assert "[indifferent: every action equally good" in row
        elif len(true_claims) == len(rules.legal[b]):
            assert "[indifferent: every action equally good" in row
        else:
            assert _ties(row) == true_claims, row


def test_strict_rows_are_not_marked_and_marked_rows_contain_what_is_played(cache):
    # Whatever is played with dice d must be among its equally good actions; an unmarked row plays one.
    for options, lives, beat in [
        ({"lives": 1}, None, None),
        ({"lives": 2, "blind_reroll": True}, (2, 2), "63"),
        ({"lives": 2, "blind_reroll": True}, (1, 2), None),
        ({"lives": 3, "claim_rule": "higher"}, (2, 3), "62"),
    ]:
        lines = solver.describe_level(options, lives=lives, beat=beat, cache_dir=cache)
        for dice, row in _rows(lines).items():
            played = [entry.split()[0] for entry in row.split(": ", 1)[1].split("  [")[0].split(", ")]
            ties = _ties(row)
            if not ties:
                assert len(played) == 1, row
            elif ties != ["every action"]:
                assert set(played) <= set(ties), row
    start = _rows(solver.describe_level({"lives": 1}, cache_dir=cache))
    assert "indifferent" not in start["21"] and "indifferent" not in start["54"]  # the truth is strictly best


def test_indifference_is_read_from_values_that_reproduce_the_level_value(cache):
    # The roller's action values used for the marks give back the solver's value of the level.
    for options, (r, o), b in [({"lives": 2, "blind_reroll": True}, (2, 1), 5), ({"lives": 3}, (3, 2), -1)]:
        game = make_game(options)
        tables = solver.load_tables(solver.solution_options(game), cache_dir=cache)
        rules = Rules(game)
        L = game.lives
        U = np.full((L + 1, L + 1), np.nan)
        U[1:, 1:] = tables["value"][:, :, 0]
        win, lose = solver.outcome_values(rules, U, r, o)
        k = (r - 1, o - 1, b + 1)
        believe = np.nan_to_num(-tables["value"][o - 1, r - 1, 1:], nan=0.0)
        q = tables["doubt"][k][:, 0]
        Q = (q * np.where(rules.true, win, lose) + (1 - q) * believe)[:, list(rules.legal[b])]
        if rules.blind and b >= 0:
            qb = tables["doubt"][k][:, 1]
            blind = qb * (rules.fresh_true * win + (1 - rules.fresh_true) * lose) + (1 - qb) * believe
            Q = np.column_stack([Q, np.full(meyer.NUM_CLAIMS, blind[list(rules.legal[b])].max())])
        best = Q.max(axis=1)
        assert abs(rules.p @ best - tables["value"][k]) < 1e-9
        ties, _ = solver._indifference(game, tables, r, o, b)
        equal = (Q >= best[:, None] - solver.INDIFFERENT).sum(axis=1)
        assert [len(t) for t in ties] == [int(n) if n > 1 else 0 for n in equal]
        assert any(ties) and not all(ties)


def test_a_pure_doubt_among_equals_is_marked_and_a_mixed_one_is_not(cache):
    *_, doubts, note = solver.describe_level({"lives": 1}, beat="54", cache_dir=cache)
    assert note == "  " + solver.OFF_PATH_NOTE
    entries = doubts.split(": ", 1)[1].split(", ")
    assert "63 1.000 (indifferent: believing is as good)" in entries
    assert "31* 1.000" in entries  # off the path: the * note covers it
    *_, start, _ = solver.describe_level({"lives": 1}, cache_dir=cache)
    assert "21 0.594" in start.split(": ", 1)[1].split(", ")  # a mix: not marked
    summary = solver.cli_summary({"lives": 1}, cache_dir=cache, progress=False)["lines"]
    first = next(line for line in summary if line.startswith("first claim of a round"))
    assert "hands are indifferent between claims" in first


def test_the_strategy_and_values_are_unchanged(cache):
    t = solver.load_tables({"lives": 1}, cache_dir=cache)
    assert round(float(t["game_value"]), 6) == 0.233096
    game = make_game({"lives": 1})
    b = game.rank[meyer.claim_index("54")]
    assert t["claim"][0, 0, b + 1, game.rank[meyer.claim_index("64")], game.rank[meyer.claim_index("63")]] > 0.999


# -- 2. string_to_action takes claim_index's spellings ------------------------------------------
def test_string_to_action_accepts_either_digit_order_and_stays_canonical():
    game = meyer.Game(num_players=2)
    state = game.apply_chance(game.initial_state(), (2, 1))
    for c, name in enumerate(meyer.CLAIM_NAMES):
        action = meyer.FIRST_CLAIM + c
        assert game.action_to_string(state, action) == f"claim {name}"
        for text in (f"claim {name}", f"claim {name[::-1]}", f"  CLAIM  {name[1]} {name[0]} "):
            assert meyer.claim_index(text.split(None, 1)[1]) == c
            assert game.string_to_action(state, text) == action, text
        assert game.string_to_action(state, game.action_to_string(state, action)) == action
    assert game.string_to_action(state, "claim 12") == game.string_to_action(state, "claim 21")


@pytest.mark.parametrize("text", ["claim 17", "claim 7", "claim", "claim 123", "claims 12", "12"])
def test_string_to_action_still_refuses_what_is_not_a_claim(text):
    game = meyer.Game(num_players=2)
    state = game.apply_chance(game.initial_state(), (2, 1))
    with pytest.raises(ValueError, match="not a legal action here"):
        game.string_to_action(state, text)


def test_an_illegal_claim_is_refused_in_the_persons_spelling():
    game = meyer.Game(num_players=2)
    state = game.apply_chance(game.initial_state(), (6, 6))
    state = game.apply_action(state, game.string_to_action(state, "claim 66"))
    state = game.apply_action(state, meyer.BELIEVE)
    state = game.apply_chance(state, (5, 4))
    with pytest.raises(ValueError, match="'claim 45' is not a legal action here"):
        game.string_to_action(state, "claim 45")
    assert game.action_to_string(state, game.string_to_action(state, "claim 12")) == "claim 21"


# -- 3. play --opponents: one SPEC per other seat, or one for all ------------------------------
@pytest.fixture
def recorded(monkeypatch):
    """The SPECs play builds its opponents from, in order; stdin says q at the first prompt."""
    built = []
    real = play_module.make_agent

    def record(game, spec, seed=None, **params):
        built.append(spec)
        return real(game, spec, seed=seed, **params)

    monkeypatch.setattr(play_module, "make_agent", record)
    monkeypatch.setattr(sys, "stdin", io.StringIO("q\n" * 5))
    return built


def test_play_takes_one_spec_per_other_seat(recorded, capsys):
    assert cli.main(["play", "meyer", "--num-players", "3", "--opponents", "honest", "doubter"]) == 0
    out = capsys.readouterr().out
    assert "against honest (player_1), doubter (player_2)" in out and "You left the game." in out
    assert recorded == ["honest", "doubter"]
    recorded.clear()
    argv = ["play", "meyer", "--num-players", "3", "--seat", "1", "--lives", "2", "--opponents", "doubter", "honest"]
    assert cli.main(argv) == 0
    assert "you are player_1, against doubter (player_0), honest (player_2)" in capsys.readouterr().out
    assert recorded == ["doubter", "honest"]


def test_play_takes_one_spec_for_every_seat_given_once_or_repeated(recorded, capsys):
    assert cli.main(["play", "meyer", "--num-players", "3", "--opponents", "honest"]) == 0
    assert "against 2 x honest." in capsys.readouterr().out
    assert cli.main(["play", "meyer", "--num-players", "3", "--opponents", "honest", "honest"]) == 0
    assert "against 2 x honest." in capsys.readouterr().out
    assert recorded == ["honest"] * 4
    assert cli.main(["play", "--opponents", "honest", "meyer"]) == 0  # the game after the SPEC
    assert "meyer: you are player_0, against 1 x honest." in capsys.readouterr().out


def test_play_equilibrium_twice_at_three_players_is_not_a_game_option_error(recorded, capsys):
    argv = ["play", "meyer", "--num-players", "3", "--opponents", "equilibrium", "equilibrium"]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert "game option" not in err and "two-player Meyer" in err


@pytest.mark.parametrize(
    "argv, seats",
    [
        (["play", "meyer", "--opponents", "honest", "doubter"], "1 here: player_1"),
        (["play", "meyer", "--num-players", "3", "--opponents", "honest", "doubter", "random"], "2 here: player_1, player_2"),
        (["play", "meyer", "--num-players", "4", "--seat", "2", "--opponents", "honest", "doubter"],
         "3 here: player_0, player_1, player_3"),
    ],
)  # fmt: skip
def test_play_with_the_wrong_number_of_specs_says_how_many(recorded, capsys, argv, seats):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert "--opponents takes one SPEC for every other seat, or one SPEC per other seat" in err
    assert seats in err and "'doubter'" in err and "game option" not in err
    assert recorded == []


# -- 4. the solve-time estimate ------------------------------------------------------------------
def test_solve_time_is_near_the_measured_time():
    assert solver.solve_time(make_game({"lives": 6})) == "about 6 s"
    assert solver.solve_time(make_game({"lives": 1})) == "a few seconds"
    assert solver.solve_time(make_game({"lives": 20})).endswith("min")
    # The estimate is a constant per lives pair (measured 5.6 s at 6 lives, 24.7 s at 12 on the
    # 2-core machine); timings are left to measurements, not tests.
    assert solver.solve_time(make_game({"lives": 12})) == "about 20 s"


def test_a_player_out_of_lives_has_a_settled_return():
    """ME-7 (last_standing): an out player can no longer win, so its C-3 return is fixed at the
    losers' share before the game ends; players still in have none yet; at the end, the returns."""
    game = meyer.Game(num_players=3, lives=1)
    state = game.apply_chance(game.initial_state(), (2, 1))
    state = game.apply_action(state, meyer.FIRST_CLAIM + meyer.claim_index("21"))
    state = game.apply_action(state, meyer.DOUBT)  # seat 1 doubts a true 21 and is out
    assert not game.is_terminal(state) and game.scores(state) == (1, 0, 1)
    assert [game.settled_return(state, s) for s in range(3)] == [None, -0.5, None]
    duel = meyer.Game(num_players=2, lives=1)
    state = duel.apply_chance(duel.initial_state(), (2, 1))
    state = duel.apply_action(duel.apply_action(state, meyer.FIRST_CLAIM + meyer.claim_index("21")), meyer.DOUBT)
    assert duel.is_terminal(state) and [duel.settled_return(state, s) for s in range(2)] == [1.0, -1.0]
