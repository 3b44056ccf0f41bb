"""Which extra of dice-envs brings each optional package (README, "Installing it as a library").

The core install is gymnasium + pettingzoo + numpy. Everything else comes with an extra, and the
command line names the extra whenever a missing package stops a command, rather than showing the
``ModuleNotFoundError`` traceback:

>>> install_hint("numba")
"pip install 'dice-envs[solve]'"
>>> install_hint("matplotlib.pyplot")
"pip install 'dice-envs[report]'"
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import NoReturn

from dice_envs.errors import MissingExtraError

#: Top-level import name -> the extra that installs it (pyproject.toml's optional-dependencies).
EXTRA_OF: dict[str, str] = {
    "torch": "train",
    "stable_baselines3": "train",
    "sb3_contrib": "train",
    "safetensors": "train",
    "tensorboard": "train",
    "tqdm": "train",  # also in [solve]; both bring it
    "scipy": "solve",
    "numba": "solve",
    "openskill": "report",
    "rich": "report",
    "matplotlib": "report",
    "ray": "ray",
    "pyspiel": "openspiel",
    "open_spiel": "openspiel",
    "pytest": "dev",
    "hypothesis": "dev",
    "pygame": "dev",
    "mypy": "dev",
}

#: The packages of dice-envs itself: one of these missing means a broken installation.
OWN_PACKAGES = ("dice_envs", "agents", "train", "evaluate")


class NotInstalled(MissingExtraError):
    """What was asked needs a package this installation lacks; the message says what to install.

    The :class:`~dice_envs.errors.MissingExtraError` the package raises (under the name it had
    before that class existed): an ``ImportError``, and still a ``ValueError``, so the documented
    errors of :func:`agents.make_agent` still hold; the command line exits with 1 for it (an
    installation problem), not 2 (bad usage).
    """


def install_hint(module_name: str) -> str:
    """The pip command that brings ``module_name`` (a dotted import name) into this installation."""
    top = module_name.split(".")[0]
    extra = EXTRA_OF.get(top)
    if extra is not None:
        return f"pip install 'dice-envs[{extra}]'"
    if top in OWN_PACKAGES:
        return "reinstall dice-envs"
    return f"pip install {top}"


def missing_package(
    exc: ModuleNotFoundError, what: str, *, own: bool = False, extra: str | None = None
) -> NotInstalled | None:
    """The error to raise when ``what`` (say ``"agent 'endgame' for syvere"``) cannot run because
    ``exc`` names a package that is not installed; ``None`` when ``exc`` is something else.

    Only a package of an extra (:data:`EXTRA_OF`, or any package when ``extra`` names the extra
    to suggest) that cannot be imported counts. A missing part of an installed package, or a
    module of our own (unless ``own``: the caller imported that module by name), is a bug or a
    broken installation, for its traceback to show.
    """
    name = exc.name
    if not name:
        return None
    top = name.split(".")[0]
    if top in OWN_PACKAGES:
        if not own:
            return None
        return NotInstalled(f"{what} is not available: its module {name} is missing from this installation")
    if (top not in EXTRA_OF and extra is None) or _importable(top):
        return None
    hint = install_hint(top) if top in EXTRA_OF else f"pip install 'dice-envs[{extra}]'"
    return NotInstalled(f"{what} needs the package {top!r}, which is not installed: {hint}")


def raise_missing(exc: ModuleNotFoundError, what: str, *, own: bool = False, extra: str | None = None) -> NoReturn:
    """Raise :func:`missing_package`'s error for ``exc``, or ``exc`` itself when it is not one."""
    error = missing_package(exc, what, own=own, extra=extra)
    if error is None:
        raise exc
    raise error from exc


def import_own(name: str) -> ModuleType:
    """Import ``name`` (``"agents"``, ``"train.view"``) from dice-envs' own packages.

    ``agents``, ``train`` and ``evaluate`` install as top-level packages beside ``dice_envs``, so a
    module of the same name that comes first on ``sys.path`` (a ``train.py`` or ``agents.py`` in the
    working directory) hides them. That is refused here with a message naming the module in the
    way, where Python would fail later on a missing attribute (``module 'agents' has no attribute
    'make_agent'``).

    Raises:
        ImportError: the top-level package found under that name is not the one installed beside
            ``dice_envs``.
    """
    top = name.split(".")[0]
    if top not in OWN_PACKAGES:
        raise ValueError(f"{top!r} is not a package of dice-envs; they are {', '.join(OWN_PACKAGES)}")
    # Found without being run: a user's train.py in the way is named, not executed.
    module = sys.modules.get(top)
    if module is not None:
        where, is_package = getattr(module, "__file__", None), hasattr(module, "__path__")
        folders = list(getattr(module, "__path__", []))
    else:
        spec = importlib.util.find_spec(top)
        if spec is None:
            raise ModuleNotFoundError(f"No module named {top!r}", name=top)
        where, is_package = spec.origin, spec.submodule_search_locations is not None
        folders = list(spec.submodule_search_locations or [])
    root = Path(__file__).resolve().parent.parent  # the directory holding dice_envs and its siblings
    if not (is_package and where and Path(where).resolve().parent.parent == root):
        if not where and folders:  # a folder without __init__.py: Python takes it as a namespace package
            where = f"the folder {folders[0]} (a folder without __init__.py is a package to Python)"
        raise ImportError(
            f"dice-envs' package {top!r} is hidden by {where or repr(module)}, which comes first on "
            "sys.path (often a file in the working directory): rename it, or run from another directory",
            name=top,
        )
    return importlib.import_module(name)


def _importable(module: str) -> bool:
    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True


__all__ = ["EXTRA_OF", "OWN_PACKAGES", "NotInstalled", "import_own", "install_hint", "missing_package", "raise_missing"]
