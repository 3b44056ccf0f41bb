"""Terminal-play hooks for Ten thousand: type the faces to keep, then ``r`` (roll) or ``b`` (bank).

Input, case and spaces ignored:

* ``1 5`` or ``15``: keep a 1 and a 5 and roll the rest (faces alone roll on);
* ``15 r`` / ``15 roll``: the same; ``15 b`` / ``15 bank`` / ``15 stop``: keep them and bank;
* ``b`` / ``bank`` alone: keep the most valuable dice you may bank with, and bank.

The loop also takes the rule book's strings, ``keep 15 roll`` and ``keep 15 bank`` (TT-11).
"""

from __future__ import annotations

from dice_envs import dice as dice_mod
from dice_envs.games import tenthousand as tt

ROLL_WORDS = ("r", "roll", "k", "kast", "slå")
BANK_WORDS = ("b", "bank", "s", "stop", "stopp")
HELP = (
    "Type the faces to keep, e.g. '1 5' or '15', then r to roll on or b to bank ('15 b'); "
    "faces alone roll on; 'b' alone keeps the best dice and banks."
)


def _count(k: int, face: int) -> str:
    return f"{k} {face}" if k == 1 else f"{k} {face}s"


def _name(sel) -> str:
    return dice_mod.to_string(sel)


def _largest_selection(game: tt.Game, dice) -> tuple[int, ...]:
    """The most dice of ``dice`` that can be set aside together (their best value on a tie)."""
    return max(game.selections(dice), key=lambda sv: (len(sv[0]), sv[1]), default=((), 0))[0]


def describe(game: tt.Game, state: tt.State, seat: int) -> str:
    """The roll, which dice score, the legal keeps with their values, and whether a bank is open."""
    roll = state.roll
    lines = [f"  Your roll: {dice_mod.to_unicode(roll)}  ({_name(roll)})   turn total so far: {state.turn_total}"]
    scoring = _largest_selection(game, roll)
    rest = _without(roll, scoring)
    line = f"  Scoring dice: {_name(scoring)}"
    if rest:
        line += f"   (not scoring: {' '.join(map(str, rest))})"
    lines.append(line)
    keeps, banks = [], []
    for sel, value in game.selections(roll):
        keeps.append(f"{_name(sel)} ({value})")
        if game.bank_refusal(state, sel) is None:
            banks.append(_name(sel))
    lines.append("  You may keep: " + ", ".join(keeps))
    if banks:
        lines.append("  You may bank after keeping: " + ", ".join(banks))
    else:
        # The engine's own words: the one place that says why a bank is refused.
        lines.append(f"  No bank yet: {game.bank_refusal(state)}")
    if state.pending and game.confirm_combinations:
        lines.append("  Your last combination still needs a single 1 or 5 to confirm it (TT-9c).")
    lines.append("  " + HELP)
    return "\n".join(lines)


def _without(dice, part) -> tuple[int, ...]:
    rest = list(dice)
    for d in part:
        rest.remove(d)
    return tuple(rest)


def _not_scoring_message(game: tt.Game, sel: tuple[int, ...]) -> str:
    """Say which of the chosen dice do not score, and why."""
    rest = _without(sel, _largest_selection(game, sel))
    faces = sorted(set(rest))
    dice_text = " ".join(map(str, rest))
    verb = "does" if len(rest) == 1 else "do"
    why = []
    for face in faces:
        count = sel.count(face)
        if count < 3:
            why.append(f"{face}s score only three or more together (you chose {count})")
    if len(sel) < 6:
        why.append("a straight and three pairs need all six dice")
    elif all(sel.count(f) % 2 == 0 for f in faces) and not game.four_and_pair_is_three_pairs:
        why.append("three pairs must be of three different values here")
    elif not why:
        why.append("the six dice make no straight and no three pairs")
    return f"{dice_text} {verb} not score: {'; '.join(why)}. Keep only scoring dice."


def parse(game: tt.Game, state: tt.State, text: str) -> int:
    """The person's input as a legal action id, or ``ValueError`` saying what is wrong."""
    words = text.lower().replace(",", " ").split()
    if words and words[0] == "keep":
        words = words[1:]
    bank = None
    faces = ""
    for word in words:
        if word in ROLL_WORDS or word in BANK_WORDS:
            if bank is not None:
                raise ValueError("say roll or bank once, after the faces. " + HELP)
            bank = word in BANK_WORDS
        elif word.isdigit():
            if bank is not None:
                raise ValueError("put the faces first, then r or b. " + HELP)
            faces += word
        else:
            raise ValueError(f"{word!r} is neither faces nor r/b. " + HELP)
    roll = state.roll
    if not faces:
        if not bank:
            raise ValueError("which dice do you keep? " + HELP)
        banks = [(value, sel) for sel, value in game.selections(roll) if game.bank_refusal(state, sel) is None]
        if not banks:
            raise ValueError(f"you cannot bank now: {game.bank_refusal(state)}")
        return tt.encode_action(max(banks)[1], True)
    bad = sorted({c for c in faces if c not in "123456"})
    if bad:
        raise ValueError(f"{', '.join(bad)} is not a die face (1..6). " + HELP)
    sel = dice_mod.normalize(faces)
    for face in sorted(set(sel)):
        have, want = roll.count(face), sel.count(face)
        if want > have:
            if have == 0:
                raise ValueError(f"there is no {face} in your roll {_name(roll)}")
            raise ValueError(f"your roll {_name(roll)} has only {_count(have, face)}; you typed {want}")
    if game.score(sel) is None:
        raise ValueError(_not_scoring_message(game, sel))
    if bank:
        reason = game.bank_refusal(state, sel)
        if reason is not None:
            raise ValueError(f"you cannot bank after keeping {_name(sel)}: {reason}. Type '{_name(sel)} r' to roll on.")
    return tt.encode_action(sel, bool(bank))
