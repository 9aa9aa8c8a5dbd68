"""Coaching in plain words: why one choice beat another, and what the numbers on the screen mean, with
examples from the game at hand.

A trainee reads "cost 12.0 under the lenses' mean" as a verdict without a reason.  The reason is
almost always one of two: the choice took less now (a smaller deal, a refusal), or it took as much now
and closed doors for later (commitments that rule actions out, or a partner's consent spent).  Both are
read off the states the two choices lead to."""

from __future__ import annotations

from negtui.coach.assess import Assessment, Choice, choice_words, coach_lenses
from negtui.coach.sheet import Sheet
from negtui.engine.baseline import no_negotiation
from negtui.engine.game import Game
from negtui.engine.negotiation import Negotiation, Phase
from negtui.engine.payoff import payoffs, state_info
from negtui.engine.valuation import Valuation
from negtui.names import player_names
from negtui.narrate import cell_label

REFERENCE_WORDS = {"exact": "the exact solution (what perfect play by everyone leads to)",
                   "mean": "the average of the three hand-written lens forecasts (myopic, upper, lower)"}
EPS = 0.05  # differences under this are not worth a word


def _now(game: Game, c: Choice, player: int) -> float:
    return float(payoffs(game, c.after.bits)[player])


def _choice(c: Choice) -> str:
    if c.phase is Phase.RESPOND:
        return "accepting" if c.accept else "rejecting"
    if c.offer is None or c.offer.is_noop:
        return "passing"
    return "your offer" if c.who == "you" else "that offer"


def why(game: Game, a: Assessment) -> str:
    """Why the best alternative is worth more than the choice made: what the choice takes now, what it
    leaves for later, and the commitments that make the difference ('' when the choice was the best)."""
    yours, best = a.yours, a.best
    if yours is None or a.cost <= EPS:
        return ""
    p = a.player
    value_yours, value_best = a.value(yours), a.value(best)
    now_yours, now_best = _now(game, yours, p), _now(game, best, p)
    later_yours, later_best = value_yours - now_yours, value_best - now_best
    mine, theirs = _choice(yours), f"{best.whose} choice ({choice_words(game, best)})"
    if now_yours + EPS < now_best:
        text = (f"Why: {mine} leaves you {now_yours:z.1f} once the turn ends, {theirs} {now_best:z.1f}: it gives up "
                f"{now_best - now_yours:z.1f} at once")
        if later_yours > later_best + EPS:
            text += f", more than the {later_yours - later_best:z.1f} it may bring later"
    else:
        text = (f"Why: {mine} takes {now_yours:z.1f} now (no less than {theirs}, {now_best:z.1f}), but leaves only "
                f"{later_yours:+z.1f} to come against {later_best:+z.1f}: it closes doors for later")
    sheet = Sheet.of(game)
    if sheet is not None:  # a case of issues: what each choice settles, and what it puts out of reach
        return text + _issue_effects(sheet, yours.after.bits, best.after.bits, p) + "."
    closed = state_info(game, yours.after.bits).blocked & ~state_info(game, best.after.bits).blocked
    extra = yours.after.bits & ~best.after.bits
    if closed:
        text += f"; it rules out {actions(game, closed)}"
    elif extra:
        text += f"; it binds {actions(game, extra)} for good"
    missing = best.after.bits & ~yours.after.bits
    if missing:
        text += f"; the better choice gets {actions(game, missing)} committed"
    return text + "."


def _issue_effects(sheet: Sheet, yours: int, best: int, player: int) -> str:
    common = yours & best  # both choices start from the same commitments
    mine, better = sheet.effects(common, yours, player), sheet.effects(common, best, player)
    text = f"; it {' and '.join(mine)}" if mine else ""
    return text + (f"; the better choice {' and '.join(better)}" if better else "")


def actions(game: Game, bits: int) -> str:
    """'A's bait, B's poison': actions with their owners, in the game's order."""
    names = player_names(game.scenario)
    return ", ".join(f"{names[int(game.owner[c])]}'s {cell_label(game, c)}" for c in game.cells_of(bits))


def primer(neg: Negotiation, player: int) -> str:
    """What the baseline and a lens are, in a sentence each, with this game's numbers for this seat;
    and where "no deal" (no commitment at all) differs from the baseline, that too."""
    game, rules = neg.game, neg.rules
    who = player_names(game.scenario)[player]
    base = float(no_negotiation(game, rules).payoffs[player])
    nothing = float(payoffs(game, 0)[player])
    val = Valuation(neg)
    start = neg.initial_state()
    forecasts = ", ".join(f"{lens} {float(val.forecast(start, lens)[player]):z.1f}" for lens in coach_lenses(game))
    text = (f"The baseline is what a seat gets with no negotiation: everyone commits only what pays on its own. "
            f"Here it is {base:z.1f} for {who}; every result is measured against it.")
    if abs(base - nothing) > EPS:
        text += (f" It is not the same as no deal at all: with no commitment by anyone {who} gets {nothing:z.1f}, "
                 f"so the baseline already counts {base - nothing:+z.1f} that {who} can have without asking anyone.")
    sheet = Sheet.of(game)
    if sheet is not None:
        return text + "\n" + _sheet_primer(sheet, player, who, forecasts)
    text += (f"\nA lens is a way to forecast the rest of the game from where it stands: myopic counts only what is "
             f"already committed, upper expects every goal still in reach to be completed, lower only what those "
             f"who must act can be relied on to complete, and learned is a forecast fitted to how small games end "
             f"when everyone plays perfectly. At the start {who}'s forecasts are {forecasts}; the bots play by them, "
             f"and the coach values every choice under each of them.")
    return text


def _sheet_primer(sheet: Sheet, player: int, who: str, forecasts: str) -> str:
    """The primer's second half on a case of issues: payoffs as points above the reservation value, the best
    package the sheet allows, and the lenses read issue by issue."""
    reservation = sheet.reservation(player)
    kept = "" if reservation is None else f" ({reservation:z.4g} points)"
    bests = []
    for issue in sheet.issues(0, player):
        top = issue.best
        if top.value > 0:
            bests.append(f"{top.phrase}" + ("" if top.points is None else f", {top.points:z.4g} points"))
    package = "; ".join(bests) or "nothing: no option is worth more to you than leaving its issue open"
    text = (f"A payoff here is points above {who}'s reservation value{kept}, what {who} keeps if nothing is "
            f"agreed: an issue settled adds its option's points less the issue's share of that value, an issue "
            f"left open adds nothing. The most the sheet allows {who} is {sheet.best_package(player):z.1f} above it: "
            f"{package}.")
    if int(sheet.table.exit_cell[player]) >= 0:
        text += (f" {who} may walk away before backing any option, and then keeps the reservation value (a payoff "
                 "of 0) whatever the others settle.")
    return text + (f"\nA lens forecasts the rest of the game issue by issue: myopic counts only what is settled, upper "
                   f"expects each open issue to be settled on the best option for you still in reach, lower expects "
                   f"the worst one the others can settle without you. At the start {who}'s forecasts are "
                   f"{forecasts}; the bots play by them, and the coach values every choice under all three.")
