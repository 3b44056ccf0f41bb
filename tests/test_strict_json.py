"""What the commands write for other programs is strict JSON: no NaN or Infinity (`dice_envs.strict_json`)."""

import json
import math

import numpy as np
import pytest

from dice_envs import strict_json


def strict_loads(text):
    def refuse(constant):
        raise ValueError(f"not strict JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


def test_non_finite_numbers_become_null_at_any_depth():
    data = {"a": math.nan, "b": [1.5, -math.inf, (np.float32("nan"), np.int16(4))], "c": {"d": np.array([[1.0, np.inf]])},
            "e": np.bool_(True), "f": "NaN"}  # fmt: skip
    assert strict_loads(strict_json.dumps(data)) == {
        "a": None, "b": [1.5, None, [None, 4]], "c": {"d": [[1.0, None]]}, "e": True, "f": "NaN"
    }  # fmt: skip
    with pytest.raises(ValueError):  # what `default` makes of an object must be finite too
        strict_json.dumps({"x": object()}, default=lambda _: math.nan)


def test_solve_json_line_is_strict_json_when_an_estimate_has_no_value(monkeypatch, capsys):
    # As `solve meyer --exploitability CHECKPOINT --json`: a simulated estimate has no exact
    # best-response value per seat, which used to print `"br_first": NaN`.
    from agents.solvers import cli

    monkeypatch.setattr(cli, "compute", lambda *a, **k: {"lines": ["x"], "value": 0.79, "br_first": math.nan,
                                                          "low": np.float64(0.77)})  # fmt: skip
    assert cli.main(["meyer", "--json"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert strict_loads(last) == {"value": 0.79, "br_first": None, "low": 0.77}


def test_training_summary_files_are_strict_json(tmp_path):
    from train.trainer import _write_json

    _write_json(tmp_path / "summary.json", {"win_rate": math.nan, "steps": np.int64(5)})
    assert strict_loads((tmp_path / "summary.json").read_text()) == {"win_rate": None, "steps": 5}
