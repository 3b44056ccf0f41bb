"""Meyer's bluffing profile: voluntary bluffs apart from forced lies, under every claim rule and
ranking, and every rate with its counts and Wilson 95% interval (CSV, JSON, picture)."""

from __future__ import annotations

import csv
import json
import math

import pytest

from dice_envs.games import meyer
from evaluate.ratings import leaderboard
from evaluate.report import BLUFFING_CSV_COLUMNS, RATES, BluffProfile, Rate, bluffing_profile, write_report
from evaluate.stats import wilson
from evaluate.tournament import build_game, run_tournament
from meyer_records import scripted_record

VARIANTS = [
    {},
    {"claim_rule": "higher"},
    {"lille_meyer": False},
    {"claim_rule": "higher", "lille_meyer": False},
]


_scripted = scripted_record


def _variant_id(options: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in options.items()) or "default"


@pytest.fixture(scope="module", params=VARIANTS, ids=_variant_id)
def played(request):
    result = run_tournament(
        "meyer", ["honest", "bluffer", "doubter"], games=6, seed=3, workers=1, progress=False,
        options=request.param or None,
    )  # fmt: skip
    game = build_game("meyer", {**result.options, "num_players": 2})
    return result, game, bluffing_profile(game, result.records, result.labels)


def test_the_honest_agent_never_bluffs_voluntarily_but_is_forced_to_lie(played):
    _, _, profiles = played
    honest = profiles["honest"]
    voluntary = honest.rate("voluntary_bluff_rate")
    assert voluntary.count == 0 and voluntary.of > 0 and voluntary.rate == 0.0
    assert voluntary.low == 0.0 and 0 < voluntary.high < 0.1  # the interval still says how sure
    forced = honest.rate("forced_lie_rate")
    assert forced.count > 0 and 0 < forced.rate < 1
    # All its lies are forced ones, so its lie rate is its forced-lie rate at every claim to beat.
    assert honest.lies_by_beat == honest.forced_lies_by_beat
    for beat in honest.claims_by_beat:
        assert honest.lie_rate(beat) == honest.forced_lie_rate(beat)
    assert profiles["bluffer"].rate("voluntary_bluff_rate").count > 0


def test_with_the_blind_reroll_the_honest_agent_still_never_bluffs():
    # It rerolls blind whenever its dice do not meet the claim to beat: those claims are blind.
    result = run_tournament(
        "meyer", ["honest", "bluffer"], games=6, seed=3, workers=1, progress=False,
        options={"blind_reroll": True},
    )  # fmt: skip
    game = build_game("meyer", {**result.options, "num_players": 2})
    honest = bluffing_profile(game, result.records, result.labels)["honest"]
    assert honest.blind_claims > 0 and honest.rate("voluntary_bluff_rate").of > 0
    assert honest.voluntary_lies_by_beat == {} and honest.voluntary_bluff_rate() == 0.0


def test_the_counts_add_up_and_the_lie_rate_splits(played):
    _, _, profiles = played
    for p in profiles.values():
        for beat, claims in p.claims_by_beat.items():
            free = p.free_claims_by_beat.get(beat, 0)
            forced = p.forced_lies_by_beat.get(beat, 0)
            voluntary = p.voluntary_lies_by_beat.get(beat, 0)
            assert claims == free + forced and p.lies_by_beat.get(beat, 0) == voluntary + forced
            assert voluntary <= free
            if free:
                f, v = p.forced_lie_rate(beat), p.voluntary_bluff_rate(beat)
                assert p.lie_rate(beat) == pytest.approx(f + (1 - f) * v)
        assert p.forced_lies_by_beat.get("start", 0) == 0  # nothing to beat: the truth is always legal


def _replayed(options, seats, events) -> dict[str, BluffProfile]:
    game = meyer.Game(num_players=2, lives=1, **options)
    return bluffing_profile(game, [_scripted(game, seats, events)], list(seats))


def test_a_known_voluntary_bluff_is_counted_once():
    # a rolls 66 and under-claims 61 (true: not a lie); b believes, rolls 65 and claims 66 over
    # 61 although 65 was a true legal claim: one voluntary bluff. a doubts and wins.
    p = _replayed({}, ("a", "b"), ["66", "claim 61", "believe", "65", "claim 66", "doubt"])
    a, b = p["a"], p["b"]
    assert a.claims_by_beat == {"start": 1} == a.free_claims_by_beat and a.lies_by_beat == {}
    assert b.claims_by_beat == {"61": 1} == b.free_claims_by_beat
    assert b.voluntary_lies_by_beat == {"61": 1} == b.lies_by_beat and b.forced_lies_by_beat == {}
    assert b.rate("voluntary_bluff_rate") == Rate.of_counts(1, 1) and b.forced_lie_rate() == 0.0
    assert a.rate("doubt_accuracy", "66").count == 1


@pytest.mark.parametrize(
    "options, events, forced",
    [
        # 54 facing 54: meets it (free) when a claim may equal the last, not when it must be higher.
        ({"claim_rule": "at_least"}, ["54", "claim 54", "believe", "54", "claim 61", "doubt"], False),
        ({"claim_rule": "higher"}, ["54", "claim 54", "believe", "54", "claim 61", "doubt"], True),
        # 31 facing 66: Lille Meyer beats 66; without it, 31 is the lowest of all.
        ({"lille_meyer": True}, ["66", "claim 66", "believe", "31", "claim 21", "doubt"], False),
        ({"lille_meyer": False}, ["66", "claim 66", "believe", "31", "claim 21", "doubt"], True),
    ],
)
def test_voluntary_or_forced_follows_the_variant(options, events, forced):
    b = _replayed(options, ("a", "b"), events)["b"]
    beat = events[1].split()[1]
    assert b.lies_by_beat == {beat: 1}
    if forced:
        assert b.forced_lies_by_beat == {beat: 1}
        assert b.free_claims_by_beat == {} and b.voluntary_lies_by_beat == {}
        assert math.isnan(b.voluntary_bluff_rate()) and b.forced_lie_rate() == 1.0
    else:
        assert b.forced_lies_by_beat == {} and b.voluntary_lies_by_beat == {beat: 1} == b.free_claims_by_beat
        assert b.voluntary_bluff_rate() == 1.0 and b.forced_lie_rate() == 0.0


def test_a_claim_after_the_blind_reroll_is_neither_bluff_nor_forced():
    events = ["54", "claim 54", "believe", "32", "reroll", "66", "claim 55", "doubt"]
    b = _replayed({"blind_reroll": True}, ("a", "b"), events)["b"]
    assert b.blind_claims == 1 and b.claims_by_beat == {} and b.lies_by_beat == {}
    assert b.free_claims_by_beat == {} == b.voluntary_lies_by_beat == b.forced_lies_by_beat


def test_intervals_contain_the_rate_and_shrink_with_the_counts():
    widths = []
    for n in (10, 100, 1000):
        r = Rate.of_counts(3 * n // 10, n)
        assert (r.rate, r.low, r.high) == wilson(3 * n // 10, n)
        assert r.low < r.rate == 0.3 < r.high
        widths.append(r.high - r.low)
    assert widths[0] > widths[1] > widths[2]
    none = Rate.of_counts(0, 0)
    assert none.of == 0 and math.isnan(none.rate) and math.isnan(none.low) and math.isnan(none.high)
    assert none.to_json() == {"count": 0, "of": 0, "rate": None, "low": None, "high": None}
    with pytest.raises(ValueError):
        Rate.of_counts(1, 0)


def test_every_rate_has_counts_and_an_interval(played):
    _, _, profiles = played
    for p in profiles.values():
        for measure in RATES:
            keys = set(getattr(p, RATES[measure][2]))
            for key in [*keys, None]:
                r = p.rate(measure, key)
                assert (r.count, r.of) == p.counts(measure, key)
                if r.of:
                    assert r.low <= r.rate <= r.high and r.rate == getattr(p, measure)(key)
    with pytest.raises(ValueError, match="unknown bluffing rate"):
        p.rate("bluff")


def test_csv_json_and_picture_carry_the_counts_and_intervals(tmp_path, monkeypatch, played):
    result, game, profiles = played
    pictures = True
    try:
        import matplotlib.pyplot as plt
        from matplotlib.container import ErrorbarContainer

        kept = []
        monkeypatch.setattr(plt, "close", lambda fig=None: kept.append(fig))
    except ImportError:
        pictures = False
    write_report(str(tmp_path), result, leaderboard(result.labels, result.records, bootstrap=0), game)
    with open(tmp_path / "bluffing.csv") as handle:
        reader = csv.DictReader(handle)
        rows = list(reader)
    columns = ("agent", "measure", "claim", "count", "of", "rate", "low", "high")
    assert tuple(reader.fieldnames) == BLUFFING_CSV_COLUMNS == columns
    measures = {r["measure"] for r in rows}
    assert {
        "voluntary_bluff_rate_by_claim_to_beat", "forced_lie_rate_by_claim_to_beat",
        "lie_rate_by_claim_to_beat", "doubt_rate_by_claim", "doubt_accuracy_by_claim", "believed_lie_rate_by_claim",
    } <= measures  # fmt: skip
    for r in rows:
        assert 0 < int(r["of"]) and 0 <= int(r["count"]) <= int(r["of"])
        assert float(r["low"]) <= float(r["rate"]) <= float(r["high"])
        assert float(r["rate"]) == pytest.approx(int(r["count"]) / int(r["of"]), abs=1e-5)
    honest_all = {r["measure"]: r for r in rows if r["agent"] == "honest" and r["claim"] == "all"}
    assert honest_all["voluntary_bluff_rate_by_claim_to_beat"]["count"] == "0"
    assert int(honest_all["forced_lie_rate_by_claim_to_beat"]["count"]) > 0
    voluntary = profiles["honest"].rate("voluntary_bluff_rate")
    assert int(honest_all["voluntary_bluff_rate_by_claim_to_beat"]["of"]) == voluntary.of
    data = json.loads((tmp_path / "report.json").read_text())["bluffing"]["honest"]
    assert data["voluntary_bluff_rate"] == 0.0 and data["forced_lie_rate"] > 0
    assert data["rates"]["voluntary_bluff_rate"] == voluntary.to_json()
    assert data["forced_lies_by_beat"] == profiles["honest"].forced_lies_by_beat
    if not pictures:
        return
    from evaluate.report import plot_bluffing

    plot_bluffing(profiles, game, str(tmp_path / "b.png"))
    fig = kept[-1]
    assert len(fig.axes) == 4
    for ax in fig.axes:  # an error bar series per entrant in every panel
        assert sum(isinstance(c, ErrorbarContainer) for c in ax.containers) == 3
    texts = [t.get_text() for t in fig.legends[0].get_texts()]
    honest_text = next(t for t in texts if t.startswith("honest"))
    assert f"voluntary bluffs 0/{voluntary.of} = 0.000 [0.000, {voluntary.high:.3f}]" in honest_text
