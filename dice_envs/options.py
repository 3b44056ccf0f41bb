"""Game options and typed values from the command line, parsed by type, never by evaluating text.

Every option of a game has a type, taken from the engine: the type annotation of its
``__init__`` parameter, or, for options an engine takes through a preset table (Ten thousand's
``**options``), the type of the value in that table. Text becomes a value of that type only:

>>> parse_game_options("meyer", ["--lives", "3", "--lille-meyer=false"])
{'lives': 3, 'lille_meyer': False}
>>> parse_game_options("tenthousand", ["--preset", "no", "--target", "5000"])
{'preset': 'no', 'target': 5000}

The same value parser (:func:`parse_value`) reads the parameters of agent SPECs
(``agents.spec``), so ``true``, ``1/4`` or ``(7,4)`` mean the same thing everywhere.
"""

from __future__ import annotations

import inspect
import math
import re
import types
import typing
from fractions import Fraction
from typing import Any

from dice_envs.errors import InvalidOptionError

#: Whole numbers are refused beyond the int64 range: no option or parameter needs more, and a
#: larger number would only overflow an observation bound or an array later, far from its cause.
INT_LIMIT = 2**63 - 1
#: The longest text read as a number; keeps pathological inputs (``1e999999999``) cheap.
MAX_NUMBER_CHARS = 40

_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")
# ASCII digits only: \d would also take other scripts' digits (int("٣") is 3).
_INT = re.compile(r"[+-]?[0-9]+")
# A decimal without an exponent, or a ratio of two whole numbers: the forms Fraction(text) is
# given (an exponent such as 1e999999999 would make Fraction build a huge integer).
_FRACTION = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)(/[0-9]+)?")


def type_name(kind: Any) -> str:
    """A readable name of a type used in messages: ``int``, ``Fraction``, ``tuple of ints``."""
    if kind is None or kind is type(None):
        return "None"
    if _optional_of(kind) is not None:
        return f"{type_name(_optional_of(kind))} or none"
    if typing.get_origin(kind) is tuple:
        args = typing.get_args(kind)
        return f"tuple of {type_name(args[0])}s" if args else "tuple"
    return getattr(kind, "__name__", str(kind))


def _optional_of(kind: Any) -> Any:
    """``X`` if ``kind`` is ``X | None`` (or ``Optional[X]``), else ``None``."""
    if typing.get_origin(kind) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(kind) if a is not type(None)]
        if len(args) == 1 and len(typing.get_args(kind)) == 2:
            return args[0]
    return None


def _example(kind: Any) -> str:
    if kind is bool:
        return "true or false"
    if kind is int:
        return "a whole number such as 3"
    if kind is float:
        return "a number such as 0.25 or 1/4"
    if kind is Fraction:
        return "a number such as 1/4 or 0.25"
    if typing.get_origin(kind) is tuple:
        return "numbers in brackets such as (7,4); whole numbers also as 7/4"
    return "text"


def _ratio(text: str) -> Fraction:
    """``text`` as a Fraction, of the form :data:`_FRACTION` matches: ``3``, ``0.25``, ``1/4``, and
    also ``1.5/2`` (a decimal over a whole number), which ``Fraction`` itself does not read."""
    top, _, bottom = text.partition("/")
    return Fraction(top) / Fraction(bottom) if bottom else Fraction(top)


def parse_value(text: str, kind: Any, what: str) -> Any:
    """Read ``text`` as a value of type ``kind``; ``ValueError`` naming ``what`` if it is not one.

    Args:
        text: the words given (``"3"``, ``"false"``, ``"1/4"``, ``"(7,4)"``, ``"none"``).
        kind: ``bool``, ``int``, ``float``, ``Fraction``, ``str``, ``tuple[int, ...]`` (or
            ``tuple[float, ...]``, ``tuple[Fraction, ...]``), or any of them ``| None``.
        what: how the message names the value, e.g. ``"option --lives"`` or
            ``"bluffer: lie_probability"``.

    Raises:
        ValueError: the text is not a value of that type, or a number is out of range.
    """
    if not isinstance(text, str):
        raise ValueError(f"{what}: expected text to read as {type_name(kind)}, got {text!r}")
    stripped = text.strip()
    inner = _optional_of(kind)
    if inner is not None:
        if stripped.lower() == "none":
            return None
        kind = inner
    wrong = ValueError(f"{what} must be {type_name(kind)} ({_example(kind)}), got {text!r}")
    if kind is str:
        return text
    if kind is bool:
        lowered = stripped.lower()
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
        raise wrong
    if len(stripped) > MAX_NUMBER_CHARS and kind in (int, float, Fraction):
        raise ValueError(f"{what}: {text[:20]}... is too long for {type_name(kind)}")
    if kind is int:
        if not _INT.fullmatch(stripped):
            raise wrong
        value = int(stripped)
        if abs(value) > INT_LIMIT:
            raise ValueError(f"{what}: {stripped} is too large (the limit is {INT_LIMIT})")
        return value
    if kind is float:
        if not stripped.isascii():
            raise wrong
        try:  # a ratio (1/3) too, as for a Fraction: a probability is often written so
            number = float(_ratio(stripped)) if "/" in stripped and _FRACTION.fullmatch(stripped) else float(stripped)
        except ZeroDivisionError:
            raise ValueError(f"{what}: {text!r} divides by zero") from None
        except ValueError:
            raise wrong from None
        if not math.isfinite(number):
            raise ValueError(f"{what} must be a finite number, got {text!r}")
        return number
    if kind is Fraction:
        if not _FRACTION.fullmatch(stripped):
            raise wrong
        try:
            return _ratio(stripped)
        except ZeroDivisionError:
            raise ValueError(f"{what}: {text!r} divides by zero") from None
    if typing.get_origin(kind) is tuple:
        args = typing.get_args(kind)
        item = args[0] if args else int
        body = stripped
        if body[:1] in "([" and body[-1:] in ")]":
            body = body[1:-1]
            parts = body.split(",") if body.strip() else []
        elif item is int:
            parts = body.split("/")  # 7/4: no brackets to quote in a shell
        else:
            parts = [body]
        if len(parts) > 64:
            raise ValueError(f"{what}: at most 64 entries, got {len(parts)}")
        try:
            return tuple(parse_value(p, item, what) for p in parts)
        except ValueError:
            raise ValueError(f"{what} must be a {type_name(kind)} ({_example(kind)}), got {text!r}") from None
    raise ValueError(f"{what}: values of type {type_name(kind)} cannot be given as text")


def declared_types(function, defaults_from=None) -> dict[str, Any]:
    """The declared type of every keyword parameter of ``function``.

    A parameter's type is its annotation (resolved with :func:`typing.get_type_hints`), else the
    type of its default (``X | None`` when the default is ``None`` and nothing else says more).
    Parameters with neither are left out.
    """
    try:
        hints = typing.get_type_hints(function)
    except Exception:  # an annotation naming something undefined: fall back on the defaults
        hints = {}
    result = {}
    for name, param in inspect.signature(function).parameters.items():
        if name == "self" or param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        if name in hints:
            result[name] = hints[name]
        elif param.default is not param.empty and param.default is not None:
            result[name] = _type_of_value(param.default)
    return result


def _type_of_value(value: Any) -> Any:
    if isinstance(value, tuple):
        items = {type(v) for v in value}
        # A type built at run time (tuple[int, ...] for a tuple of ints), not an annotation.
        return tuple[items.pop(), ...] if len(items) == 1 else tuple  # type: ignore[misc]
    return type(value)


def game_class(game: str):
    """The rules engine class of a game, by short name (``"syvere"``) or registry id."""
    from dice_envs.registry import env_module

    return env_module(game).raw_env.game_class


def option_types(game: str) -> dict[str, Any]:
    """The options of a game (short name or registry id) and their types, in the engine's order.

    >>> option_types("syvere")["max_rolls"], option_types("meyer")["lille_meyer"]
    (<class 'int'>, <class 'bool'>)
    """
    engine_class = game_class(game)
    result = declared_types(engine_class.__init__)
    # Engines that take **options (a preset's table) list them on a default instance; a value
    # that is None in some preset and set in another makes the type optional.
    table = getattr(engine_class(), "options", {}) or {}
    presets = getattr(inspect.getmodule(engine_class), "PRESETS", {}) or {}
    for name, value in table.items():
        if name in result:
            continue
        values = [p[name] for p in presets.values() if name in p] or [value]
        set_values = [v for v in values if v is not None]
        kind = _type_of_value(set_values[0]) if set_values else str
        result[name] = kind | None if len(set_values) < len(values) else kind
    return result


def option_defaults(game: str, options: dict | None = None) -> dict[str, Any]:
    """The default value of every option of a game (with its default preset, if it has one).

    With ``options`` (say ``{"preset": "farkle"}``): the values in force under them instead, as the
    engine resolves them (a preset's table, with any option given overriding its entry).

    >>> option_defaults("tenthousand", {"preset": "farkle"})["opening"]
    300

    Raises:
        ValueError: ``options`` the engine refuses.
    """
    engine_class = game_class(game)
    params = inspect.signature(engine_class.__init__).parameters.values()
    defaults = {p.name: p.default for p in params if p.name != "self" and p.default is not p.empty}
    defaults.update(options or {})
    defaults.update(getattr(engine_class(**(options or {})), "options", {}) or {})
    return defaults


def _differences(values: dict, reference: dict) -> list[str]:
    """``name=value`` for every entry of ``values`` that ``reference`` lacks or holds otherwise, by name."""
    missing = object()
    return [
        f"{name}={value}" for name, value in sorted(values.items()) if reference.get(name, missing) != value
    ]


def options_summary(game: str, options: dict) -> str:
    """Game options in a few words: what differs from the game's defaults, ``""`` if nothing does.

    A game with presets (10 000's ``dk``, ``no``, ``farkle``) is told as a preset and what differs
    from it: the preset ``options`` name (``preset``), else the preset they differ least from, and
    always named (``preset=dk`` too), since the preset says most of the rules. ``options`` may hold
    every option in force (a built engine's) or only some (those not given are the defaults'); a
    name that is no option of the game is listed as it is.

    >>> options_summary("meyer", {"lives": 2, "claim_rule": "at_least"})
    'lives=2'
    >>> farkle = option_defaults("tenthousand", {"preset": "farkle"})  # every option in force
    >>> options_summary("tenthousand", {**farkle, "target": 1000})
    'preset=farkle, target=1000'
    >>> from dice_envs.games.tenthousand import PRESETS
    >>> options_summary("tenthousand", {**PRESETS["no"], "target": 2000})  # the nearest preset
    'preset=no, target=2000'
    """
    defaults = option_defaults(game)
    values = dict(options)
    presets = getattr(inspect.getmodule(game_class(game)), "PRESETS", {}) or {}
    if not presets:
        return ", ".join(_differences(values, defaults))
    named = values.pop("preset", None)
    if named in presets:
        preset = named
    else:
        preset = min(presets, key=lambda name: len(_differences(values, presets[name])))
        if named is not None:
            values["preset"] = named  # not one of the game's presets: shown as it is
    return ", ".join([f"preset={preset}", *_differences(values, {**defaults, **presets[preset]})])


def option_choices(game: str) -> dict[str, tuple]:
    """The options of a game that take one of a few values, with those values, in the engine's order.

    They are the engine's ``CHOICES``, the values its own checks accept, so this list cannot
    drift from the engine's:

    >>> option_choices("meyer")["claim_rule"]
    ('at_least', 'higher')
    """
    return dict(game_class(game).CHOICES)


def option_flag(name: str) -> str:
    """A game option's command-line flag: ``num_players`` -> ``--num-players``."""
    return "--" + name.replace("_", "-")


def parse_game_options(game: str, words: list[str]) -> dict:
    """Read a game's options from command-line words: ``--name value`` or ``--name=value``.

    Names are the engine's option names with ``-`` or ``_`` (``--num-players``,
    ``--num_players``); values are read by the option's type (:func:`option_types`).

    Raises:
        InvalidOptionError: (a ``ValueError``) a word that is not an option, an unknown option (the
            message lists the game's options), a missing value, or a value that is not of the
            option's type.
    """
    types_ = option_types(game)
    options: dict[str, Any] = {}
    i = 0
    while i < len(words):
        word = words[i]
        if not word.startswith("--") or len(word) == 2:
            raise InvalidOptionError(f"game options go as --name value; could not read {word!r}")
        name, has_value, text = word[2:].partition("=")
        key = name.replace("-", "_")
        if key not in types_:
            known = ", ".join(option_flag(n) for n in types_)
            raise InvalidOptionError(f"unknown option {key!r} ({word.split('=')[0]}) for {game}; options are: {known}")
        if has_value:
            i += 1
        else:
            if i + 1 >= len(words):
                raise InvalidOptionError(f"option {option_flag(key)} needs a value ({type_name(types_[key])})")
            text = words[i + 1]
            i += 2
        if key in options:
            raise InvalidOptionError(f"option {option_flag(key)} is given twice")
        try:
            options[key] = parse_value(text, types_[key], f"option {option_flag(key)}")
        except ValueError as exc:  # parse_value also reads agents' parameters: the class is said here
            raise InvalidOptionError(str(exc)) from None
    return options


def check_game_options(game: str, options: dict, refused: str | None = None) -> dict:
    """Refuse names that are not options of ``game``; return ``options`` (a copy).

    Uses the env adapter's check (``dice_envs.env.check_options``) with no extra names, so the
    message lists the game's options only; ``render_mode`` and ``max_cycles``, which the env
    itself takes, are refused with a message saying so when ``refused`` names the caller.

    Raises:
        InvalidOptionError: (a ``ValueError``) an unknown option, naming it and the game's options.
    """
    options = dict(options)
    if refused:
        for name in ("render_mode", "max_cycles"):
            if name in options:
                raise InvalidOptionError(f"{name} is not an option of {refused}")
    known = option_types(game)
    unknown = [name for name in options if name not in known]
    if unknown:
        try:
            from dice_envs.env import check_options

            check_options(game_class(game), options, extras=())
        except TypeError:  # an adapter without the extras argument: fall through to our message
            pass
        listed = ", ".join(known)
        raise InvalidOptionError(
            f"unknown option{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))} for {game}; "
            f"options are: {listed}"
        )
    return options


__all__ = [
    "check_game_options",
    "option_choices",
    "option_defaults",
    "option_types",
    "options_summary",
    "parse_game_options",
    "parse_value",
    "type_name",
]
