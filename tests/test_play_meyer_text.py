"""What a person playing Meyer in the terminal is told (``dice-envs play``): every lifted cup with its
dice and verdict (ME-4, ME-8: shown to all), lives, who is out, who starts; and the loop's shared
answers (a shared win, an overlong line, Lille Meyer in a game without it)."""

from __future__ import annotations

import pytest

from dice_envs.games import meyer
from dice_envs.play import meyer as hooks
from dice_envs.play import play


def claim(text: str) -> int:
    return meyer.FIRST_CLAIM + meyer.claim_index(text)


def doubted(game: meyer.Game, roll, said: str) -> tuple[meyer.State, meyer.State]:
    """Seat 0 rolls ``roll`` and claims ``said``; seat 1 doubts: the states before and after the doubt."""
    state = game.apply_chance(game.initial_state(), roll)
    state = game.apply_action(state, claim(said))
    return state, game.apply_action(state, meyer.DOUBT)


def test_a_lifted_cup_is_told_with_its_dice_and_verdict():
    game = meyer.Game(num_players=3, lives=2)
    before, after = doubted(game, (3, 1), "31")
    assert game.change_lines(before, after) == [
        "player_1 lifts the cup: ⚂ ⚀ (31); 31 by player_0 was true",
        "player_1: 2 -> 1 life (-1)",
        "round 2: player_1 starts",
    ]
    before, after = doubted(game, (2, 1), "43")  # 21 is Meyer, the best roll: a claim of 43 is no lie
    assert game.change_lines(before, after)[0] == "player_1 lifts the cup: ⚁ ⚀ (21); 43 by player_0 was true"
    before, after = doubted(game, (4, 1), "43")
    assert game.change_lines(before, after)[:2] == [
        "player_1 lifts the cup: ⚃ ⚀ (41); 43 by player_0 was a lie",
        "player_0: 2 -> 1 life (-1)",
    ]


def test_going_out_is_told_and_the_next_starter_skips_the_doubter():
    game = meyer.Game(num_players=3, lives=1)
    before, after = doubted(game, (6, 5), "65")
    assert game.change_lines(before, after) == [
        "player_1 lifts the cup: ⚅ ⚄ (65); 65 by player_0 was true",
        "player_1: 1 -> 0 lives (-1)",
        "player_1 is out",
        "round 2: player_2 starts",  # ME-4: the doubter is out, so the next player still in
    ]
    game = meyer.Game(num_players=2, lives=1)
    before, after = doubted(game, (6, 5), "65")
    assert game.change_lines(before, after)[-1] == "player_1 is out"  # the game is over: no next round


def test_the_person_sees_every_cup_lifted_between_their_turns():
    """Eight players with one life each, the person last: every doubt before their first turn is
    told, not only the last (which the table shows)."""
    out: list[str] = []
    play("meyer", {"num_players": 8, "lives": 1}, seat=7, opponents="doubter", seed=2,
         read=lambda _: "q", write=out.append)  # fmt: skip
    text = "\n".join(out)
    doubts = text.count(": doubt\n")
    assert doubts >= 1 and text.count(" lifts the cup: ") == doubts


@pytest.mark.parametrize("players, verdict", [(3, "You share the win with 1 other."),
                                                (4, "You share the win with 2 others.")])
def test_a_shared_win_is_said_to_be_shared(players, verdict):
    """ME-7 ``first_out``: everyone but the first player out wins; here a random opponent goes out
    first (seed 0), so the person shares the win with the others."""
    answers = iter(["d", "b", "21"] * 50)
    out: list[str] = []
    returns = play("meyer", {"num_players": players, "lives": 1, "end": "first_out"}, seat=0, opponents="random",
                   seed=0, read=lambda _: next(answers), write=out.append)  # fmt: skip
    assert returns is not None and returns[0] > 0 and sum(r > 0 for r in returns) == players - 1
    assert out[-1] == verdict


def test_a_first_out_loss_is_a_loss():
    answers = iter(["d", "b", "21"] * 50)
    out: list[str] = []
    returns = play("meyer", {"num_players": 3, "lives": 1, "end": "first_out"}, seat=0, opponents="random",
                   seed=1, read=lambda _: next(answers), write=out.append)  # fmt: skip
    assert returns is not None and returns[0] < 0 and out[-1] == "You lose."


def test_an_overlong_line_is_refused_without_being_shown_again():
    answers = iter(["r" * 5000, "q"])
    out: list[str] = []
    assert play("syvere", {}, read=lambda _: next(answers), write=out.append, seed=1) is None
    assert "  That line is 5000 characters long; an answer is a few." in out
    assert not any("rrrrrrrrrr" in line for line in out)


def test_lille_meyer_is_no_word_in_a_game_without_it():
    game = meyer.Game(num_players=2, lille_meyer=False)
    state = game.apply_chance(game.initial_state(), (3, 1))
    with pytest.raises(ValueError, match="no Lille Meyer"):
        hooks.parse(game, state, "lille meyer")
    assert hooks.parse(game, state, "31") == claim("31")
    game = meyer.Game(num_players=2)
    assert hooks.parse(game, game.apply_chance(game.initial_state(), (3, 1)), "lille meyer") == claim("31")


def test_a_specs_number_is_shown_as_written():
    from agents import make_agent

    with pytest.raises(ValueError, match=r"lie_probability must be in 0\.\.1, got 2$"):
        make_agent(meyer.Game(), "bluffer:lie_probability=2")
    with pytest.raises(ValueError, match=r"got 3/2$"):
        make_agent(meyer.Game(), "bluffer:lie_probability=3/2")


def test_an_opponents_random_choices_do_not_follow_the_dice():
    """``play --seed S`` seeds the dice with S; the seat-0 opponent had S + 0 too, so a ``random``
    opponent's first choice was a function of the first face drawn (rolls on 1-3, stops on 4-6).
    Now its generator is another one: some first face meets both answers."""
    import numpy as np

    from dice_envs.dice import DiceStream

    answers: dict[int, set[str]] = {}
    for seed in range(120):
        lines: list[str] = []
        play("syvere", {"num_players": 2}, seat=1, opponents="random", seed=seed, read=lambda _: "q",
             write=lines.append)  # fmt: skip
        decision = next((line.strip() for line in lines if line.strip() in ("player_0: roll", "player_0: stop")), None)
        if decision is not None:
            stream = DiceStream(np.random.default_rng(seed))  # the env's dice: their first face
            stream.roll(1)
            answers.setdefault(stream._faces[0], set()).add(decision)
    assert any(len(seen) == 2 for seen in answers.values()), answers


def test_help_repeats_the_choices():
    answers = iter(["?", "help", "q"])
    out: list[str] = []
    assert play("meyer", {}, seat=0, opponents="honest", seed=3, read=lambda _: next(answers), write=out.append) is None
    choices = [line for line in out if line.startswith("  Ranking, best first:")]
    assert len(choices) == 3  # once before the prompt, once for each request


def test_rebuilt_states_tell_a_cup_only_when_it_is_lifted():
    """States read back (pickled, replayed) are equal but not the same objects: the lifted cup of the
    last round is not told again at the next claim."""
    import pickle

    game = meyer.Game(num_players=3, lives=2)
    _, after = doubted(game, (3, 1), "31")
    state = game.apply_chance(after, (5, 2))
    claimed = game.apply_action(state, claim("52"))
    state, claimed = pickle.loads(pickle.dumps(state)), pickle.loads(pickle.dumps(claimed))
    assert state.last_doubt == claimed.last_doubt and state.last_doubt is not claimed.last_doubt
    assert game.change_lines(state, claimed) == []
