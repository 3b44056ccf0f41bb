"""The words of a situation given to ``dice-envs solve GAME --describe``: ``key=value`` pairs
separated by commas, read the same way for every game (``agents.solvers.tenthousand`` and
``agents.solvers.syvere_describe`` read the values)."""

from __future__ import annotations

#: The words read as yes and as no (``opened=yes``, ``starter=no``).
YES, NO = ("yes", "true", "1"), ("no", "false", "0")


def key_value_pairs(text, keys: tuple[str, ...], name: str, example: str) -> dict[str, str]:
    """``{key: value}`` of ``key=value`` pairs separated by commas (keys lower-cased, spaces around
    the parts ignored, empty parts skipped).

    Raises:
        ValueError: no text, a part that is not ``key=value``, a key not in ``keys`` or one given
            twice; the message begins with ``name`` and says what is expected (``example``).
    """
    expected = f"expected key=value pairs separated by commas, such as {example} (keys: {', '.join(keys)})"
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"{name}: no situation given; {expected}")
    given: dict[str, str] = {}
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        key, sep, value = (word.strip() for word in part.partition("="))
        key = key.lower()
        if not sep or not key or not value:
            raise ValueError(f"{name}: {part!r} is not key=value; {expected}")
        if key not in keys:
            raise ValueError(f"{name}: unknown key {key!r}; {expected}")
        if key in given:
            raise ValueError(f"{name}: {key} is given twice")
        given[key] = value
    return given


__all__ = ["NO", "YES", "key_value_pairs"]
