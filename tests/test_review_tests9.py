"""Tests for the gaps a mutation audit (review 9) found: each pins a documented behaviour that a
one-token change of the code left unnoticed. The expected values are worked out by hand in the
comments, from docs/rules.md and the docstrings of the code under test."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import sqlite3
from statistics import NormalDist

import numpy as np
import pytest

import dice_envs  # noqa: F401  (registers the envs)
from dice_envs.registry import ENVS, env_module

ENV_IDS = sorted(ENVS)


# -- S9: Syvere's observation, "still in" at exactly the elimination total -------------------------
def test_observation_still_in_is_zero_at_exactly_77():
    """SY-8: a total of 77 *or more* is out. The observation's "still in" entries (N .. 2N-1,
    seats from the observer clockwise) and the global state's ``still_in`` say so."""
    from dice_envs.games import syvere

    g = syvere.Game(num_players=3)
    s = g.initial_state()._replace(totals=(77, 10, 20), totals_before_round=(70, 10, 20), round_order=(1, 2))
    # Seen by seat 1: seats 1, 2, 0 -> totals 10, 20, 77; seat 0 (at exactly 77) is out.
    assert g.observe(s, 1)[:6].tolist() == [10, 20, 77, 1, 1, 0]
    assert g.observe(s, 0)[:6].tolist() == [77, 10, 20, 0, 1, 1]
    assert g.global_state(s)[g.state_slices["still_in"]].tolist() == [0, 1, 1]
    # One below the mark is still in.
    s76 = s._replace(totals=(76, 10, 20))
    assert g.observe(s76, 1)[:6].tolist() == [10, 20, 76, 1, 1, 1]


# -- E4: no agent has a legal action once the game is truncated or over ---------------------------
@pytest.mark.parametrize("env_id", ENV_IDS)
def test_masks_are_all_zero_after_truncation(env_id):
    """env.py: "The mask is all zeros for players who are not to act"; after a truncation (every
    agent truncated after max_cycles * N actions) nobody is to act."""
    raw = env_module(env_id).raw_env(num_players=2, max_cycles=1)
    raw.reset(seed=0)
    actions = 0
    while not any(raw.truncations.values()) and not any(raw.terminations.values()):
        mask = raw.observe(raw.agent_selection)["action_mask"]
        raw.step(int(np.flatnonzero(mask)[0]))
        actions += 1
    assert all(raw.truncations.values()) and actions == 2  # max_cycles * num_players
    assert [int(raw.observe(a)["action_mask"].sum()) for a in raw.agents] == [0, 0]


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_masks_are_all_zero_after_the_game_ends(env_id):
    raw = env_module(env_id).raw_env(num_players=2)
    raw.reset(seed=3)
    rng = np.random.default_rng(3)
    while not any(raw.terminations.values()):
        mask = raw.observe(raw.agent_selection)["action_mask"]
        raw.step(int(rng.choice(np.flatnonzero(mask))))
    assert all(raw.terminations.values())
    assert [int(raw.observe(a)["action_mask"].sum()) for a in raw.agents] == [0, 0]


# -- A4: the 10 000 heuristic in the end phase banks only to take the lead -------------------------
def _tt_situation(game, roll, **fields):
    """(observation, mask) of player 0 after ``roll``, with some public fields set first."""
    from dice_envs.games import tenthousand as tt

    state = game.apply_chance(game.initial_state()._replace(to_roll=len(roll), **fields), roll)
    mask = np.zeros(tt.NUM_ACTIONS, dtype=np.int8)
    mask[game.legal_actions(state)] = 1
    return game.observe(state, game.current_player(state)), mask


def test_heuristic_in_the_end_phase_does_not_bank_a_tie_with_the_leader():
    """ThresholdAgent: "in the end phase (TT-8) it banks only to take the lead". At 9000 against a
    leader's 10 500 with 1400 in the turn, keeping the 1 of 1-2-3 (100) and banking would make
    10 500: level with the leader, not ahead, so it rolls on (with 1500 in the turn it banks)."""
    from agents.tenthousand import ThresholdAgent
    from dice_envs.games import tenthousand as tt

    game = tt.Game(num_players=2, preset="no")
    agent = ThresholdAgent(game)
    behind = {"opened": (True, True), "totals": (9000, 10_500), "turns_left": 1}

    def choice(turn_total):
        return tt.ACTION_STRINGS[agent.act(*_tt_situation(game, (1, 2, 3), turn_total=turn_total, **behind))]

    assert choice(1400) == "keep 1 roll"  # 9000 + 1400 + 100 = 10 500 = the lead: a tie
    assert choice(1450) == "keep 1 bank"  # 10 550 > 10 500


# -- X3: the one-turn optimal agent of 10 000 breaks a tie towards the bank ------------------------
def test_optimal_agent_breaks_a_tie_towards_the_bank():
    """OptimalAgent: "Ties go to the bank (a sure value)". Last turn of the end phase, 5000 against
    10 000, roll 1-2-3-4-6-6: the only selection is the 1 (100). A bank makes 5100, behind the
    leader: worth 0 (lead_worth). Rolling on from a turn total of 100 is past the cap of 50, where
    rolling on counts 0 (the module's "Cap"). Both are worth 0: the tie goes to the bank."""
    from agents.solvers.tenthousand import STEP, OptimalAgent
    from dice_envs.games import tenthousand as tt

    game = tt.Game(num_players=2, preset="no")
    state = tt.State((5000, 10000), (True, True), (0, 0), 0, 0, (1, 2, 3, 4, 6, 6), 0, False, 1, None, 2)
    agent = OptimalAgent(game, cap=50, use_cache=False)
    mask = np.zeros(game.num_actions, dtype=np.int8)
    mask[game.legal_actions(state)] = 1
    assert sorted(tt.ACTION_STRINGS[a] for a in np.flatnonzero(mask)) == ["keep 1 bank", "keep 1 roll"]
    # the tie, as the agent sees it: need 5000 more to lead; both worths 0
    table, bank_worth = agent.lead_table(True, 5000, 5000)
    assert bank_worth[100 // STEP] == 0.0 and (100 // STEP >= len(table) or table[100 // STEP, 5] == 0.0)
    assert tt.ACTION_STRINGS[agent.act(game.observe(state, 0), mask)] == "keep 1 bank"


# -- W4: mean_ci's interval uses the sample standard deviation -------------------------------------
def test_mean_ci_is_the_normal_interval_with_the_sample_standard_deviation():
    """mean ± z * s / sqrt(n), s the sample standard deviation (n - 1 in its denominator).
    [0, 1, 0, 1]: mean 1/2, s² = (4 * 1/4) / 3 = 1/3, half-width z * sqrt(1/3) / 2."""
    from evaluate.stats import mean_ci

    z = NormalDist().inv_cdf(0.975)
    assert z == pytest.approx(1.959963984540054, abs=1e-12)
    half = z * math.sqrt(1 / 3) / 2
    assert half == pytest.approx(0.5657928670380858, abs=1e-12)
    assert mean_ci([0, 1, 0, 1]) == pytest.approx((0.5, 0.5 - half, 0.5 + half), abs=1e-12)
    # another n: [1, 2, 3]: mean 2, s² = (1 + 0 + 1) / 2 = 1, half-width z / sqrt(3)
    half = z / math.sqrt(3)
    assert mean_ci([1, 2, 3]) == pytest.approx((2.0, 2.0 - half, 2.0 + half), abs=1e-12)


# -- D1: a store written for another env version is refused, untouched -----------------------------
def _digest(path) -> str:
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def test_a_store_of_another_env_version_is_refused_untouched(tmp_path):
    """evaluate.store: a store "written for another game, other options or another env version, is
    refused with a ValueError before anything is written to it"."""
    from evaluate.store import ResultStore

    path = str(tmp_path / "results.sqlite")
    opts = {"num_players": 2}
    ResultStore.open(path, "meyer", "dice/meyer-v0", opts).close()
    before = _digest(path)
    for call in (ResultStore.check, ResultStore.open):
        with pytest.raises(ValueError, match="env_id 'dice/meyer-v0', not 'dice/meyer-v1'"):
            call(path, "meyer", "dice/meyer-v1", opts)
        assert _digest(path) == before
    ResultStore.open(path, "meyer", "dice/meyer-v0", opts).close()  # the same setting opens
    # ... and one of another schema version (the other key of that check)
    conn = sqlite3.connect(path)
    conn.execute("UPDATE meta SET value = '0' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    before = _digest(path)
    with pytest.raises(ValueError, match=r"was written by an older version of dice-envs \(results schema 0; this one reads 1\)"):
        ResultStore.check(path, "meyer", "dice/meyer-v0", opts)
    assert _digest(path) == before


# -- V4: the shaping potential's value ------------------------------------------------------------
def test_standing_is_own_score_against_the_mean_of_the_others():
    """train.view.standing: the seat's score minus the mean of the *other* seats' scores, signed so
    that higher is better, scaled by elimination (Syvere), target (10 000) or lives (Meyer)."""
    from dice_envs.games import meyer, syvere
    from dice_envs.games import tenthousand as tt
    from train.view import standing

    g = syvere.Game(num_players=3)  # elimination 77, low is good
    s = g.initial_state()._replace(totals=(10, 20, 40))
    # 10 - (20 + 40) / 2 = -20, negated: 20/77
    assert standing(g, s, 0) == pytest.approx(20 / 77)
    assert standing(g, s, 2) == pytest.approx(-(40 - 15) / 77)

    g = tt.Game(num_players=3, target=10_000)  # high is good
    s = g.initial_state()._replace(totals=(5000, 2000, 4000))
    # 5000 - (2000 + 4000) / 2 = 2000
    assert standing(g, s, 0) == pytest.approx(2000 / 10_000)

    g = meyer.Game(num_players=3, lives=6)  # lives: high is good
    s = g.initial_state()._replace(lives=(2, 6, 4))
    # 2 - (6 + 4) / 2 = -3
    assert standing(g, s, 0) == pytest.approx(-3 / 6)
    assert standing(g, s, 1) == pytest.approx((6 - 3) / 6)


# -- V5: the Gymnasium view truncates after exactly max_cycles * N actions -------------------------
class _CountingOpponent:
    """An opponent object that plays its first legal action and counts its decisions."""

    def __init__(self):
        self.calls = 0

    def act(self, observation, action_mask):
        self.calls += 1
        return int(np.flatnonzero(action_mask)[0])


@pytest.mark.parametrize("max_cycles", [1, 2, 3])
@pytest.mark.parametrize("seed", [0, 1])
def test_view_truncates_after_max_cycles_times_players_actions(max_cycles, seed):
    """SingleAgentView: "max_cycles: truncate after max_cycles * num_players actions of all seats";
    a truncated episode pays 0. Meyer with 6 lives cannot end within 6 actions."""
    from train.view import SingleAgentView

    opponent = _CountingOpponent()
    env = SingleAgentView("meyer", opponents=[opponent], max_cycles=max_cycles)
    env.reset(seed=seed, options={"learner_seat": 0})
    learner = 0
    while True:
        _, reward, terminated, truncated, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
        learner += 1
        if terminated or truncated:
            break
    assert truncated and not terminated and reward == 0.0 and info["learner_return"] == 0.0
    assert learner + opponent.calls == max_cycles * 2


# -- TR3: a resume refuses every setting that is not documented as resumable ------------------------
#: docs/training.md: "only timesteps, eval_every, eval_deals, vec_env, torch_threads and the progress bar
#: may change" (and the run directory, which may be moved: "A run can be resumed from any directory").
DOCUMENTED_RESUMABLE = {"timesteps", "eval_every", "eval_deals", "vec_env", "torch_threads", "progress",
                        "run_dir"}


def _other_value(name, value):
    if name == "game":
        return "syvere"
    if name == "activation":
        return "relu" if value != "relu" else "tanh"
    if name == "vec_env":
        return "subproc" if value != "subproc" else "dummy"
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value / 2 if value else 0.25
    if isinstance(value, str):
        return value + "x" if value else "random"
    if value is None:
        return 1
    if name == "hidden":
        return (32,)
    if name == "baselines":
        return (*value, "honest")
    if name == "baseline_weights":
        return (1.0,) * len(value) if not value else tuple(2 * w for w in value)
    raise AssertionError(f"no other value for {name}={value!r}: extend _other_value")


def test_every_setting_outside_the_documented_resumable_ones_is_refused_on_resume(tmp_path):
    from train import trainer
    from train.config import Args

    base = Args(game="meyer", baselines=("random",), baseline_weights=(1.0,))
    old = base.to_json()
    refused, allowed = [], []
    for f in dataclasses.fields(Args):
        if f.name == "options":  # the game's options: refused by train() itself (TR4's check)
            continue
        changed = dataclasses.replace(base, **{f.name: _other_value(f.name, getattr(base, f.name))})
        assert changed.to_json()[f.name] != old[f.name], f.name
        try:
            trainer._check_resume(tmp_path, old, changed)
        except ValueError as exc:
            assert f"was trained with other settings: {f.name} {old[f.name]!r}" in str(exc)
            refused.append(f.name)
        else:
            allowed.append(f.name)
    assert set(allowed) == DOCUMENTED_RESUMABLE
    assert "learning_rate" in refused and "ent_coef" in refused and "seed" in refused


# -- C1, C3, C4: checkpoints an agent must not load --------------------------------------------------
def _checkpoint(path, game="meyer", num_actions=None, **options):
    from agents.checkpoint import save_checkpoint

    eng = env_module(game).raw_env(**options).game
    rng = np.random.default_rng(0)
    sizes = [len(eng.observation_low), 6]
    layers = [(rng.normal(size=(sizes[1], sizes[0])), rng.normal(size=sizes[1]))]
    n = eng.num_actions if num_actions is None else num_actions
    action = (rng.normal(size=(n, sizes[-1])), rng.normal(size=n))
    save_checkpoint(path, eng, layers, action, activation="tanh", normalization=None, training={})
    return eng


def _rewrite_meta(path, change):
    from agents.checkpoint import META_FILE

    meta = json.loads((path / META_FILE).read_text())
    change(meta)
    (path / META_FILE).write_text(json.dumps(meta))


@pytest.mark.parametrize("game", ["meyer", "tenthousand"])
def test_a_checkpoint_of_an_older_observation_layout_is_refused(tmp_path, game):
    """agents.checkpoint refuses "another observation layout", older as well as newer."""
    from agents.checkpoint import TrainedAgent
    from train.view import observation_layout_version

    eng = _checkpoint(tmp_path / "ck", game)
    current = observation_layout_version(game)
    TrainedAgent(eng, path=str(tmp_path / "ck"))  # the current layout loads
    for older in {current - 1, 0} - {current}:
        _rewrite_meta(tmp_path / "ck", lambda m: m.update(observation_layout_version=older))
        with pytest.raises(ValueError, match=rf"observation layout v{older} of {game}; this dice-envs has "
                                             rf"v{current}: retrain it"):  # fmt: skip
            TrainedAgent(eng, path=str(tmp_path / "ck"))


def test_a_checkpoint_with_a_nan_weight_and_a_matching_checksum_is_refused(tmp_path):
    """The weights must be finite float32 (a NaN makes every logit NaN). The checksum is updated
    too, so the finiteness check is the one that refuses the file."""
    from safetensors.numpy import load, save

    from agents.checkpoint import WEIGHTS_FILE, load_agent

    eng = _checkpoint(tmp_path / "ck")
    load_agent(eng, tmp_path / "ck")  # loads as written
    tensors = load((tmp_path / "ck" / WEIGHTS_FILE).read_bytes())
    tensors["action.bias"][3] = np.nan
    blob = save(tensors)
    (tmp_path / "ck" / WEIGHTS_FILE).write_bytes(blob)
    _rewrite_meta(tmp_path / "ck", lambda m: m.update(weights_sha256=hashlib.sha256(blob).hexdigest()))
    with pytest.raises(ValueError, match=r"weight action\.bias .*expected finite float32"):
        load_agent(eng, tmp_path / "ck")


def test_a_checkpoint_with_another_number_of_actions_is_refused(tmp_path):
    """A policy with 5 logits cannot play Meyer's actions: refused when loaded, not at its first act."""
    from agents.checkpoint import load_agent

    eng = _checkpoint(tmp_path / "ck", num_actions=5)
    assert eng.num_actions != 5
    with pytest.raises(ValueError, match="its number of actions does not match the game's"):
        load_agent(eng, tmp_path / "ck")
