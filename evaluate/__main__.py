"""``python -m evaluate ...`` is ``dice-envs tournament ...``; ``python -m evaluate replay ...`` is
``dice-envs replay ...``. Both go through ``dice_envs.cli.main``, so errors read the same."""

import sys

from dice_envs.cli import main

if __name__ == "__main__":
    argv = sys.argv[1:]
    command = ["replay", *argv[1:]] if argv[:1] == ["replay"] else ["tournament", *argv]
    sys.exit(main(command))
