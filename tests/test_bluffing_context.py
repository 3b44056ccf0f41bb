"""Meyer's bluffing profile by context: answers by (claim to beat, claim), everything by lives and
by opponent, and forced doubts counted apart from chosen ones (CSV and JSON too).

The scripted games are small enough to count by hand; the counts in the comments are the ones
asserted.
"""

from __future__ import annotations

import csv
import json
import math
from types import SimpleNamespace

import pytest

from dice_envs.games import meyer
from evaluate.ratings import leaderboard
from evaluate.report import (
    BLUFFING_CONTEXT_CSV_COLUMNS,
    Rate,
    bluffing_profile,
    lives_key,
    write_report,
)
from evaluate.tournament import build_game, run_tournament
from meyer_records import scripted_record


def _profiles(game, games) -> dict:
    """Profiles of scripted games: ``games`` is a list of (seats, events)."""
    records = [scripted_record(game, seats, events) for seats, events in games]
    labels = sorted({label for seats, _ in games for label in seats})
    return bluffing_profile(game, records, labels)


# -- forced doubts ------------------------------------------------------------------------------
# claim_rule="higher", 2 lives, seats (a, b):
#   round 1: a rolls 54, claims 54; b believes (54 is true), rolls 61, claims 61 over 54;
#            a doubts (chosen) and is wrong: a 1, b 2. The doubter a starts.
#   round 2: a rolls 21, claims 21; b can only doubt (a forced doubt) and is wrong: a 1, b 1.
#   round 3: b rolls 43, claims 43; a believes (true), rolls 65, claims 65 over 43; b doubts
#            (chosen) and is wrong: b 0, the game is over.
HIGHER_GAME = (
    ("a", "b"),
    ["54", "claim 54", "believe", "61", "claim 61", "doubt",
     "21", "claim 21", "doubt",
     "43", "claim 43", "believe", "65", "claim 65", "doubt"],
)  # fmt: skip


def _higher():
    game = meyer.Game(num_players=2, lives=2, claim_rule="higher")
    return game, _profiles(game, [HIGHER_GAME])


def test_a_forced_doubt_of_meyer_is_counted_apart_and_left_out_of_the_doubt_rate():
    _, p = _higher()
    b = p["b"]
    # b's chosen answers: it believed 54 and doubted 65. The forced doubt of 21 is in neither.
    assert b.doubt_rate() == 0.5  # 1 chosen doubt of 2 choices; counted as chosen it was 2 of 3
    assert b.rate("doubt_rate") == Rate.of_counts(1, 2)
    assert b.responses_by_claim == {"54": 1, "65": 1}
    assert b.doubts_by_claim == {"65": 1} and b.correct_doubts_by_claim == {}
    assert b.believes_by_claim == {"54": 1} and b.believed_lies_by_claim == {}
    assert b.forced_doubts_by_claim == {"21": 1} and b.correct_forced_doubts_by_claim == {}
    assert math.isnan(b.doubt_rate("21")) and b.rate("doubt_rate", "21").of == 0
    assert b.rate("forced_doubt_accuracy") == Rate.of_counts(0, 1)  # the 21 was true
    a = p["a"]  # a's doubt of 61 is a choice: 61 over 54 could be believed under "higher"
    assert a.forced_doubts_by_claim == {} and a.doubts_by_claim == {"61": 1}
    assert a.responses_by_claim == {"61": 1, "43": 1} and a.believes_by_claim == {"43": 1}


def test_a_forced_doubt_that_wins_is_forced_and_correct():
    # a rolls 32 and claims 21 (a lie, nothing to beat); b can only doubt, and wins.
    game = meyer.Game(num_players=2, lives=1, claim_rule="higher")
    b = _profiles(game, [(("a", "b"), ["32", "claim 21", "doubt"])])["b"]
    assert b.responses_by_claim == {} == b.doubts_by_claim == b.correct_doubts_by_claim
    assert math.isnan(b.doubt_rate()) and math.isnan(b.doubt_accuracy())
    assert b.forced_doubts_by_claim == {"21": 1} == b.correct_forced_doubts_by_claim
    assert b.forced_doubt_accuracy() == 1.0
    # Under "at_least" a 21 may be believed (and then matched): the same doubt is a choice.
    game = meyer.Game(num_players=2, lives=1, claim_rule="at_least")
    b = _profiles(game, [(("a", "b"), ["32", "claim 21", "doubt"])])["b"]
    assert b.forced_doubts_by_claim == {} and b.doubts_by_claim == {"21": 1} == b.correct_doubts_by_claim
    assert b.doubt_rate() == 1.0


# -- by (claim to beat, claim) ------------------------------------------------------------------
# claim_rule="at_least", 1 life; x answers 63 three times:
#   g1 (y, x): y rolls 63, claims 63; x doubts: wrong (63 over start, doubted, true).
#   g2 (y, x): y rolls 41, claims 63; x believes (fooled: 63 over start, believed, a lie), rolls 64,
#              claims 64; y doubts, wrong.
#   g3 (y, x): y rolls 62, claims 62; x believes (62 over start, true), rolls 61, claims 62 (forced
#              lie over 62); y believes, rolls 51, claims 63 (forced lie over 62); x doubts: right
#              (63 over 62, doubted, a lie).
BEAT_GAMES = [
    (("y", "x"), ["63", "claim 63", "doubt"]),
    (("y", "x"), ["41", "claim 63", "believe", "64", "claim 64", "doubt"]),
    (("y", "x"), ["62", "claim 62", "believe", "61", "claim 62", "believe", "51", "claim 63", "doubt"]),
]


def _beat():
    game = meyer.Game(num_players=2, lives=1)
    return game, _profiles(game, BEAT_GAMES)


def test_answers_by_claim_to_beat_and_claim_count_exactly():
    _, p = _beat()
    x = p["x"]
    # Pooled over the claims to beat: 63 doubted 2 times of 3, 1 of the doubts right.
    assert x.responses_by_claim == {"63": 3, "62": 1} and x.doubts_by_claim == {"63": 2}
    assert x.correct_doubts_by_claim == {"63": 1} and x.believed_lies_by_claim == {"63": 1}
    assert x.doubt_rate("63") == pytest.approx(2 / 3)
    assert list(x.by_claim_to_beat) == ["start", "62"]
    start, over62 = x.by_claim_to_beat["start"], x.by_claim_to_beat["62"]
    assert start.responses_by_claim == {"63": 2, "62": 1} and start.doubts_by_claim == {"63": 1}
    assert start.correct_doubts_by_claim == {} and start.believes_by_claim == {"63": 1, "62": 1}
    assert start.believed_lies_by_claim == {"63": 1}
    assert over62.responses_by_claim == {"63": 1} == over62.doubts_by_claim == over62.correct_doubts_by_claim
    assert over62.believes_by_claim == {}
    assert start.rate("doubt_rate", "63") == Rate.of_counts(1, 2)
    assert over62.rate("doubt_rate", "63") == Rate.of_counts(1, 1)
    assert start.doubt_accuracy("63") == 0.0 and over62.doubt_accuracy("63") == 1.0
    assert start.believed_lie_rate("63") == 1.0 and start.believed_lie_rate("62") == 0.0
    # Only answers are broken down by claim to beat; claims are keyed by it already.
    assert start.claims_by_beat == {} == over62.claims_by_beat
    # y answered x's 64 over 63 and x's 62 over 62.
    y = p["y"]
    assert list(y.by_claim_to_beat) == ["62", "63"]
    over63, over62 = y.by_claim_to_beat["63"], y.by_claim_to_beat["62"]
    assert over63.doubts_by_claim == {"64": 1} and over63.correct_doubts_by_claim == {}
    assert over62.believes_by_claim == {"62": 1} == over62.believed_lies_by_claim


def test_the_claim_to_beat_is_tracked_without_the_history_option():
    # history=0: the state keeps no claims, the replay still knows what each claim beat.
    game = meyer.Game(num_players=2, lives=1, history=0)
    x = _profiles(game, BEAT_GAMES)["x"]
    assert x.by_claim_to_beat["62"].doubts_by_claim == {"63": 1}
    assert x.by_claim_to_beat["start"].responses_by_claim == {"63": 2, "62": 1}


def test_a_breakdown_adds_up_to_the_whole():
    _, p = _beat()
    _, q = _higher()
    for profile in [*p.values(), *q.values()]:
        for name in ("by_claim_to_beat", "by_lives", "by_opponent"):
            parts = getattr(profile, name).values()
            fields = ["responses_by_claim", "doubts_by_claim", "correct_doubts_by_claim", "believes_by_claim",
                      "believed_lies_by_claim", "forced_doubts_by_claim",
                      "correct_forced_doubts_by_claim"]  # fmt: skip
            if name != "by_claim_to_beat":
                fields += ["claims_by_beat", "lies_by_beat", "free_claims_by_beat", "voluntary_lies_by_beat",
                           "forced_lies_by_beat"]  # fmt: skip
                assert sum(part.blind_claims for part in parts) == profile.blind_claims
            for f in fields:
                total: dict = {}
                for part in parts:
                    for key, n in getattr(part, f).items():
                        total[key] = total.get(key, 0) + n
                assert total == getattr(profile, f), (profile.label, name, f)


# -- by lives and by opponent -------------------------------------------------------------------
def test_by_lives_counts_exactly_in_a_two_player_game():
    _, p = _higher()
    a, b = p["a"], p["b"]
    # a's decisions: claim 54 (2-2), doubt 61 (2-2), claim 21 (1-2), believe 43 (1-1), claim 65 (1-1)
    assert list(a.by_lives) == ["1-1", "1-2", "2-2"]
    assert a.by_lives["2-2"].claims_by_beat == {"start": 1} and a.by_lives["2-2"].doubts_by_claim == {"61": 1}
    assert a.by_lives["1-2"].claims_by_beat == {"start": 1} and a.by_lives["1-2"].responses_by_claim == {}
    assert a.by_lives["1-1"].claims_by_beat == {"43": 1} and a.by_lives["1-1"].believes_by_claim == {"43": 1}
    # b's: believe 54 and claim 61 over 54 (2-2), forced doubt of 21 (2-1), claim 43 and doubt 65 (1-1)
    assert list(b.by_lives) == ["1-1", "2-1", "2-2"]
    assert b.by_lives["2-2"].believes_by_claim == {"54": 1} and b.by_lives["2-2"].claims_by_beat == {"54": 1}
    assert b.by_lives["2-1"].forced_doubts_by_claim == {"21": 1}
    assert b.by_lives["2-1"].responses_by_claim == {}
    assert b.by_lives["1-1"].claims_by_beat == {"start": 1} and b.by_lives["1-1"].doubts_by_claim == {"65": 1}
    assert b.by_lives["1-1"].doubt_rate() == 1.0 and b.by_lives["2-2"].doubt_rate() == 0.0
    # Two players: the opponent is the other player, for every decision.
    assert list(a.by_opponent) == ["b"] and list(b.by_opponent) == ["a"]
    assert b.by_opponent["a"].responses_by_claim == b.responses_by_claim
    assert b.by_opponent["a"].forced_doubts_by_claim == {"21": 1}


def test_lives_key_takes_the_lowest_lives_among_the_others_still_in():
    assert lives_key((6, 3), 0) == "6-3" and lives_key((6, 3), 1) == "3-6"
    assert lives_key((3, 1, 2), 0) == "3-1" and lives_key((3, 0, 2), 0) == "3-2"  # seat 1 is out


def test_three_players_by_lives_and_by_opponent():
    # 3 players, 2 lives, end="first_out", seats (a, b, c); every decision with its lives key and
    # opponent (for a claim the player who answers it, for an answer the claimer):
    #   a claims 54 (2-2, b); b believes 54 (2-2, a), claims 61 (2-2, c); c doubts 61 (2-2, b): wrong, c 1
    #   c claims 43 (1-2, a); a doubts 43 (2-1, c): wrong, a 1
    #   a claims 21 (1-1, b); b doubts 21 (2-1, a): wrong, b 1
    #   b claims 11 (1-1, c); c doubts 11 (1-1, b): wrong, c 0: the game is over
    game = meyer.Game(num_players=3, lives=2, end="first_out")
    events = ["54", "claim 54", "believe", "61", "claim 61", "doubt", "43", "claim 43", "doubt",
              "21", "claim 21", "doubt", "11", "claim 11", "doubt"]  # fmt: skip
    p = bluffing_profile(game, [scripted_record(game, ("a", "b", "c"), events)], ["a", "b", "c"])
    a, b, c = p["a"], p["b"], p["c"]
    claims = {k: v.claims_by_beat for k, v in a.by_lives.items()}
    assert claims == {"1-1": {"start": 1}, "2-1": {}, "2-2": {"start": 1}}
    assert a.by_lives["2-1"].doubts_by_claim == {"43": 1}
    assert {k: v.claims_by_beat for k, v in a.by_opponent.items()} == {"b": {"start": 2}, "c": {}}
    assert a.by_opponent["c"].doubts_by_claim == {"43": 1}
    assert b.by_opponent["a"].believes_by_claim == {"54": 1}
    assert b.by_opponent["a"].doubts_by_claim == {"21": 1}  # a 21 may be believed under "at_least"
    assert b.by_opponent["c"].claims_by_beat == {"54": 1, "start": 1}
    assert b.by_lives["2-2"].claims_by_beat == {"54": 1} and b.by_lives["2-1"].doubts_by_claim == {"21": 1}
    assert b.by_lives["1-1"].claims_by_beat == {"start": 1}
    assert list(c.by_lives) == ["1-1", "1-2", "2-2"] and c.by_lives["1-2"].claims_by_beat == {"start": 1}
    assert c.by_lives["2-2"].doubts_by_claim == {"61": 1} and c.by_lives["1-1"].doubts_by_claim == {"11": 1}
    assert {k: v.doubts_by_claim for k, v in c.by_opponent.items()} == {"a": {}, "b": {"61": 1, "11": 1}}
    assert c.by_opponent["a"].claims_by_beat == {"start": 1}


# -- the files ----------------------------------------------------------------------------------
def _write(tmp_path, game, games, options):
    records = [scripted_record(game, seats, events) for seats, events in games]
    labels = sorted({label for seats, _ in games for label in seats})
    result = SimpleNamespace(
        game_name="meyer", options=options, num_players=2, labels=labels, specs=labels, games=1, seed=0,
        dice="common", records=records, played_now=len(records), seconds=0.0, games_per_second=0.0,
        workers=1, db_path="",
    )  # fmt: skip
    write_report(str(tmp_path), result, leaderboard(labels, records, bootstrap=0), game)
    with open(tmp_path / "bluffing_by_context.csv") as handle:
        reader = csv.DictReader(handle)
        rows = list(reader)
    assert tuple(reader.fieldnames) == BLUFFING_CONTEXT_CSV_COLUMNS
    return rows, json.loads((tmp_path / "report.json").read_text())["bluffing"]


def _row(rows, **where):
    found = [r for r in rows if all(r[k] == v for k, v in where.items())]
    assert len(found) == 1, (where, found)
    return found[0]


def _check(row, count, of):
    r = Rate.of_counts(count, of)
    rate, low, high = r.rate, r.low, r.high
    assert (int(row["count"]), int(row["of"])) == (count, of)
    assert (row["rate"], row["low"], row["high"]) == (f"{rate:.5f}", f"{low:.5f}", f"{high:.5f}")


def test_the_context_csv_and_json_carry_the_counts_and_intervals(tmp_path):
    game = meyer.Game(num_players=2, lives=1)
    rows, data = _write(tmp_path, game, BEAT_GAMES, {"lives": 1})
    doubt63 = dict(agent="x", measure="doubt_rate_by_claim", claim="63")
    _check(_row(rows, context="claim_to_beat", claim_to_beat="start", **doubt63), 1, 2)
    _check(_row(rows, context="claim_to_beat", claim_to_beat="62", **doubt63), 1, 1)
    accuracy63 = dict(agent="x", measure="doubt_accuracy_by_claim", claim="63")
    _check(_row(rows, context="claim_to_beat", claim_to_beat="62", **accuracy63), 1, 1)
    _check(_row(rows, context="claim_to_beat", claim_to_beat="start", agent="x",
                measure="believed_lie_rate_by_claim", claim="all"), 1, 2)  # fmt: skip
    _check(_row(rows, context="lives", own_lives="1", other_lives="1", **doubt63), 2, 3)
    _check(_row(rows, context="opponent", opponent="y", **doubt63), 2, 3)
    # y's lie rates: 3 opening claims (one a lie: 41 as 63), 1 claim over 62 (a forced lie)
    _check(_row(rows, context="opponent", opponent="x", agent="y", measure="lie_rate_by_claim_to_beat",
                claim="start"), 1, 3)  # fmt: skip
    _check(_row(rows, context="lives", own_lives="1", other_lives="1", agent="y",
                measure="forced_lie_rate_by_claim_to_beat", claim="62"), 1, 1)  # fmt: skip
    for r in rows:  # a context's key columns, and those only
        keys = {"claim_to_beat": ["claim_to_beat"], "lives": ["own_lives", "other_lives"],
                "opponent": ["opponent"]}  # fmt: skip
        for column in ("claim_to_beat", "own_lives", "other_lives", "opponent"):
            assert (r[column] != "") == (column in keys[r["context"]]), r
    x = data["x"]
    assert x["by_claim_to_beat"]["62"]["doubts_by_claim"] == {"63": 1}
    start_rates = x["by_claim_to_beat"]["start"]["rates"]
    assert start_rates["doubt_rate"] == Rate.of_counts(1, 3).to_json()  # answers to 63, 63, 62
    assert x["by_lives"]["1-1"]["responses_by_claim"] == {"63": 3, "62": 1}
    assert x["by_opponent"]["y"]["doubts_by_claim"] == {"63": 2}
    assert "by_lives" not in x["by_lives"]["1-1"]  # a context has no breakdowns of its own


def test_the_files_report_forced_doubts_apart(tmp_path):
    game = meyer.Game(num_players=2, lives=2, claim_rule="higher")
    rows, data = _write(tmp_path, game, [HIGHER_GAME], {"lives": 2, "claim_rule": "higher"})
    with open(tmp_path / "bluffing.csv") as handle:
        overall = list(csv.DictReader(handle))
    _check(_row(overall, agent="b", measure="doubt_rate_by_claim", claim="all"), 1, 2)
    _check(_row(overall, agent="b", measure="forced_doubt_accuracy_by_claim", claim="21"), 0, 1)
    assert not [r for r in overall if r["measure"] == "doubt_rate_by_claim" and r["claim"] == "21"]
    _check(_row(rows, agent="b", context="lives", own_lives="2", other_lives="1",
                measure="forced_doubt_accuracy_by_claim", claim="21"), 0, 1)  # fmt: skip
    b = data["b"]
    assert b["forced_doubts_by_claim"] == {"21": 1} and b["correct_forced_doubts_by_claim"] == {}
    assert b["doubt_rate"] == 0.5 and b["rates"]["doubt_rate"] == Rate.of_counts(1, 2).to_json()
    assert b["by_claim_to_beat"]["start"]["forced_doubts_by_claim"] == {"21": 1}


# -- the equilibrium ----------------------------------------------------------------------------
def test_equilibrium_doubt_rates_by_claim_to_beat_match_its_tables(tmp_path, monkeypatch):
    """In 1-life self-play, the equilibrium doubts a claim of 63 or 64 with a probability set by the
    claim it beat (about 0.31 and 0.37 over 53 or lower, 1 over 54 and up): the rates by
    (claim to beat, claim) find those, the rates pooled over the claims to beat do not."""
    from agents.solvers.cache import ENV_VAR
    from agents.solvers.meyer import load_tables, solution_options

    monkeypatch.setenv(ENV_VAR, str(tmp_path))  # the solver's tables, not in the user's cache

    result = run_tournament(
        "meyer", ["equilibrium", "equilibrium"], games=6000, seed=5, workers=1, progress=False,
        options={"lives": 1},
    )  # fmt: skip
    game = build_game("meyer", {**result.options, "num_players": 2})
    profiles = list(bluffing_profile(game, result.records, result.labels).values())
    # The equilibrium's doubt probabilities: [opponent lives, own lives, beat rank + 1, claim rank, blind]
    doubt = load_tables(solution_options(game))["doubt"]
    names = meyer.CLAIM_NAMES
    rank = {name: game.rank[names.index(name)] for name in names}
    low_beats = ["start", "32", "41", "42", "43", "51", "52", "53"]

    def counts(beats, claim):
        """Doubts and answers of ``claim`` over any of ``beats``, both entrants together."""
        parts = [p.by_claim_to_beat[b] for p in profiles for b in beats if b in p.by_claim_to_beat]
        doubts = sum(q.doubts_by_claim.get(claim, 0) for q in parts)
        return doubts, sum(q.responses_by_claim.get(claim, 0) for q in parts)

    for claim, expected in (("63", 0.310), ("64", 0.373)):
        for b in low_beats:  # the table's probability is one value over every claim to beat up to 53
            level = (rank[b] if b != "start" else -1) + 1
            assert float(doubt[0, 0, level, rank[claim], 0]) == pytest.approx(expected, abs=5e-4)
        r = Rate.of_counts(*counts(low_beats, claim))
        assert r.of > 1000 and r.low <= expected <= r.high, (claim, r)
        high_beats = [b for b in ("54", "61", "62", "63") if rank[b] < rank[claim]]
        n, d = counts(high_beats, claim)
        assert n == d and (d > 300 or claim != "63")  # doubted always (64 is not claimed over these)
        pooled = Rate.of_counts(
            sum(p.doubts_by_claim.get(claim, 0) for p in profiles),
            sum(p.responses_by_claim.get(claim, 0) for p in profiles),
        )
        if claim == "63":  # pooled, mostly over high claims: far from it
            assert pooled.low > 0.6, pooled
