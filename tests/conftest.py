"""Test-suite configuration shared by every test file.

The ``ray`` marker: tests that start a local Ray instance (``tests/test_ray_*.py``, issue 11).
They need the ``[ray]`` extra and take minutes, so they run only when asked for with ``-m ray``
(``.venv/bin/python -m pytest -m ray tests/test_ray_*.py``); a run whose ``-m`` expression does
not name ``ray`` skips them, whatever the repository's ``addopts`` say.
"""

import os
import signal

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


@pytest.fixture(scope="module")
def ray_instance():
    """One local Ray instance of 2 CPUs for the Ray tests of a module (started once: it takes seconds)."""
    ray = pytest.importorskip("ray")
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    ray.init(num_cpus=2, include_dashboard=False, logging_level="warning", object_store_memory=200 * 2**20)
    try:
        yield ray
    finally:
        ray.shutdown()


@pytest.fixture
def ctrl_c():
    """During the test SIGINT raises KeyboardInterrupt, as in a terminal: a process started in the
    background inherits SIGINT ignored, and a test that sends it would see nothing happen."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
