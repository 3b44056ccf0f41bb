"""``python -m train ...`` is ``dice-envs train ...``."""

import sys

from train.cli import main

try:
    sys.exit(main())
except ValueError as exc:
    print(f"dice-envs train: {exc}", file=sys.stderr)
    sys.exit(2)
except KeyboardInterrupt:
    sys.exit(130)
