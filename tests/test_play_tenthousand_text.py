"""What a person playing 10 000 is told: the log's bust, penalty, exact-target and end-phase lines
(TT-2, TT-8, TT-9d, TT-9e), the table's header and counters, the play hook's bank lists and reasons,
the bare ``b`` under ``exact_target``, and the heuristic's bank under it (play review, findings 2-6)."""

from __future__ import annotations

import numpy as np
import pytest

from agents.tenthousand import ThresholdAgent
from dice_envs import tenthousand_v1
from dice_envs.games import tenthousand as tt
from dice_envs.play import tenthousand as hooks
from test_cli_polish import ScriptedDice  # tests/ is on the path, as for test_train_cli

BUST = (2, 2, 3, 4, 6, 6)  # no 1, 5, triple, straight or three pairs


def logged(options, rolls, actions):
    """The env's log lines after reset and after each action (rule-book strings), with scripted dice."""
    env = tenthousand_v1.env(render_mode="ansi", **options)
    raw = env.unwrapped
    raw._rng = np.random.default_rng(0)  # reset() keeps these dice (no seed given)
    raw._dice = ScriptedDice(rolls)
    env.reset()
    out = [list(raw.log_lines)]
    for text in actions:
        env.step(raw.game.string_to_action(raw.game_state, text))
        out.append(list(raw.log_lines))
    return out, raw


def at(game, roll, **fields):
    return game.apply_chance(game.initial_state()._replace(to_roll=len(roll), **fields), roll)


# -- finding 3: busts are called busts, with the points lost and the penalty ----------------------
def test_TT2_a_bust_names_the_points_it_lost():
    out, _ = logged({"preset": "dk"}, [(1, 1, 2, 3, 4, 5), (2, 3, 4), (1, 2, 3, 4, 6, 6)], ["keep 115 roll"])
    assert out[1] == [
        "player_0: keep 115 roll",
        "player_0 rolled ⚁ ⚂ ⚃  (234)",
        "player_0: bust, 250 points lost",
        "player_0: 0 -> 0 (+0)",
        "player_1 rolled ⚀ ⚁ ⚂ ⚃ ⚅ ⚅  (123466)",
    ]


def test_TT9e_the_third_bust_in_a_row_names_the_penalty():
    rolls = [BUST, (1, 2, 3, 4, 6, 6), (2, 3, 4, 4, 6)] * 2 + [BUST, (2, 3, 4, 6, 6, 6)]
    out, raw = logged({"preset": "farkle"}, rolls, ["keep 1 roll", "keep 1 roll"])
    assert out[0] == [
        "new game",
        "player_0 rolled ⚁ ⚁ ⚂ ⚃ ⚅ ⚅  (223466)",
        "player_0: bust",
        "player_0: 0 -> 0 (+0)",
        "player_1 rolled ⚀ ⚁ ⚂ ⚃ ⚅ ⚅  (123466)",
    ]
    assert out[2] == [
        "player_1: keep 1 roll",
        "player_1 rolled ⚁ ⚂ ⚃ ⚃ ⚅  (23446)",
        "player_1: bust, 100 points lost",
        "player_1: 0 -> 0 (+0)",
        "player_0 rolled ⚁ ⚁ ⚂ ⚃ ⚅ ⚅  (223466)",
        "player_0: bust",
        "player_0: bust penalty, 3 busts in a row: -500",
        "player_0: 0 -> -500 (-500)",
        "player_1 rolled ⚁ ⚂ ⚃ ⚅ ⚅ ⚅  (234666)",
    ]
    # finding 4: the count is shown with its threshold where a penalty exists
    assert "  player_1:      0  <- to play, not on the list yet, busts in a row: 2 of 3" in raw.render().splitlines()


def test_TT9e_busts_in_a_row_are_not_shown_without_a_penalty():
    game = tt.Game(preset="dk")
    state = game.initial_state()._replace(busts=(2, 1))
    assert "busts in a row" not in game.render(state)
    penalised = tt.Game(preset="dk", bust_penalty=300, bust_penalty_after=4)
    lines = penalised.render(state).splitlines()
    assert lines[2] == "  player_0:      0  <- to play, not on the list yet, busts in a row: 2 of 4"
    assert lines[3] == "  player_1:      0  not on the list yet, busts in a row: 1 of 4"


def test_TT9e_a_penalty_after_every_bust():
    game = tt.Game(preset="no", bust_penalty=200, bust_penalty_after=1)
    before = game.initial_state()._replace(totals=(1000, 0))
    after = game.apply_chance(before, BUST)
    assert game.change_lines(before, after) == [
        "player_0: bust",
        "player_0: bust penalty: -200",
        "player_0: 1000 -> 800 (-200)",
    ]


# -- finding 2: exact target ---------------------------------------------------------------------
EXACT = {"preset": "no", "target": 500, "exact_target": True, "opening": 0}


def test_TT9d_a_bank_past_the_target_says_it_scores_0_and_reaching_it_starts_the_final_turns():
    rolls = [(1, 3, 4, 5, 5, 5), (1, 3, 4, 5, 5, 5), BUST]
    out, raw = logged(EXACT, rolls, ["keep 1555 bank", "keep 555 bank"])
    assert out[1][:3] == [
        "player_0: keep 1555 bank",
        "player_0: past the target 500, the bank scores 0",
        "player_0: 0 -> 0 (+0)",
    ]
    assert out[2] == [
        "player_1: keep 555 bank",
        "player_1: 0 -> 500 (+500)",
        "player_1 reached 500: everyone else gets one last turn",
        "player_0 rolled ⚁ ⚁ ⚂ ⚃ ⚅ ⚅  (223466)",
        "player_0: bust",
        "player_0: 0 -> 0 (+0)",
        "game over",
    ]
    assert raw.game.render(raw.game_state).splitlines()[:2] == [
        "Ten thousand (no), target 500, round 2 (turn 3)",
        "  rules: at the target everyone else gets one last turn; exact target (a bank past 500 scores 0)",
    ]


def test_TT9d_describe_sets_the_banks_past_the_target_apart_and_points_out_the_exact_one():
    game = tt.Game(**EXACT)
    state = at(game, (1, 3, 4, 5, 5, 5))
    lines = hooks.describe(game, state, 0).splitlines()
    assert lines[2:4] == [
        "  You may bank after keeping: 1, 5, 15, 55, 155, 555 (reaches 500 exactly)",
        "  Past the target 500, a bank scores 0: 1555",
    ]


def test_TT9d_bare_b_banks_what_adds_most_not_a_pass_of_the_target():
    game = tt.Game(**EXACT)
    assert tt.ACTION_STRINGS[hooks.parse(game, at(game, (1, 3, 4, 5, 5, 5)), "b")] == "keep 555 bank"
    # the review's second case (no minimum bank): 1100 banked of 2000, roll 111234
    game = tt.Game(preset="no", target=2000, exact_target=True)
    state = at(game, (1, 1, 1, 2, 3, 4), totals=(1100, 0), opened=(True, False))
    assert tt.ACTION_STRINGS[hooks.parse(game, state, "b")] == "keep 11 bank"
    # naming the dice still banks past the target
    assert tt.ACTION_STRINGS[hooks.parse(game, state, "111 b")] == "keep 111 bank"


def test_TT9d_bare_b_refuses_when_every_bank_scores_0_and_describe_says_why_the_others_are_refused():
    game = tt.Game(preset="dk", target=2000, exact_target=True)
    state = at(game, (1, 1, 1, 2, 3, 4), totals=(1100, 0), opened=(True, False))
    with pytest.raises(ValueError) as error:
        hooks.parse(game, state, "b")
    assert str(error.value) == (
        "every bank now passes the target 2000 and scores 0 (TT-9d); to bank anyway name the dice, "
        "e.g. '111 b', or roll on"
    )
    lines = hooks.describe(game, state, 0).splitlines()
    assert lines[2:4] == [
        "  Past the target 2000, a bank scores 0: 111",
        "  No bank that scores: keeping 11 or 1: a bank needs 300 points in the turn, you would have at most 200 (TT-7)",
    ]


def test_bare_b_without_exact_target_is_unchanged():
    game = tt.Game(preset="no")
    state = at(game, (1, 2, 2, 2, 5, 6), turn_total=500)
    assert tt.ACTION_STRINGS[hooks.parse(game, state, "b")] == "keep 12225 bank"
    lines = hooks.describe(game, state, 0).splitlines()
    assert lines[2] == "  You may bank after keeping: 1, 5, 15, 222, 1222, 2225, 12225"
    assert not any("Past the target" in line for line in lines)


def test_the_header_names_the_variants_in_force():
    assert tt.Game(preset="dk").render(tt.Game(preset="dk").initial_state()).splitlines()[:2] == [
        "Ten thousand (dk), target 10000, round 1 (turn 1)",
        "  rules: at the target the round is played out",
    ]
    game = tt.Game(preset="farkle", over_threshold=True, confirm_combinations=True, end="immediate")
    assert game.render(game.initial_state()).splitlines()[1] == (
        "  rules: the first to the target wins; from 9000 bank only to reach 10000; "
        "a combination needs a later 1 or 5 before a bank; 3 busts in a row cost 500"
    )


# -- finding 5: the end phase ----------------------------------------------------------------------
def test_TT8_finish_round_names_who_still_plays_and_a_last_seat_ends_the_game():
    rolls = [(2, 3, 4, 5, 5, 5), BUST, BUST]
    out, _ = logged({"preset": "dk", "target": 500, "num_players": 3}, rolls, ["keep 555 bank"])
    assert out[1][:3] == [
        "player_0: keep 555 bank",
        "player_0: 0 -> 500 (+500)",
        "player_0 reached 500: the round is played out, player_1 and player_2 play a last turn",
    ]
    out, _ = logged({"preset": "dk", "target": 500}, [BUST, (2, 3, 4, 5, 5, 5)], ["keep 555 bank"])
    assert out[1] == [
        "player_1: keep 555 bank",
        "player_1: 0 -> 500 (+500)",
        "player_1 reached 500: the game ends",
        "game over",
    ]


def test_TT8_immediate_end_says_the_game_ends():
    out, _ = logged({"preset": "farkle", "target": 500, "end": "immediate"}, [(2, 3, 4, 5, 5, 5)], ["keep 555 bank"])
    assert out[1] == [
        "player_0: keep 555 bank",
        "player_0: 0 -> 500 (+500)",
        "player_0 reached 500: the game ends",
        "game over",
    ]


def test_TT8_describe_says_it_is_the_last_turn_and_what_to_beat():
    game = tt.Game(preset="no", num_players=3, target=3000)
    state = at(game, (2, 3, 3, 3, 4, 6), totals=(1100, 3150, 2050), opened=(True,) * 3, player=2, turns_left=1)
    lines = hooks.describe(game, state, 2).splitlines()
    assert "  This is your last turn: beat 3150 (player_1), you need more than 1100 this turn." in lines
    assert "  final turns: 1 left, this one included" in game.render(state).splitlines()
    exact = tt.Game(preset="no", num_players=2, target=3000, exact_target=True)
    state = at(exact, (2, 3, 3, 3, 4, 6), totals=(3000, 2050), opened=(True,) * 2, player=1, turns_left=1)
    lines = hooks.describe(exact, state, 1).splitlines()
    assert "  This is your last turn: 3000 (player_0) can only be tied, with exactly 950 this turn." in lines
    assert not any("last turn" in line for line in hooks.describe(game, at(game, (2, 3, 3, 3, 4, 6)), 0).splitlines())


# -- finding 6: every reason that holds back a bank ------------------------------------------------
def test_no_bank_names_hot_dice_and_the_opening_when_both_apply():
    game = tt.Game(preset="dk")
    state = at(game, (1, 1, 5, 5, 6, 6))
    lines = [line for line in hooks.describe(game, state, 0).splitlines() if "No bank" in line]
    expected = (
        "keeping 115566: hot dice must be rolled again (TT-4); any other keep: the first bank needs 1000 points "
        "in the turn, you would have at most 300 (TT-7)"
    )
    assert lines == [f"  No bank yet: {expected}"]
    with pytest.raises(ValueError) as error:
        hooks.parse(game, state, "b")
    assert str(error.value) == f"you cannot bank now: {expected}"


def test_no_bank_gives_the_engines_words_when_one_rule_holds_back_every_keep():
    game = tt.Game(preset="dk")
    state = at(game, (1, 2, 2, 2, 5, 6))
    lines = [line for line in hooks.describe(game, state, 0).splitlines() if "No bank" in line]
    assert lines == [f"  No bank yet: {game.bank_refusal(state)}"]


# -- the heuristic's bank under exact_target, and its play elsewhere unchanged --------------------
class _ReferenceHeuristic(ThresholdAgent):
    """ThresholdAgent.act as it was before its exact_target fix: stored tournament results and the
    documented figures depend on its play without exact_target."""

    def act(self, observation, action_mask):
        n, k = self._n, self._k
        options = self._options(observation, action_mask)
        own, turn_total = float(observation[0]), float(observation[k])
        banks = [o for o in options if o[3]]
        best_bank = max(banks, default=None, key=lambda o: (o[0], o[1]))
        go_on = max(options, key=lambda o: (o[0] + self.keep_bonus[o[1] - 1], o[0]))
        if best_bank is not None:
            after = own + turn_total + best_bank[0]
            if observation[k + 9]:
                if after > float(np.max(observation[1:n])):
                    return 2 * best_bank[2] + tt.BANK
                return 2 * go_on[2] + tt.ROLL
            if after >= self.game.target:
                return 2 * best_bank[2] + tt.BANK
            value, left, _, _ = go_on
            if turn_total + value >= self.stop_at[left - 1]:
                return 2 * best_bank[2] + tt.BANK
        return 2 * go_on[2] + tt.ROLL


def _decisions(game, seed):
    """``(new action, reference action, state)`` at every decision of a seeded game the current
    heuristic plays."""
    new, old = ThresholdAgent(game), _ReferenceHeuristic(game)
    rng = np.random.default_rng(seed)
    state, pairs = game.initial_state(), []
    while not game.is_terminal(state):
        if game.is_chance(state):
            roll = tuple(int(x) for x in rng.integers(1, 7, game.num_dice_to_roll(state)))
            state = game.apply_chance(state, roll)
            continue
        seat = game.current_player(state)
        obs = game.observe(state, seat)
        mask = np.zeros(tt.NUM_ACTIONS, dtype=np.int8)
        mask[game.legal_actions(state)] = 1
        pairs.append((new.act(obs, mask), old.act(obs, mask), state))
        state = game.apply_action(state, pairs[-1][0])
    return pairs


@pytest.mark.parametrize("preset", ["dk", "no", "farkle"])
def test_heuristic_play_without_exact_target_is_unchanged(preset):
    game = tt.Game(preset=preset)
    pairs = [pair for seed in range(200) for pair in _decisions(game, seed)]
    assert len(pairs) > 10_000
    assert all(a == b for a, b, _ in pairs)


def test_heuristic_banks_what_scores_under_exact_target():
    game = tt.Game(**EXACT)
    state = at(game, (1, 3, 4, 5, 5, 5))
    mask = np.zeros(tt.NUM_ACTIONS, dtype=np.int8)
    mask[game.legal_actions(state)] = 1
    action = ThresholdAgent(game).act(game.observe(state, 0), mask)
    assert tt.ACTION_STRINGS[action] == "keep 555 bank"
    assert tt.ACTION_STRINGS[_ReferenceHeuristic(game).act(game.observe(state, 0), mask)] == "keep 1555 bank"
    # it differs from the reference only where the reference banks past the target for 0, or rolls
    # on with a keep that leaves no room below the target for a 5 (the turn total only grows)
    game = tt.Game(preset="no", target=2000, exact_target=True)
    differ = [(a, b, s) for seed in range(50) for a, b, s in _decisions(game, seed) if a != b]
    kinds = set()
    for _, old, state in differ:
        selection, bank = tt.decode_action(old)
        room = game.target - state.totals[state.player] - state.turn_total
        if bank:
            kinds.add("bank")
            assert game.bank_gain(state, game.score(selection)) == 0
        else:
            kinds.add("roll")
            assert room - game.score(selection) < 50
    assert kinds == {"bank", "roll"}


def test_heuristic_rolls_on_below_an_exact_target_rather_than_bank_for_0():
    """800 to go under dk's exact target, roll 1 1 1 2 3 5, a bank needs 300 points in the turn: every
    allowed bank passes the target. The reference banks 1115 for 0; the heuristic keeps 11 and rolls on."""
    game = tt.Game(preset="dk", exact_target=True)
    state = at(game, (1, 1, 1, 2, 3, 5), totals=(9200, 0), opened=(True, False))
    mask = np.zeros(tt.NUM_ACTIONS, dtype=np.int8)
    mask[game.legal_actions(state)] = 1
    obs = game.observe(state, 0)
    assert tt.ACTION_STRINGS[_ReferenceHeuristic(game).act(obs, mask)] == "keep 1115 bank"
    assert tt.ACTION_STRINGS[ThresholdAgent(game).act(obs, mask)] == "keep 11 roll"
    # with 50 to go and 300 in the turn nothing can score any more: a bank for 0 ends the turn unbusted
    state = at(game, (1, 1, 2, 3, 4, 6), totals=(9650, 0), opened=(True, False), turn_total=300)
    mask = np.zeros(tt.NUM_ACTIONS, dtype=np.int8)
    mask[game.legal_actions(state)] = 1
    assert tt.ACTION_STRINGS[ThresholdAgent(game).act(game.observe(state, 0), mask)] == "keep 11 bank"


# -- the person's prompt shows the roll once; help shows the table and the choices again ----------
def test_the_roll_is_shown_once_before_the_prompt_and_help_repeats_the_table():
    from dice_envs.play import play

    answers = iter(["?", "q"])
    out: list[str] = []
    assert play("tenthousand", {}, seat=0, opponents="heuristic", seed=3, read=lambda _: next(answers),
                write=out.append) is None  # fmt: skip
    text = "\n".join(out)
    out = text.splitlines()
    rolled = next(line for line in out if line.startswith("  player_0 rolled "))
    faces = rolled.rsplit("(", 1)[1].rstrip(")")
    # the log line, then the table's roll line: once per showing of the table (before the prompt, on '?')
    assert text.count(f"({faces})") == 1 + 2
    assert sum(line.startswith("  turn total: 0   roll: ") for line in out) == 2
    assert sum(line.startswith("  You may keep: ") for line in out) == 2
    assert "Your roll" not in text
