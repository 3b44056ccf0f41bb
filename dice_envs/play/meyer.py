"""Terminal-play hooks for Meyer: the person sees only what their seat sees (ME-8).

``d`` doubts, ``b`` believes, ``r`` makes the blind reroll, and a claim is typed as its two dice
(``54``, ``45``, ``5 4``, ``5,4`` or ``claim 54``; ``meyer`` and ``lille meyer`` work too). The Danish
``løft`` (lift the cup) and ``tror`` (believe) are understood.
"""

from __future__ import annotations

from dice_envs.games import meyer

_WORDS = {
    "d": meyer.DOUBT,
    "doubt": meyer.DOUBT,
    "lift": meyer.DOUBT,
    "lift the cup": meyer.DOUBT,
    "løft": meyer.DOUBT,
    "b": meyer.BELIEVE,
    "believe": meyer.BELIEVE,
    "tror": meyer.BELIEVE,
    "r": meyer.REROLL,
    "reroll": meyer.REROLL,
}
_NAMED = {"meyer": meyer.MEYER, "lille meyer": meyer.LILLE_MEYER}


def render_for(game: meyer.Game, state: meyer.State, seat: int) -> str:
    """The table as ``seat`` sees it: the dice under the cup only if this seat has seen them."""
    return game.render_for(state, seat)


def _named(game: meyer.Game, c: int) -> str:
    """A claim with its name, where it has one: ``21 (Meyer)``."""
    if c == meyer.MEYER:
        return "21 (Meyer)"
    if c == meyer.LILLE_MEYER and game.lille_meyer:
        return "31 (Lille Meyer)"
    return meyer.CLAIM_NAMES[c]


def rules(game: meyer.Game) -> str:
    """The rules in force (ME-1..ME-7), from the game's options."""
    ranking = [_named(game, c) for c in game.ranking]
    at_least = game.claim_rule == "at_least"
    lines = [
        f"Meyer, {game.num_players} players, {game.lives} {'life' if game.lives == 1 else 'lives'} each: "
        + (
            "lose all your lives and you are out; the last player with lives wins."
            if game.end == "last_standing"
            else "the first player to lose all their lives loses; everyone else wins."
        ),
        "- Two dice, read with the higher die first (a 4 and a 5 are 54). Best first:",
        "  " + " > ".join(ranking[:8]),
        "  > " + " > ".join(ranking[8:]) + ("" if game.lille_meyer else "  (31 is an ordinary roll, the lowest)"),
        "- The player who starts a round rolls under the cup, looks, and claims a value: true or not.",
        "- The next player doubts it (d: the cup is lifted) or believes it (b): then they roll, look, and",
        "  must claim " + ("at least as high" if at_least else "strictly higher") + ", lying if they must.",
    ]
    if not at_least:
        lines.append(
            f"  Nothing beats {meyer.CLAIM_NAMES[game.ranking[0]]}: a claim of it can only be doubted."
        )
    if game.blind_reroll:
        lines.append(
            "- Blind reroll: after believing and looking, you may roll once more (r) without looking, then"
            "\n  claim blind; everyone sees that you did."
        )
    cost = game.meyer_costs
    lines += [
        "- When the cup is lifted: dice below the claim were a lie, and the claimer loses a life; otherwise the",
        "  doubter loses one."
        + (f" A doubted {meyer.CLAIM_NAMES[meyer.MEYER]} costs whoever loses the doubt {cost} lives." if cost != 1 else ""),
        "- The doubter starts the next round (if they are out, the next player still in).",
        "Type d (doubt), b (believe)" + (", r (blind reroll)" if game.blind_reroll else "")
        + ", or a claim: 54, 5 4, meyer" + (", lille meyer" if game.lille_meyer else "") + ".",
    ]
    return "\n".join(lines)


def start_lines(game: meyer.Game) -> list[str]:
    """The first round's starter, as the log tells every later round's."""
    return [f"round 1: player_{game.initial_state().actor} starts"]


def _choices(game: meyer.Game, state: meyer.State) -> str:
    legal = game.legal_actions(state)
    parts = []
    if meyer.DOUBT in legal:
        parts.append("d = doubt (lift the cup)")
    if meyer.BELIEVE in legal:
        parts.append("b = believe (roll and claim)")
    if meyer.REROLL in legal:
        parts.append("r = reroll blind (you will not see the dice)")
    claims = [a - meyer.FIRST_CLAIM for a in legal if a >= meyer.FIRST_CLAIM]
    if claims:
        best_first = sorted(claims, key=lambda c: -game.rank[c])
        parts.append("claim one of: " + " ".join(meyer.CLAIM_NAMES[c] for c in best_first))
    return "; ".join(parts)


def _unbeatable(game: meyer.Game, state: meyer.State) -> str:
    """ME-4: why believing is not allowed: no claim is left above the one to beat."""
    said = meyer.CLAIM_NAMES[state.claim]
    return (
        f"nothing beats {said} when a claim must be strictly higher (claim rule 'higher'), so it can only be doubted"
    )


def describe(game: meyer.Game, state: meyer.State, seat: int) -> str:
    """The ranking, what this seat knows about the cup, and the moves it may make (only legal ones)."""
    legal = game.legal_actions(state)
    lines = [f"  Ranking, best first: {game.ranking_string()}"]
    if state.cup and state.seen_by == seat:
        c = meyer.CLAIM_OF_DICE[state.cup]
        lines.append(f"  Your dice: {meyer.CLAIM_NAMES[c]}.")
    elif state.phase == meyer.CLAIM and state.blind:
        lines.append("  You rolled blind: you do not know your dice.")
    if state.claim >= 0:
        rule = "at least that" if game.claim_rule == "at_least" else "higher than that"
        if state.phase != meyer.RESPOND:
            task = "; you must claim " + rule
        elif meyer.BELIEVE in legal:
            task = "; doubt or believe it"
        else:
            task = f". You must doubt it: {_unbeatable(game, state)}"
        lines.append(f"  Claim to beat: {meyer.CLAIM_NAMES[state.claim]} by player_{state.claimer}{task}.")
    else:
        lines.append("  You start the round: claim anything.")
    lines.append("  " + _choices(game, state) + ".")
    return "\n".join(lines)


def _why_not(game: meyer.Game, state: meyer.State, action: int) -> str:
    """Why an action the person typed is not legal now (ME-3, ME-4, ME-5)."""
    starting = state.claim < 0
    if state.phase == meyer.RESPOND and meyer.BELIEVE not in game.legal_actions(state):
        return f"{_unbeatable(game, state)} (ME-4)"
    if action in (meyer.DOUBT, meyer.BELIEVE):
        if starting:
            return "there is no claim to doubt or believe: you start the round, so claim a value"
        return "you believed the claim already: now claim"
    if action == meyer.REROLL:
        if not game.blind_reroll:
            return "this game has no blind reroll (option --blind-reroll true plays with it)"
        if starting:
            return "the starter of a round has nothing to beat, so there is no blind reroll (ME-5)"
        if state.phase == meyer.RESPOND:
            return "believe first (b); after looking at your dice you may reroll blind"
        return "you rolled blind already: now claim"
    if state.phase == meyer.RESPOND:
        return "first doubt (d) or believe (b); you claim after believing"
    rule = "at least as high as" if game.claim_rule == "at_least" else "higher than"
    return f"a claim must be {rule} {meyer.CLAIM_NAMES[state.claim]} (ME-4)"


def parse(game: meyer.Game, state: meyer.State, text: str) -> int:
    """The person's input as a legal action id; ``ValueError`` with a message for the person."""
    words = " ".join(str(text).lower().replace(",", " ").replace("-", " ").split())
    if words.startswith("claim "):
        words = words[len("claim ") :]
    if words in _WORDS:
        action = _WORDS[words]
    elif words == "lille meyer" and not game.lille_meyer:
        raise ValueError("this game has no Lille Meyer (31 is an ordinary roll): type 31 to claim it")
    elif words in _NAMED:
        action = meyer.FIRST_CLAIM + _NAMED[words]
    else:
        try:
            action = meyer.FIRST_CLAIM + meyer.claim_index(words)
        except ValueError:
            raise ValueError(f"{text!r} is not an answer here: {_choices(game, state)}") from None
    if action not in game.legal_actions(state):
        what = meyer.ACTION_STRINGS[action]
        why = _why_not(game, state, action)
        raise ValueError(f"you may not {what} now: {why}. Choices: {_choices(game, state)}")
    return action
