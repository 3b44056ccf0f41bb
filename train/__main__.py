"""``python -m train ...`` is ``dice-envs train ...``, under the same error handler."""

import sys

from dice_envs.cli import run_guarded
from train.cli import main

sys.exit(run_guarded(main, sys.argv[1:], prog="dice-envs train"))
