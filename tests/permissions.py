"""Running a command where permission bits apply, for the tests of read-only files and directories."""

from __future__ import annotations

import os
import shutil

import pytest

#: The root capabilities that ignore permission bits, dropped by setpriv.
BYPASS = "--bounding-set=-dac_override,-dac_read_search,-fowner"


def unprivileged_prefix() -> list[str]:
    """The words to put before a command so that permission bits apply to it: none for a user other
    than root; ``setpriv`` without root's bypass for root. Skips the test where neither is possible."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root, which ignores permission bits, and there is no setpriv to drop that")
    return [setpriv, BYPASS]
