"""Collection rules for the whole repository (the doctests of the packages included).

``dice_envs/openspiel.py`` needs the ``[openspiel]`` extra to be imported at all: without it its
doctests are not collected (``tests/test_openspiel.py`` skips itself likewise).
"""

import importlib.util

collect_ignore = [] if importlib.util.find_spec("pyspiel") else ["dice_envs/openspiel.py"]
