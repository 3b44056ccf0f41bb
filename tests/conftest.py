"""Test-suite configuration shared by every test file.

The ``ray`` marker: tests that start a local Ray instance (``tests/test_ray_*.py``, issue 11).
They need the ``[ray]`` extra and take minutes, so they run only when asked for with ``-m ray``
(``.venv/bin/python -m pytest -m ray tests/test_ray_*.py``); a run whose ``-m`` expression does
not name ``ray`` skips them, whatever the repository's ``addopts`` say.
"""

import pytest


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "ray: starts a local Ray instance (needs the [ray] extra); run with -m ray"
    )


def pytest_collection_modifyitems(config, items):
    if "ray" in (config.getoption("markexpr", "") or ""):
        return
    skip = pytest.mark.skip(reason="a Ray test: run it with -m ray")
    for item in items:
        if item.get_closest_marker("ray") is not None:
            item.add_marker(skip)
