"""Terminal-play hooks for Meyer: the person sees only what their seat sees (ME-8).

``d`` doubts, ``b`` believes, ``r`` makes the blind reroll, and a claim is typed as its two dice
(``54``, ``45`` or ``claim 54``; ``meyer`` and ``lille meyer`` work too).
"""

from __future__ import annotations

from dice_envs.games import meyer

_WORDS = {
    "d": meyer.DOUBT,
    "doubt": meyer.DOUBT,
    "lift": meyer.DOUBT,
    "b": meyer.BELIEVE,
    "believe": meyer.BELIEVE,
    "r": meyer.REROLL,
    "reroll": meyer.REROLL,
}
_NAMED = {"meyer": meyer.MEYER, "lille meyer": meyer.LILLE_MEYER}


def render_for(game: meyer.Game, state: meyer.State, seat: int) -> str:
    """The table as ``seat`` sees it: the dice under the cup only if this seat has seen them."""
    return game.render_for(state, seat)


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


def describe(game: meyer.Game, state: meyer.State, seat: int) -> str:
    """The ranking, what this seat knows about the cup, and the moves it may make."""
    lines = [f"  Ranking, best first: {game.ranking_string()}"]
    if state.cup and state.seen_by == seat:
        c = meyer.CLAIM_OF_DICE[state.cup]
        lines.append(f"  Your dice: {meyer.CLAIM_NAMES[c]}.")
    elif state.phase == meyer.CLAIM and state.blind:
        lines.append("  You rolled blind: you do not know your dice.")
    if state.claim >= 0:
        rule = "at least that" if game.claim_rule == "at_least" else "higher than that"
        task = "doubt or believe it" if state.phase == meyer.RESPOND else "you must claim " + rule
        lines.append(f"  Claim to beat: {meyer.CLAIM_NAMES[state.claim]} by player_{state.claimer}; {task}.")
    else:
        lines.append("  You start the round: claim anything.")
    lines.append("  " + _choices(game, state) + ".")
    return "\n".join(lines)


def parse(game: meyer.Game, state: meyer.State, text: str) -> int:
    """The person's input as a legal action id; ``ValueError`` with a message for the person."""
    words = " ".join(str(text).lower().split())
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
        raise ValueError(f"you may not {what} now: {_choices(game, state)}")
    return action
