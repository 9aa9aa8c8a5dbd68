"""The words of the engine a seat is described in: lenses, the criteria of welfare- and fairness-minded
players, partner choice.  Plain names, no arrays: a seat is read and checked (and the seat dialog drawn)
before any game is compiled."""

from __future__ import annotations

from typing import Literal

from negtui.engine.learned_names import LEARNED, split_learned

Lens = Literal["myopic", "upper", "lower", "exact", "adaptive"]
LENSES: tuple[str, ...] = ("myopic", "upper", "lower", "exact", "adaptive")
CLOSED_FORM_LENSES: tuple[str, ...] = ("myopic", "upper", "lower")  # cheap at any size: what forecasts show
ADAPTIVE = "adaptive"  # not a formula: one of the closed-form lenses, chosen per player and turn
CRITERIA: tuple[str, ...] = ("utilitarian", "maximin")  # judges of the welfare- and fairness-minded players
SOCIAL_LENS = "myopic"  # what a criterion named alone judges with
# under simultaneous rules, `anticipate:LENS` values a move on the commitments the turn's other proposers are
# predicted to make (engine/anticipation.py); LENS alone is the plain reading, against the start of the turn
ANTICIPATE = "anticipate"


def split_judge(name: str) -> tuple[str | None, str]:
    """A judge is a lens (a player's own value) or CRITERION[:LENS]: the sum (utilitarian) or the
    minimum (maximin) of every player's value under LENS, which a welfare- or fairness-minded player
    maximises in partner choice, offer choice and acceptance alike."""
    criterion, sep, lens = name.partition(":")
    if criterion in CRITERIA:
        return criterion, lens if sep else SOCIAL_LENS
    return None, name


def check_judge(name: str) -> str:
    """A lens or a criterion's judge, in its canonical spelling (`utilitarian:myopic` is `utilitarian`)."""
    criterion, lens = split_judge(name)
    if criterion is None:
        return check_lens(name)
    if lens not in (*CLOSED_FORM_LENSES, "exact"):
        raise ValueError(f"{criterion} judges with {', '.join((*CLOSED_FORM_LENSES, 'exact'))}, not {lens!r}")
    return criterion if lens == SOCIAL_LENS else f"{criterion}:{lens}"


def split_anticipation(name: str) -> tuple[bool, str]:
    """(whether the judge anticipates the turn's other offers, the lens it values with)."""
    head, sep, inner = name.partition(":")
    if sep and head == ANTICIPATE:
        return True, inner
    return False, name


def check_lens(name: str) -> str:
    """A lens in its canonical spelling; `learned:PATH` with PATH absolute, its model read and checked now
    (lens_model.LensModelError, a ValueError, says what is wrong with the file)."""
    if split_learned(name)[0]:
        from negtui.engine.lens_model import canonical_name  # numpy: only a seat naming the learned lens needs it

        return canonical_name(name)
    ahead, inner = split_anticipation(name)
    if ahead:
        if inner not in (*CLOSED_FORM_LENSES, ADAPTIVE):
            raise ValueError(f"{ANTICIPATE}: reads a closed-form lens ({', '.join((*CLOSED_FORM_LENSES, ADAPTIVE))}), "
                             f"not {inner!r}")
        return name
    if name not in LENSES:
        import difflib

        near = difflib.get_close_matches(name, LENSES, n=1, cutoff=0.6)
        guess = f"did you mean {near[0]}? " if near else ""
        raise ValueError(f"unknown lens {name!r}; {guess}choose from {', '.join(LENSES)}, {LEARNED}[:MODEL.npz], "
                         f"or {ANTICIPATE}:LENS under "
                         "simultaneous rules")
    return name


def split_roles(text: str) -> tuple[str, str | None]:
    """PROPOSE/RESPOND as (proposing lens, responding lens or None).  A model's path may hold slashes, so a
    `learned:PATH` proposing lens runs to the end of its `.npz` (`learned:m/a.npz/lower`); without that
    ending, the whole text is the one lens."""
    text = text.strip()
    if split_learned(text)[0]:
        end = text.find(".npz")
        if end < 0 or end + 4 == len(text):
            return text, None
        propose, rest = text[:end + 4], text[end + 4:]
        if not rest.startswith("/"):
            return text, None
        return propose, rest[1:].strip() or None
    propose, _, respond = text.partition("/")
    return propose.strip(), respond.strip() or None


PARTNER_METHODS = ("mcts", "greedy", "random")
