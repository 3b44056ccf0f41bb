"""Terminal-play hooks for Ten thousand: type the faces to keep, then ``r`` (roll) or ``b`` (bank).

Input, case and spaces ignored:

* ``1 5``, ``15`` or ``1,5``: keep a 1 and a 5 and roll the rest (faces alone roll on);
* ``15 r`` / ``15r`` / ``15 roll``: the same; ``15 b`` / ``15b`` / ``15 bank`` / ``15 stop``: keep them
  and bank;
* ``b`` / ``bank`` alone: bank after the keep that adds the most to your total (under
  ``exact_target`` a bank past the target adds nothing, TT-9d).

The loop also takes the rule book's strings, ``keep 15 roll`` and ``keep 15 bank`` (TT-11).
"""

from __future__ import annotations

import re

from dice_envs import dice as dice_mod
from dice_envs.games import tenthousand as tt
from dice_envs.games.base import seat_names

ROLL_WORDS = ("r", "roll", "k", "kast", "slå")
#: The words of an answer: runs of digits, and runs of anything else but spaces (so ``15b`` is
#: ``15`` then ``b``).
_TOKENS = re.compile(r"[0-9]+|[^0-9\s]+")
#: A player line of the engine's table: ``  player_0:   1200  <- to play, not on the list yet``.
_PLAYER_LINE = re.compile(r"(  player_\d+: +-?\d+)  (.*)")
#: The engine's mark of a player with no bank yet (TT-7), which the table here words again.
_ENGINE_UNOPENED = "not on the list yet"
BANK_WORDS = ("b", "bank", "s", "stop", "stopp")
HELP = (
    "Type the faces to keep, e.g. '1 5' or '15', then r to roll on or b to bank ('15 b' or '15b'); "
    "faces alone roll on; 'b' alone banks with the keep that scores the most."
)


def _opening_matters(game: tt.Game) -> bool:
    """Whether a player's first bank needs something later banks do not (TT-7): not under
    ``farkle``, where every bank needs the same."""
    return game.opening != game.min_bank


def render_for(game: tt.Game, state: tt.State, seat: int) -> str:
    """The engine's table, with a player who has not banked yet marked "not opened yet" and the
    opening it needs (the engine says "not on the list", the Danish "på listen"); no mark where the
    first bank needs what every bank needs."""
    unopened = f"not opened yet (first bank needs {game.opening})" if _opening_matters(game) else ""
    lines = []
    for line in game.render(state).split("\n"):
        match = _PLAYER_LINE.fullmatch(line)
        if match is not None:
            marks = [unopened if mark == _ENGINE_UNOPENED else mark for mark in match.group(2).split(", ")]
            line = f"{match.group(1)}  {', '.join(m for m in marks if m)}".rstrip()
        lines.append(line)
    return "\n".join(lines)


def _kinds(game: tt.Game, face: int) -> str:
    return "/".join(str(game.score((face,) * k)) for k in (4, 5, 6))


def rules(game: tt.Game) -> str:
    """The rules in force (TT-2..TT-9), from the game's options and scoring."""
    target = game.target
    score = game.score
    pairs = (
        "4-4-6-6-6-6 counts too" if game.four_and_pair_is_three_pairs else "three different values: 4-4-6-6-6-6 does not"
    )
    end = {
        "finish_round": f"when someone reaches {target}, the rest of that round is played (everyone has as many turns)",
        "last_turn_each": f"when someone reaches {target}, everyone else gets one last turn",
        "immediate": f"the first to reach {target} wins at once",
    }[game.end]
    if game.end != "immediate":
        end += ";\n  then the highest total wins (level totals share the win)"
    lines = [
        f"Ten thousand (10 000), preset {game.preset}, {game.num_players} players: collect points; the goal is {target}.",
        f"- Your turn starts with a roll of {tt.NUM_DICE} dice. Set aside scoring dice (at least one), then roll",
        "  the rest (r) or bank the turn's points (b). A roll without scoring dice is a bust: the turn's",
        "  points are lost.",
        f"- Scores (only within one roll): a 1 = {score((1,))}, a 5 = {score((5,))}; three 1s = {score((1, 1, 1))}, "
        f"three 2s..6s = {score((2, 2, 2))}..{score((6, 6, 6))};",
        f"  four/five/six of a kind: 3s {_kinds(game, 3)}, 1s {_kinds(game, 1)}; straight 1-6 = {game.straight};",
        f"  three pairs = {game.three_pairs} ({pairs}).",
        "- Hot dice: with all six dice set aside you roll all six again and the turn goes on"
        + ("; you may not bank then." if game.hot_dice_must_roll else "; or you bank."),
    ]
    if _opening_matters(game):
        later = f"later banks need {game.min_bank}" if game.min_bank else "later banks need no minimum"
        lines.append(
            f"- Your first bank opens you (Danish: \"på listen\") and needs {game.opening} points in the turn;\n"
            f"  {later}."
        )
    elif game.min_bank:
        lines.append(f"- Every bank needs {game.min_bank} points in the turn.")
    if game.over_threshold:
        start = f"At {target - 1000} or more" if target > 1000 else "Always"
        lines.append(f"- {start} you may bank only to reach {target}.")
    if game.confirm_combinations:
        lines.append(
            "- After setting aside a combination of several dice you may bank only after a later single 1 or 5."
        )
    if game.exact_target:
        lines.append(
            f"- Exact target: a bank that would pass {target} scores 0; you win by reaching {target} exactly.\n"
            f"  A bank that reaches {target} exactly is always allowed (no minimum bank or opening applies)."
        )
    if game.bust_penalty:
        k = game.bust_penalty_after
        busts = "a bust" if k == 1 else f"{k} busts in a row"
        cost = "costs" if k == 1 else "cost"
        lines.append(
            f"- {busts[0].upper()}{busts[1:]} {cost} {game.bust_penalty} points (totals may go below 0)."
        )
    lines.append(f"- End: {end}.")
    lines.append(
        "Type the faces to keep, then r or b: '15 r', '15b'; 'b' alone banks the keep that adds the most."
    )
    return "\n".join(lines)


def _count(k: int, face: int) -> str:
    return f"{k} {face}" if k == 1 else f"{k} {face}s"


def _name(sel) -> str:
    return dice_mod.to_string(sel)


def _largest_selection(game: tt.Game, dice) -> tuple[int, ...]:
    """The most dice of ``dice`` that can be set aside together (their best value on a tie)."""
    return max(game.selections(dice), key=lambda sv: (len(sv[0]), sv[1]), default=((), 0))[0]


def describe(game: tt.Game, state: tt.State, seat: int) -> str:
    """Which dice of the roll score, the legal keeps with their values, and whether a bank is open
    (the table above it shows the roll and the turn total)."""
    roll = state.roll
    lines = []
    scoring = _largest_selection(game, roll)
    rest = _without(roll, scoring)
    line = f"  Scoring dice: {_name(scoring)}"
    if rest:
        line += f"   (not scoring: {' '.join(map(str, rest))})"
    lines.append(line)
    keeps, banks, passing = [], [], []
    total = state.totals[state.player]
    refused = 0
    for sel, value, reason in game.bank_refusals(state):
        hot = ", hot dice" if len(sel) == len(roll) else ""  # TT-4: all six set aside, six to roll again
        keeps.append(f"{_name(sel)} ({value}{hot})")
        if reason is not None:
            refused += 1
            continue
        if game.bank_gain(state, value) == 0:  # TT-9d: past the target
            passing.append(_name(sel))
        elif game.exact_target and total + state.turn_total + value == game.target:
            banks.append(f"{_name(sel)} (reaches {game.target} exactly)")
        else:
            banks.append(_name(sel))
    lines.append("  You may keep: " + ", ".join(keeps))
    if banks:
        lines.append("  You may bank after keeping: " + ", ".join(banks))
    if passing:
        lines.append(f"  Past the target {game.target}, a bank scores 0: " + ", ".join(passing))
    if not banks and not passing:
        lines.append(f"  No bank yet: {no_bank_reason(game, state)}")
    elif not banks and len(passing) < len(keeps):
        lines.append(f"  No bank that scores: {no_bank_reason(game, state)}")
    elif refused:  # some keeps may be banked, others not: say why those are left out
        lines.append(f"  Not bankable: {no_bank_reason(game, state)}")
    if state.pending and game.confirm_combinations:
        lines.append("  Your last combination still needs a single 1 or 5 to confirm it (TT-9c).")
    if state.turns_left is not None:
        lines.append("  " + _last_turn(state, seat, game))
    lines.append("  " + HELP)
    return "\n".join(lines)


def _last_turn(state: tt.State, seat: int, game: tt.Game) -> str:
    """TT-8: in the end phase every turn is that player's last one; say what it takes to win."""
    own = state.totals[seat]
    others = [t for s, t in enumerate(state.totals) if s != seat]
    best = max(others)
    leaders = seat_names(s for s, t in enumerate(state.totals) if s != seat and t == best)
    if own > best:
        return f"This is your last turn: you lead with {own} ({leaders} {best})."
    if game.exact_target and best >= game.target:
        need = game.target - own
        return f"This is your last turn: {best} ({leaders}) can only be tied, with exactly {need} this turn."
    return f"This is your last turn: beat {best} ({leaders}), you need more than {best - own} this turn."


def _group_reason(game: tt.Game, reason: str, best: int) -> str:
    """Why a group of keeps may not be banked (TT-4, TT-7, TT-9b, TT-9c); ``best`` is the largest
    turn total among them."""
    most = f"you would have at most {best}"
    start = f"at {game.target - 1000} or more " if game.target > 1000 else ""
    return {
        "hot_dice": "hot dice must be rolled again (TT-4)",
        "opening": f"the first bank needs {game.opening} points in the turn, {most} (TT-7)"
        if _opening_matters(game)
        else f"a bank needs {game.min_bank} points in the turn, {most} (TT-7)",
        "min_bank": f"a bank needs {game.min_bank} points in the turn, {most} (TT-7)",
        "confirm": "a combination must be confirmed by a later single 1 or 5 first (TT-9c)",
        "over_threshold": f"{start}you may bank only to reach {game.target} (TT-9b)",
    }[reason]


def refusal(game: tt.Game, state: tt.State, selection=None) -> str | None:
    """The engine's :meth:`~dice_envs.games.tenthousand.Game.bank_refusal`, but where the first bank
    needs what every bank needs (``farkle``) a refused first bank is told as every bank's minimum."""
    text = game.bank_refusal(state, selection)
    if text is None or _opening_matters(game) or state.opened[state.player]:
        return text
    if selection is None:  # the engine explains its most valuable keep
        sel, value, reason = max(game.bank_refusals(state), key=lambda r: r[1])
    else:
        sel = dice_mod.normalize(selection)
        value, reason = next((v, r) for s, v, r in game.bank_refusals(state) if s == sel)
    if reason != "opening":
        return text
    return (
        f"a bank needs at least {game.min_bank} points in the turn; you would have {state.turn_total + value} (TT-7)"
    )


def no_bank_reason(game: tt.Game, state: tt.State) -> str:
    """Why the keeps that may not be banked are refused: the engine's reason when one rule holds
    back every keep, else each rule with the keeps it holds back, the most valuable first."""
    refusals = game.bank_refusals(state)
    groups: dict[str, list[tuple[int, str]]] = {}
    for sel, value, reason in sorted(refusals, key=lambda r: -r[1]):
        if reason is not None:
            groups.setdefault(reason, []).append((value, _name(sel)))
    every = sum(map(len, groups.values())) == len(refusals)
    if every and len(groups) == 1:
        return str(refusal(game, state))  # the engine's own words
    parts = []
    for i, (reason, keeps) in enumerate(groups.items()):
        if every and i == len(groups) - 1 and len(keeps) > 1:
            who = "any other keep"
        else:
            names = [k for _, k in keeps]
            who = "keeping " + (names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1])
        parts.append(f"{who}: {_group_reason(game, reason, state.turn_total + keeps[0][0])}")
    return "; ".join(parts)


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
    words = _TOKENS.findall(text.lower().replace(",", " "))
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
        # The bank that adds the most to the total: under exact_target one past the target adds 0.
        banks = [
            (game.bank_gain(state, value), value, sel)
            for sel, value, reason in game.bank_refusals(state)
            if reason is None
        ]
        if not banks:
            raise ValueError(f"you cannot bank now: {no_bank_reason(game, state)}")
        gain, _, sel = max(banks)
        if gain == 0:
            raise ValueError(
                f"every bank now passes the target {game.target} and scores 0 (TT-9d); to bank anyway "
                f"name the dice, e.g. '{_name(sel)} b', or roll on"
            )
        return tt.encode_action(sel, True)
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
        reason = refusal(game, state, sel)
        if reason is not None:
            raise ValueError(f"you cannot bank after keeping {_name(sel)}: {reason}. Type '{_name(sel)} r' to roll on.")
    return tt.encode_action(sel, bool(bank))
