"""Regression tests for defects found in the second review of issue 7 (hardening)."""

from __future__ import annotations

import pytest

from dice_envs.games import meyer, syvere, tenthousand

GAMES = {"syvere": syvere.Game, "tenthousand": tenthousand.Game, "meyer": meyer.Game}


@pytest.mark.parametrize("name", sorted(GAMES))
@pytest.mark.parametrize("item", [[1], {}, {1}, bytearray(b"1")], ids=repr)
def test_apply_chance_of_a_tuple_holding_an_unhashable_item_raises_a_value_error(name, item):
    # The fast path looks a tuple up in the table of sorted rolls; an unhashable item made that
    # look-up raise TypeError instead of the input rule's ValueError.
    game = GAMES[name](num_players=2)
    state = game.initial_state()
    k = game.num_dice_to_roll(state)
    with pytest.raises(ValueError, match="is not a die"):
        game.apply_chance(state, (item,) + (2,) * (k - 1))
