"""``dice-envs train GAME --fields``: every training field, the value this command would train with,
and what it does (the dataclass's field docstrings, which Python keeps no copy of at run time)."""

from __future__ import annotations

import dataclasses

import pytest

from dice_envs.cli import main as dice_main
from train.config import Args, field_docs


def test_every_field_of_args_has_a_docstring():
    docs = field_docs()
    assert set(docs) == {f.name for f in dataclasses.fields(Args)}
    assert all(len(text) > 10 for text in docs.values())
    assert docs["ent_coef"] == "Entropy bonus."


def test_fields_shows_the_recipe_as_the_command_changes_it_and_trains_nothing(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert dice_main(["train", "syvere", "--num-players", "3", "--set", "ent_coef=0.02", "--set", "hidden=32,16",
                      "--fields"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].startswith("Training fields of syvere")
    assert 'options = {"num_players": 3}' in lines
    assert "ent_coef = 0.02" in lines and "hidden = 32,16" in lines
    assert "timesteps = 1100000" in lines  # the recipe's budget
    assert lines[lines.index("ent_coef = 0.02") + 1] == "    Entropy bonus."
    for field in dataclasses.fields(Args):
        assert any(line.startswith(f"{field.name} = ") for line in lines), field.name
    assert list(tmp_path.iterdir()) == []  # no run directory, nothing trained


def test_fields_refuses_what_training_would_and_is_no_flag_of_the_rllib_backend(capsys):
    assert dice_main(["train", "meyer", "--set", "learning_rate=-1", "--fields"]) == 2
    assert "learning_rate must be a number > 0" in capsys.readouterr().err
    assert dice_main(["train", "meyer", "--backend", "rllib", "--fields"]) == 2
    assert "--fields is not supported by the rllib backend" in capsys.readouterr().err


def test_fields_is_a_training_flag_and_a_bad_set_is_still_refused(capsys):
    with pytest.raises(ValueError, match="--fields is a training flag"):
        from train.cli import main

        main(["meyer", "--evaluate", "honest", "--fields"])
    assert dice_main(["train", "meyer", "--set", "ent_coef=lots", "--fields"]) == 2
    assert "ent_coef" in capsys.readouterr().err
