"""Regression tests of issue 7's engine and env defects, one test per defect, named after what it checks."""

from __future__ import annotations

import pytest

from dice_envs.env import check_options
from dice_envs.games import meyer, syvere, tenthousand

GAMES = {"syvere": syvere.Game, "tenthousand": tenthousand.Game, "meyer": meyer.Game}


# -- item 7: the unknown-option message lists only the names the caller takes -------------------
@pytest.mark.parametrize("name", sorted(GAMES))
def test_unknown_option_message_lists_extras_only_where_the_caller_takes_them(name):
    game_class = GAMES[name]
    with pytest.raises(ValueError, match="'colour'") as env_error:
        check_options(game_class, {"colour": 1})
    assert "render_mode" in str(env_error.value) and "max_cycles" in str(env_error.value)
    assert "num_players" in str(env_error.value)
    with pytest.raises(ValueError, match="'colour'") as play_error:
        check_options(game_class, {"colour": 1}, extras=())
    assert "render_mode" not in str(play_error.value) and "max_cycles" not in str(play_error.value)
    assert "num_players" in str(play_error.value)
    # An extra the caller takes is not unknown; one it does not take is.
    assert check_options(game_class, {"max_cycles": 5}, extras=("max_cycles",)) == {"max_cycles": 5}
    with pytest.raises(ValueError, match="'render_mode'"):
        check_options(game_class, {"render_mode": "ansi"}, extras=())


def test_unknown_tenthousand_option_is_named_with_every_option():
    with pytest.raises(ValueError) as error:
        check_options(tenthousand.Game, {"targte": 500}, extras=())
    message = str(error.value)
    assert "'targte'" in message
    for option in ("target", "exact_target", "bust_penalty_after", "preset", "first_starter"):
        assert option in message
