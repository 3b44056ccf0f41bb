"""Which extra of dice-envs brings each optional package (CONTRACTS.md, "Extras").

The core install is gymnasium + pettingzoo + numpy. Everything else comes with an extra, and the
command line names the extra whenever a missing package stops a command, rather than showing the
``ModuleNotFoundError`` traceback:

>>> install_hint("numba")
"pip install 'dice-envs[solve]'"
>>> install_hint("matplotlib.pyplot")
"pip install 'dice-envs[report]'"
"""

from __future__ import annotations

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
    "pytest": "dev",
    "hypothesis": "dev",
    "pygame": "dev",
    "mypy": "dev",
}

#: The packages of dice-envs itself: one of these missing means a broken installation.
OWN_PACKAGES = ("dice_envs", "agents", "train", "evaluate")


class NotInstalled(ValueError):
    """What was asked needs a package this installation lacks; the message says what to install.

    A ``ValueError``, so the documented errors of :func:`agents.make_agent` still hold; the command
    line exits with 1 for it (an installation problem), not 2 (bad usage).
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


def missing_package(exc: ModuleNotFoundError, what: str) -> NotInstalled:
    """``what`` (say ``"agent 'endgame' for syvere"``) cannot run without ``exc.name``: the error to raise."""
    name = exc.name or str(exc)
    top = name.split(".")[0]
    if top in OWN_PACKAGES:
        return NotInstalled(f"{what} is not available: its module {name} is missing from this installation")
    return NotInstalled(f"{what} needs the package {top!r}, which is not installed: {install_hint(name)}")


__all__ = ["EXTRA_OF", "OWN_PACKAGES", "NotInstalled", "install_hint", "missing_package"]
