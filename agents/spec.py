"""Agent SPECs: the one parser of the strings that name an agent (docs/cli.md).

A SPEC is ``NAME``, ``NAME:KEY=VALUE[,KEY=VALUE...]``, ``MODULE:CLASS[:KEY=VALUE,...]`` or a path
to a checkpoint:

* ``NAME`` is an agent registered for the game (``agents.AGENTS[game]``: ``random``,
  ``heuristic``, ``bluffer``, ``optimal`` ...) or the name of its class (``BlufferAgent``).
* Each ``VALUE`` is read by the type annotation of the agent class's ``__init__`` parameter
  ``KEY`` (int, float, bool, Fraction, str, tuple of ints; the default's type when there is no
  annotation), never by evaluating text: ``true``/``false``, ``0.3`` or ``1/3``, ``(7,4)`` or
  ``7/4`` for a tuple of whole numbers (see :func:`dice_envs.options.parse_value`).
* ``MODULE:CLASS`` is an agent class of your own (``myagents:LastLegal``,
  ``lab.agents:Cautious:margin=2``): the module is imported (from ``sys.path``, else from the working
  directory, as ``uvicorn main:app`` does) and the class built as ``CLASS(game, seed=..., **params)``
  with its parameters read like a registered agent's. Every process of a tournament imports it
  itself, so it works whatever starts the workers. It runs your code: a SPEC names code to import,
  unlike a checkpoint, which is never executed.
* Anything else that looks like a path (it contains ``/`` or ``\\``, ends in ``.safetensors``,
  or exists on disk) is a checkpoint: the directory or its ``policy.safetensors``. A registered
  name wins over a file of the same name; write ``./random`` for the file. A checkpoint takes the
  parameters of the ``trained`` agent but its path (``runs/x/policy:greedy=false``): a trailing
  ``:KEY=VALUE,...`` is read as parameters when the path before it exists and the whole text does not.

>>> parse_spec("meyer", "bluffer:lie_probability=1/3,reroll=false")
('bluffer', {'lie_probability': Fraction(1, 3), 'reroll': False})
>>> parse_spec("syvere", "random")
('random', {})
"""

from __future__ import annotations

import importlib
import inspect
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from dice_envs.errors import InvalidSpecError
from dice_envs.extras import raise_missing
from dice_envs.options import declared_types, parse_value, type_name

if TYPE_CHECKING:
    from agents.base import Agent

_NAME = re.compile(r"[A-Za-z_]\w*")
#: ``MODULE:CLASS`` of an agent class of the user's (then ``:KEY=VALUE,...`` may follow).
_USER_CLASS = re.compile(r"([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*):([A-Za-z_]\w*)")
#: Parameters a SPEC never sets: the game is the command's, the seed is given separately.
_RESERVED = ("game", "seed")


def resolve_entry(game_name: str, name: str, entry: Any) -> type[Agent]:
    """The agent class of a registry entry: a class, or a lazy ``"module:Class"`` string.

    Raises:
        ValueError: the entry's module (or a package it needs) is missing, or has no such class.
    """
    if not isinstance(entry, str):
        return entry
    if entry == name:  # MODULE:CLASS named in a SPEC: the user's code
        return _user_class(game_name, name)
    module_name, _, class_name = entry.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        raise_missing(exc, f"agent {name!r} for {game_name}", own=True)
    try:
        return getattr(module, class_name)
    except AttributeError:
        raise InvalidSpecError(f"agent {name!r} for {game_name} is not available: {module_name} has no {class_name}") from None


def _user_class(game_name: str, name: str) -> type[Agent]:
    """The class a ``MODULE:CLASS`` SPEC names, imported from ``sys.path`` or else the working directory."""
    import sys

    from dice_envs.extras import OWN_PACKAGES

    module_name, _, class_name = name.partition(":")
    top = module_name.split(".")[0]
    if top in OWN_PACKAGES:
        raise InvalidSpecError(
            f"agent {name!r} for {game_name}: {top!r} is a package of dice-envs; name its agents by their "
            f"names ({', '.join(sorted(_table(game_name)))}), and give a module of your own another name"
        )
    cwd = os.getcwd()
    added = False
    for attempt in range(2):
        try:
            module = importlib.import_module(module_name)
            break
        except ModuleNotFoundError as exc:
            if exc.name != top:  # the module is there but imports something missing
                raise InvalidSpecError(f"agent {name!r} for {game_name}: cannot import {module_name}: {exc}") from exc
            if attempt or cwd in sys.path:
                if added:  # found nothing there: leave sys.path as it was
                    sys.path.remove(cwd)
                raise InvalidSpecError(
                    f"agent {name!r} for {game_name}: no module {top!r} on sys.path or in the working "
                    f"directory {cwd}"
                ) from None
            # The console script's sys.path holds its own directory, not the working one. It stays
            # there once the module is found, for what the module imports later.
            sys.path.append(cwd)
            added = True
        except Exception as exc:  # a syntax error or a failing import-time statement in the user's code
            raise InvalidSpecError(
                f"agent {name!r} for {game_name}: importing {module_name} failed: {type(exc).__name__}: {exc}"
            ) from exc
    cls = getattr(module, class_name, None)
    if not inspect.isclass(cls) or not callable(getattr(cls, "act", None)):
        raise InvalidSpecError(
            f"agent {name!r} for {game_name}: {module_name}.{class_name} is not an agent class "
            "(a class with act(observation, action_mask), built as CLASS(game, seed=..., **params))"
        )
    return cast("type[Agent]", cls)  # the protocol, checked above; Agent is its base class


def _table(game_name: str) -> dict:
    from agents import AGENTS, RandomAgent

    return AGENTS.get(game_name, {"random": RandomAgent})


def _class_name(entry: Any) -> str:
    return entry.partition(":")[2] if isinstance(entry, str) else entry.__name__


def lookup(game_name: str, name: str) -> tuple[str, Any]:
    """The registered name and registry entry (class or lazy string) of ``name`` for a game.

    ``name`` is a registered name or the name of a registered class; nothing is imported.

    Raises:
        ValueError: an unknown name, listing the game's agents.
    """
    table = _table(game_name)
    if name in table:
        return name, table[name]
    if _USER_CLASS.fullmatch(name):
        return name, name  # resolved by resolve_entry, which imports it
    for registered, entry in table.items():
        if _class_name(entry) == name:
            return registered, entry
    raise InvalidSpecError(f"unknown agent {name!r} for {game_name}; choose from {', '.join(sorted(table))}")


def split_user_spec(text: str) -> tuple[str, str | None] | None:
    """``(MODULE:CLASS, parameters or None)`` when ``text`` has the form of a SPEC naming a class of
    the user's, else ``None`` (whether MODULE is a registered agent's name is the caller's to ask).

    >>> split_user_spec("lab.agents:Cautious:margin=2")
    ('lab.agents:Cautious', 'margin=2')
    >>> split_user_spec("bluffer:lie_probability=0.3") is None
    True
    """
    match = re.fullmatch(r"\s*([\w.]+\s*:\s*[A-Za-z_]\w*)\s*(?::(.*))?", text, flags=re.S)
    if match is None:
        return None
    name = "".join(match.group(1).split())
    return (name, match.group(2)) if _USER_CLASS.fullmatch(name) else None


def known_name(name: str) -> bool:
    """Whether ``name`` is an agent's registered name, or its class's, in any game: such a name
    before ``:`` starts ``NAME:KEY=VALUE``, never ``MODULE:CLASS`` (the one rule for every caller)."""
    from agents import AGENTS

    return any(name in table or any(_class_name(e) == name for e in table.values()) for table in AGENTS.values())


def _looks_like_path(spec: str) -> bool:
    return "/" in spec or "\\" in spec or spec.endswith(".safetensors") or spec.startswith(("~", ".")) or os.path.exists(spec)


def split_checkpoint_spec(text: str) -> tuple[str, str] | None:
    """``(path, parameters)`` when ``text`` is a checkpoint path with a trailing ``:KEY=VALUE,...``
    (``runs/x/policy:greedy=false``), else ``None``.

    Only a suffix after the last ``:`` is read, and only when the text as a whole names nothing
    on disk, the path before the ``:`` exists, and the suffix holds no path separator: a path that
    contains ``:`` (``C:\\runs\\x``, a directory named ``a:b``) stays a path.
    """
    text = text.strip()
    path, colon, body = text.rpartition(":")
    path = path.rstrip()
    if not colon or not path or "/" in body or "\\" in body:
        return None
    if os.path.exists(os.path.expanduser(text)) or not os.path.exists(os.path.expanduser(path)):
        return None
    return path, body


def checkpoint_parameter_types() -> dict[str, Any]:
    """The parameters a checkpoint path SPEC may set: those ``agents.checkpoint.load_agent`` takes
    besides the game, the path and the seed (the ``trained`` agent's, ``greedy``)."""
    from agents.checkpoint import load_agent

    return {k: t for k, t in declared_types(load_agent).items() if k not in (*_RESERVED, "path")}


def parameter_types(game_name: str, name: str) -> dict[str, Any]:
    """The parameters a SPEC may set for agent ``name`` of a game, with their types."""
    registered, entry = lookup(game_name, name)
    cls = resolve_entry(game_name, registered, entry)
    return {key: kind for key, kind in declared_types(cls.__init__).items() if key not in _RESERVED}


def parse_spec(game_name: str, spec: str) -> tuple[str | Path, dict]:
    """Read a SPEC: ``(registered name, {key: value})``, or ``(Path, {key: value})`` for a checkpoint.

    Args:
        game_name: the game's short name (``syvere``, ``tenthousand``, ``meyer``).
        spec: ``NAME``, ``NAME:KEY=VALUE,...``, ``MODULE:CLASS[:KEY=VALUE,...]`` or a checkpoint path
            (``PATH[:KEY=VALUE,...]``, see :func:`split_checkpoint_spec`).

    Raises:
        ValueError: an unknown agent (listing the game's agents), an unknown key (listing the
            agent's parameters), or a value not of the key's type (naming agent, key and type).
    """
    if not isinstance(spec, str):
        raise InvalidSpecError(f"an agent SPEC is text such as 'random' or 'bluffer:lie_probability=0.3', got {spec!r}")
    text = spec.strip()
    if not text:
        raise InvalidSpecError("an empty agent SPEC")
    head, has_params, body = text.partition(":")
    head = head.strip()
    user = split_user_spec(text)
    if user is not None and not known_name(head):
        name, params = user
        if params is not None and not params.strip():
            raise InvalidSpecError(
                f"agent SPEC {spec!r} ends with ':' but sets no parameter; write {name!r} or {name}:KEY=VALUE,..."
            )
        return name, _parse_params(game_name, name, params or "")
    if _NAME.fullmatch(head):
        try:
            registered, _ = lookup(game_name, head)
        except ValueError:
            if split_checkpoint_spec(text) is None and (has_params or not _looks_like_path(text)):
                raise  # an unknown agent: the message lists the game's agents
        else:
            if has_params and not body.strip():
                raise InvalidSpecError(
                    f"agent SPEC {spec!r} ends with ':' but sets no parameter; write {head!r} or "
                    f"{head}:KEY=VALUE,..."
                )
            return registered, _parse_params(game_name, registered, body)
    checkpoint = split_checkpoint_spec(text)
    if checkpoint is not None:
        path, body = checkpoint
        if not body.strip():
            raise InvalidSpecError(
                f"agent SPEC {spec!r} ends with ':' but sets no parameter; write {path!r} or {path}:KEY=VALUE,..."
            )
        return Path(path).expanduser(), _parse_params(game_name, path, body, checkpoint_parameter_types())
    if _looks_like_path(text):
        return Path(text).expanduser(), {}
    table = _table(game_name)
    raise InvalidSpecError(
        f"cannot read the agent SPEC {spec!r}: not NAME, NAME:KEY=VALUE,..., MODULE:CLASS or a checkpoint path; "
        f"agents of {game_name}: {', '.join(sorted(table))}"
    )


def _split_params(body: str) -> list[str]:
    """Split ``k=v,k2=(1,2)`` at the commas outside brackets."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(body):
        if c in "([":
            depth += 1
        elif c in ")]":
            depth = max(0, depth - 1)
        elif c == "," and depth == 0:
            parts.append(body[start:i])
            start = i + 1
    parts.append(body[start:])
    return parts


def _parse_params(game_name: str, name: str, body: str, types_: dict[str, Any] | None = None) -> dict:
    if not body.strip():
        return {}
    if types_ is None:
        types_ = parameter_types(game_name, name)
    listed = ", ".join(f"{k} ({type_name(t)})" for k, t in types_.items()) or "none"
    params: dict[str, Any] = {}
    for part in _split_params(body):
        key, has_value, value = part.partition("=")
        key = key.strip()
        if not has_value or not key:
            hint = ""
            if not has_value and part.strip():
                hint = (f"; if {part.strip()!r} is another agent, give it as a SPEC of its own "
                        f"(separate words on the command line, separate strings in Python)")
            raise InvalidSpecError(f"agent {name!r}: parameters go as KEY=VALUE, could not read {part!r}{hint}")
        if key in _RESERVED:
            raise InvalidSpecError(f"agent {name!r}: {key} is not set in a SPEC (the command sets it)")
        if key not in types_:
            raise InvalidSpecError(f"agent {name!r} has no parameter {key!r}; its parameters: {listed}")
        if key in params:
            raise InvalidSpecError(f"agent {name!r}: parameter {key!r} is given twice")
        try:
            params[key] = parse_value(value.strip(), types_[key], f"agent {name!r}: {key}")
        except InvalidSpecError:
            raise
        except ValueError as exc:  # a value not of the key's type: a SPEC error like the others
            raise InvalidSpecError(str(exc)) from None
    return params


def spec_label(spec: Any) -> str:
    """A short label for an entrant: the SPEC text, ``name(k=v)`` for a pair, a class name."""
    if isinstance(spec, str):
        return spec.strip()
    if isinstance(spec, Path):
        return str(spec)
    if isinstance(spec, tuple) and len(spec) == 2:
        name, params = spec
        return f"{name}({','.join(f'{k}={v}' for k, v in params.items())})" if params else str(name)
    return type(spec).__name__


def _check_constructor(cls, name: str) -> None:
    """Refuse (``ValueError``) a class that cannot be built as ``CLASS(game, seed=..., **params)``,
    read from its signature before it is called: a ``TypeError`` raised inside the constructor's
    body is the class's own and passes through as it is."""
    try:
        signature = inspect.signature(cls)
    except (TypeError, ValueError):  # no signature to read (a builtin): let the call tell
        return
    parameters = list(signature.parameters.values())
    # The game is the first positional parameter; ``seed`` does not count as one (CLASS(seed=None)
    # would take the game as its seed, then fail on seed=...).
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.name != "seed"]
    takes_game = bool(positional) or any(p.kind is p.VAR_POSITIONAL for p in parameters)
    seed = signature.parameters.get("seed")
    takes_seed = (seed is not None and seed.kind in (seed.POSITIONAL_OR_KEYWORD, seed.KEYWORD_ONLY)) or any(
        p.kind is p.VAR_KEYWORD for p in parameters
    )
    if takes_game and takes_seed:
        return
    where = f"{cls.__module__}.{cls.__qualname__}"
    raise InvalidSpecError(
        f"agent {name!r}: {where} must be built as CLASS(game, seed=..., **params), but its constructor "
        f"is {cls.__name__}{signature}" + (
            "" if takes_seed else "; give it a seed=None parameter and pass it on (super().__init__(game, seed))"
        )
    )


def _fits(value: Any, kind: Any) -> bool:
    """Whether a Python ``value`` is of the declared ``kind`` (a SPEC parameter's type); kinds the
    SPEC reader does not know pass (the agent checks them itself)."""
    import numbers
    import typing
    from fractions import Fraction

    from dice_envs.options import _optional_of

    inner = _optional_of(kind)
    if inner is not None:
        return value is None or _fits(value, inner)
    import numpy as np

    if isinstance(value, (bool, np.bool_)):  # numpy's bool too
        return kind is bool
    if kind is bool:
        return False
    if kind is int:
        return isinstance(value, numbers.Integral)
    if kind in (float, Fraction):
        return isinstance(value, numbers.Real)
    if kind is str:
        return isinstance(value, str)
    if typing.get_origin(kind) is tuple:
        args = [a for a in typing.get_args(kind) if a is not Ellipsis]
        return isinstance(value, (tuple, list)) and all(_fits(v, args[0]) for v in value) if args else True
    return True


def check_python_params(who: str, params: dict, types_: dict[str, Any]) -> None:
    """Refuse a parameter given as a Python value of another type than the agent declares
    (``greedy="false"``, which ``bool()`` would read as true; ``2.7`` for an int): a SPEC's text
    is read by the type, a Python value is taken as it is, so it must be one already.

    Raises:
        dice_envs.errors.InvalidSpecError: (a ``ValueError``) naming the agent, the key and its type.
    """
    for key, value in params.items():
        kind = types_.get(key)
        if kind is not None and not _fits(value, kind):
            text = " (text is read by type only in a SPEC, e.g. 'NAME:KEY=VALUE')" if isinstance(value, str) else ""
            raise InvalidSpecError(f"{who}: {key} must be {type_name(kind)}, got {value!r}{text}")


def build(game, spec: str, seed: int | None = None, **params):
    """Build the agent a SPEC names for ``game`` (an engine); ``params`` override the SPEC's.

    Raises:
        ValueError: a bad SPEC, or parameters the agent refuses.
    """
    name, spec_params = parse_spec(game.name, spec)
    if isinstance(name, Path):
        merged = {**spec_params, **params}
        try:
            if params:
                allowed = checkpoint_parameter_types()
                unknown = [k for k in params if k not in allowed]
                if unknown and not allowed:
                    raise InvalidSpecError(f"a checkpoint SPEC takes no parameters, got {', '.join(params)}")
                if unknown:
                    listed = ", ".join(f"{k} ({type_name(t)})" for k, t in allowed.items())
                    raise InvalidSpecError(
                        f"checkpoint {str(name)!r} has no parameter {unknown[0]!r}; its parameters: {listed}"
                    )
            from agents.checkpoint import load_agent

            check_python_params(f"checkpoint {str(name)!r}", params, checkpoint_parameter_types())
            return load_agent(game, name, seed=seed, **merged)
        except ModuleNotFoundError as exc:  # torch or safetensors: the [train] extra
            raise_missing(exc, f"checkpoint {str(name)!r}")
    registered, entry = lookup(game.name, name)
    cls = resolve_entry(game.name, registered, entry)
    merged = {**spec_params, **params}
    accepted = inspect.signature(cls.__init__).parameters
    takes_any = any(p.kind is p.VAR_KEYWORD for p in accepted.values())
    _check_constructor(cls, registered)
    unknown = [k for k in merged if k not in accepted and not takes_any]
    if unknown:
        listed = ", ".join(parameter_types(game.name, registered)) or "none"
        raise InvalidSpecError(f"agent {registered!r} has no parameter {unknown[0]!r}; its parameters: {listed}")
    check_python_params(f"agent {registered!r}", params, parameter_types(game.name, registered))
    try:
        return cls(game, seed=seed, **merged)
    except ModuleNotFoundError as exc:  # a package the agent imports only when it is built
        raise_missing(exc, f"agent {registered!r} for {game.name}")


__all__ = [
    "build", "checkpoint_parameter_types", "known_name", "lookup", "parameter_types", "parse_spec", "resolve_entry",
    "spec_label", "split_checkpoint_spec", "split_user_spec",
]  # fmt: skip
