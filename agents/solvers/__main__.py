"""``python -m agents.solvers ...``: the same as ``dice-envs solve ...`` (:mod:`agents.solvers.cli`).

Run through the ``dice-envs`` command's handler, so bad input gives the same one-line message and
exit status 2.
"""

import sys

from dice_envs.cli import main

sys.exit(main(["solve", *sys.argv[1:]]))
