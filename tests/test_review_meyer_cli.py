"""A Meyer reviewer's findings on the command line: games that never end (--max-decisions), agent
classes without a ``seed`` keyword, checkpoint paths with parameters, and a training run's directory
given where its checkpoint was meant."""

from __future__ import annotations

import sqlite3
import textwrap

import numpy as np
import pytest

from agents import make_agent
from agents.spec import parse_spec
from dice_envs import cli
from dice_envs.games import meyer

AGENTS = textwrap.dedent(
    '''
    import numpy as np
    from agents import Agent
    from dice_envs.games import meyer


    class AlwaysBelieve(Agent):
        """Never doubts when believing is allowed; claims the lowest legal value: under
        claim_rule="at_least" two of them never end a round."""

        def action_probabilities(self, observation, action_mask):
            p = np.zeros(self.game.num_actions)
            if action_mask[meyer.BELIEVE]:
                p[meyer.BELIEVE] = 1
            elif action_mask[meyer.DOUBT]:
                p[meyer.DOUBT] = 1
            else:
                legal = [a for a in np.flatnonzero(action_mask) if a >= meyer.FIRST_CLAIM]
                p[min(legal, key=lambda a: self.game.rank[a - meyer.FIRST_CLAIM])] = 1
            return p


    class NoSeed(Agent):
        def __init__(self, game):
            super().__init__(game)

        def action_probabilities(self, observation, action_mask):
            return np.asarray(action_mask, dtype=float) / action_mask.sum()


    class BrokenInside(Agent):
        def __init__(self, game, seed=None):
            super().__init__(game, seed)
            len(5)  # a TypeError of the class's own body

        def action_probabilities(self, observation, action_mask):
            return np.asarray(action_mask, dtype=float) / action_mask.sum()


    class SeedOnly(Agent):
        def __init__(self, seed=None):
            pass

        def action_probabilities(self, observation, action_mask):
            return np.asarray(action_mask, dtype=float) / action_mask.sum()


    class TakesAnything(Agent):
        def __init__(self, game, **kwargs):
            super().__init__(game, kwargs.get("seed"))

        def action_probabilities(self, observation, action_mask):
            return np.asarray(action_mask, dtype=float) / action_mask.sum()
    '''
)


@pytest.fixture
def mod(tmp_path, monkeypatch):
    """The name of a module of the user's holding the agents above, importable from sys.path."""
    name = f"reviewmeyer_{abs(hash(str(tmp_path))) % 10**8}"
    (tmp_path / f"{name}.py").write_text(AGENTS)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    return name


def one_line_error(capsys) -> str:
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip() and not line.lstrip().startswith(("[", "Building"))]
    assert lines and lines[-1].startswith("dice-envs: "), err
    assert "Traceback" not in err, err
    return lines[-1]


def games_in(db) -> dict[str, int]:
    conn = sqlite3.connect(db)
    try:
        return dict(conn.execute("SELECT table_key, COUNT(*) FROM games GROUP BY table_key").fetchall())
    finally:
        conn.close()


# -- A: games that never end ---------------------------------------------------------------------
def test_a_tournament_that_never_ends_stops_with_one_line_naming_the_agents_and_the_flag(mod, tmp_path, capsys):
    db = tmp_path / "t.sqlite"
    words = ["tournament", "meyer", "--agents", f"{mod}:AlwaysBelieve", "honest", f"{mod}:AlwaysBelieve",
             "--games", "3", "--max-decisions", "1000", "--workers", "1", "--quiet", "--db", str(db)]  # fmt: skip
    assert cli.main(words) == 2
    line = one_line_error(capsys)
    assert f"'{mod}:AlwaysBelieve' and '{mod}:AlwaysBelieve#2'" in line
    assert "1,000 decisions" in line and "--max-decisions" in line and "claim_rule='at_least'" in line
    # The store holds every game that ended (the tables with honest) and none of the endless table.
    stored = games_in(db)
    assert stored == {f"honest|{mod}:AlwaysBelieve": 6, f"honest|{mod}:AlwaysBelieve#2": 6}
    # Run again: the same error, nothing written twice or half; the tables that end resume as done.
    assert cli.main(words) == 2
    assert "1,000 decisions" in one_line_error(capsys)
    assert games_in(db) == stored
    assert cli.main([*words[:3], f"{mod}:AlwaysBelieve", "honest", *words[6:]]) == 0
    assert "played 0 new games" in capsys.readouterr().out


def test_a_match_that_never_ends_stops_with_one_line(mod, monkeypatch, capsys):
    import evaluate.match
    from evaluate.tournament import GameTooLong

    with pytest.raises(GameTooLong, match=r"not over after 1,000 decisions"):
        evaluate.match.play_match("meyer", [f"{mod}:AlwaysBelieve"] * 2, 3, max_decisions=1000)
    assert issubclass(GameTooLong, ValueError)
    with pytest.raises(ValueError, match="--max-decisions must be a whole number >= 1"):
        evaluate.match.play_match("meyer", ["honest", "random"], 3, max_decisions=0)
    # The command line (its default cap is a million decisions, ~10 s: the test's is a thousand).
    argv = ["match", "meyer", "--agents", f"{mod}:AlwaysBelieve", f"{mod}:AlwaysBelieve", "--games", "3"]
    code = cli.main([*argv, "--max-decisions", "1000"])
    assert code == 2
    line = one_line_error(capsys)
    assert f"'{mod}:AlwaysBelieve' and '{mod}:AlwaysBelieve#2'" in line and "--max-decisions" in line


def test_the_cap_counts_decisions_and_games_under_it_are_unchanged():
    from evaluate.match import play_match

    base = play_match("meyer", ["honest", "doubter"], 6, seed=3)
    capped = play_match("meyer", ["honest", "doubter"], 6, seed=3, max_decisions=200)
    assert [(r.share_sum, r.return_sum) for r in base.records] == [(r.share_sum, r.return_sum) for r in capped.records]


def test_games_finished_before_an_endless_one_reach_the_store(mod):
    from evaluate.tournament import GameTooLong, build_game, play_tasks, schedule

    game = build_game("meyer", {"num_players": 2})
    agents = {"a": make_agent(game, "honest"), "b": make_agent(game, f"{mod}:AlwaysBelieve"),
              "c": make_agent(game, f"{mod}:AlwaysBelieve")}  # fmt: skip
    tasks = schedule(["a", "b", "c"], 2, 2, 0, max_decisions=500)
    assert [t.table for t in tasks][-1] == ("b", "c") and all(t.max_decisions == 500 for t in tasks)
    stored = []
    with pytest.raises(GameTooLong):
        play_tasks("meyer", {"num_players": 2}, [], ["a", "b", "c"], tasks, workers=1, on_records=stored.extend,
                   game=game, agents=agents)  # fmt: skip
    assert {r.task.table for r in stored} == {("a", "b"), ("a", "c")} and len(stored) == 8


def test_max_decisions_is_refused_unless_a_whole_number(capsys):
    assert cli.main(["tournament", "meyer", "--agents", "honest", "random", "--games", "1", "--no-db",
                     "--max-decisions", "0"]) == 2  # fmt: skip
    assert "--max-decisions: the number of decisions per game is a whole number >= 1, not 0" in capsys.readouterr().err


# -- B: a class built without seed= ------------------------------------------------------------------
@pytest.mark.parametrize(
    "words",
    [
        ["match", "meyer", "--agents", "{mod}:NoSeed", "honest", "--games", "2"],
        ["tournament", "meyer", "--agents", "{mod}:NoSeed", "honest", "--games", "1", "--no-db", "--quiet"],
        ["solve", "meyer", "--lives", "2", "--exploitability", "{mod}:NoSeed"],
    ],
)
def test_a_class_without_a_seed_keyword_is_a_one_line_error(mod, words, capsys):
    assert cli.main([w.format(mod=mod) for w in words]) == 2
    line = one_line_error(capsys)
    assert f"{mod}.NoSeed must be built as CLASS(game, seed=..., **params)" in line


def test_a_class_taking_only_a_seed_is_told_it_needs_the_game(mod):
    with pytest.raises(ValueError, match=r"SeedOnly must be built as CLASS\(game, seed=\.\.\., \*\*params\)"):
        make_agent(meyer.Game(), f"{mod}:SeedOnly")


def test_type_errors_inside_a_constructor_are_the_users_and_kwargs_take_the_seed(mod):
    with pytest.raises(TypeError, match="has no len"):
        make_agent(meyer.Game(), f"{mod}:BrokenInside")
    assert make_agent(meyer.Game(), f"{mod}:TakesAnything", seed=3) is not None


# -- C and D: checkpoints ---------------------------------------------------------------------------
@pytest.fixture
def run_dir(tmp_path):
    """A training run's directory: its checkpoint in RUN/policy (small random weights)."""
    from agents.checkpoint import save_checkpoint

    engine = meyer.Game(num_players=2)
    rng = np.random.default_rng(0)
    size = len(engine.observation_low)
    layers = [(rng.normal(size=(8, size)), rng.normal(size=8))]
    action = (rng.normal(size=(engine.num_actions, 8)), rng.normal(size=engine.num_actions))
    save_checkpoint(tmp_path / "run1" / "policy", engine, layers, action)
    return tmp_path / "run1"


def test_a_checkpoint_path_takes_the_trained_agents_parameters(run_dir, capsys):
    policy = str(run_dir / "policy")
    assert parse_spec("meyer", f"{policy}:greedy=false") == (run_dir / "policy", {"greedy": False})
    assert make_agent(meyer.Game(), f"{policy}:greedy=false").greedy is False
    assert make_agent(meyer.Game(), policy).greedy is True
    code = cli.main(["match", "meyer", "--agents", f"{policy}:greedy=false", policy, "--games", "4"])
    assert code == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert "run1:greedy=false" in out and "\nrun1 " in out  # two entrants, told apart
    assert cli.main(["match", "meyer", "--agents", f"{policy}:colour=red", "honest", "--games", "2"]) == 2
    assert "has no parameter 'colour'; its parameters: greedy (bool)" in one_line_error(capsys)


def test_train_evaluate_reads_a_checkpoint_paths_parameters(run_dir, capsys):
    """`train --evaluate RUN/policy:greedy=false` samples the policy, as the SPEC says."""
    from train.benchmark import benchmark

    policy = str(run_dir / "policy")
    greedy = benchmark("meyer", None, policy, ["honest"], 3, progress=False)
    sampled = benchmark("meyer", None, f"{policy}:greedy=false", ["honest"], 3, progress=False)
    capsys.readouterr()
    assert greedy[0]["greedy"] is True and sampled[0]["greedy"] is False


def test_only_a_trailing_suffix_of_an_existing_path_is_read_as_parameters(tmp_path, monkeypatch):
    from agents.spec import split_checkpoint_spec

    odd = tmp_path / "a:greedy=false"  # a directory whose name holds ':' stays a path
    odd.mkdir()
    assert split_checkpoint_spec(str(odd)) is None
    assert parse_spec("meyer", str(odd)) == (odd, {})
    assert split_checkpoint_spec(str(tmp_path / "missing") + ":greedy=false") is None
    assert split_checkpoint_spec("C:\\runs\\x") is None
    monkeypatch.chdir(tmp_path)
    (tmp_path / "policy").mkdir()
    assert split_checkpoint_spec("policy:greedy=false") == ("policy", "greedy=false")


def test_a_training_runs_directory_points_at_its_policy(run_dir, capsys):
    assert cli.main(["match", "meyer", "--agents", str(run_dir), "honest", "--games", "2"]) == 2
    line = one_line_error(capsys)
    assert "policy.json is missing" in line and repr(str(run_dir / "policy")) in line
