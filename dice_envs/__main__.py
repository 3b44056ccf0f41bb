"""``python -m dice_envs``: the ``dice-envs`` command (:mod:`dice_envs.cli`)."""

import sys

from dice_envs.cli import main

sys.exit(main())
