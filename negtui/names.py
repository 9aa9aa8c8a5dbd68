"""What people read for an action: its id when the id says something, else the start of its label.

Imported scenarios often give actions opaque ids (`a0`, `a1`) and the meaning in a label that is a
whole sentence ("Pledge USD 11bn/yr of public climate finance toward the NCQG"). An offer written with
the ids ("Donor_Group commits a1") says nothing; written with whole labels it does not fit a line. A
short name takes the label's first words, as many as fit `WIDTH` characters, and more where two of a
player's actions would otherwise read the same; the full label stays a key or a hover away (the cell
panel under the matrix cursor)."""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable
from typing import Any, TypeVar

from negtui.scenario.model import Player, Scenario

T = TypeVar("T")
WIDTH = 40  # characters of a short name, the ellipsis included
OPAQUE = re.compile(r"^[A-Za-z]{0,2}_?\d+$")  # a0, g12, P3_1, 7: ids that only count

# by (id, kind): scenarios are unhashable (lists inside); an entry is forgotten with its scenario
_cache: dict[tuple[int, str], tuple[weakref.ref, Any]] = {}


def _once(sc: Scenario, kind: str, compute: Callable[[Scenario], T]) -> T:
    """`compute(sc)`, computed once per scenario: turn logs and tables name every player and action of
    every turn on every redraw."""
    key = (id(sc), kind)
    hit = _cache.get(key)
    if hit is not None and hit[0]() is sc:
        return hit[1]
    value = compute(sc)
    _cache[key] = (weakref.ref(sc), value)
    weakref.finalize(sc, _cache.pop, key, None)
    return value


def action_names(sc: Scenario) -> list[list[str]]:
    """Per player, per action: the name to show."""
    return _once(sc, "action_names", lambda s: [_player_names(p) for p in s.players])


def option_phrases(sc: Scenario) -> list[list[str]]:
    """Per player, per action: for a scenario that declares its issues (scenario/issues.py), what backing it
    says in the issue's terms ("grid on Network"; the option's label where its id only counts), "" for an
    action that backs no option; "walk away" for an exit (a scoresheet's walk-away).  Empty lists else."""
    return _once(sc, "option_phrases", _option_phrases)


def _option_phrases(sc: Scenario) -> list[list[str]]:
    if not sc.issues and not sc.exits:
        return [[] for _ in sc.players]
    requires = {g.id: g.requires for g in sc.goals}
    said: dict[tuple[str, str], str] = {}
    for issue in sc.issues:
        for option in issue.options:
            name = option.id if not OPAQUE.match(option.id) or not option.label.strip() else option.label
            for gid in option.goals:
                for ref in requires.get(gid, []):
                    said.setdefault((ref.player, ref.action), f"{name} on {issue.label or issue.id}")
    for ex in sc.exits:
        said[(ex.player, ex.action)] = "walk away"
    return [[said.get((p.id, a.id), "") for a in p.actions] for p in sc.players]


def action_texts(sc: Scenario) -> list[list[str]]:
    """Per player, per action: the whole readable text (its id, or its label where the id only counts)."""
    return _once(sc, "action_texts", lambda s: [[_readable(p, a.id, a.label) for a in p.actions] for p in s.players])


def _player_names(p: Player) -> list[str]:
    texts = [_readable(p, a.id, a.label) for a in p.actions]
    width = WIDTH
    while True:
        names = [shorten(t, width) for t in texts]
        if len(set(names)) == len(names) or width >= max(len(t) for t in texts):
            break
        width += 8  # two actions begin alike: take more of their labels
    if len(set(names)) < len(names):  # labels identical or empty: the ids keep them apart
        names = [f"{n} ({a.id})" if names.count(n) > 1 else n for n, a in zip(names, p.actions, strict=True)]
    return names


def _readable(p: Player, action_id: str, label: str) -> str:
    if not OPAQUE.match(action_id) or not label.strip():
        return action_id
    return without_owner(p, " ".join(label.split()))


def without_owner(p: Player, text: str) -> str:
    """A label without its owner's name in front: "P0 action 0", read under P0's name, is "action 0"."""
    for prefix in (p.id, p.name):
        if prefix and text.startswith(prefix + " ") and len(text) > len(prefix) + 1:
            text = text[len(prefix) + 1:]
    return text


def shorten(text: str, width: int) -> str:
    """At most `width` characters, cut at a word with '…' where it is longer."""
    if len(text) <= width:
        return text
    room = text[: width - 1]
    if " " in room:
        room = room[: room.rindex(" ")]
    return room.rstrip(" ,;:-") + "…"


def cut(text: str, width: int) -> str:
    """At most `width` characters with '…': at a word's end (a space or `_`) where that keeps at least half
    the room ("Upstream…", not "Upstream_…"), else wherever the room ends."""
    if len(text) <= width:
        return text
    room = text[: width - 1]
    ends = [k for k, ch in enumerate(room) if ch in " _"]
    if ends and ends[-1] >= (width - 1) / 2:
        return room[: ends[-1]].rstrip(" _,;:-") + "…"
    return room.rstrip() + "…"


def fit_unique(texts: list[str], width: int) -> list[str]:
    """Each text in at most `width` characters, all still told apart: a cut with '…' (at a word's end where
    it can) where that keeps them distinct, else the start and the end around a middle '…'
    ("Beneficiar…handed_" and "Beneficiar…protect" rather than "Beneficiary_da" twice)."""
    width = max(width, 3)
    out = [cut(t, width) for t in texts]
    if len(set(out)) < len(set(texts)):
        out = [t if len(t) <= width else t[: width - 1].rstrip() + "…" for t in texts]
    clashes = {o for o in out if out.count(o) > 1}
    if clashes:
        head = (width - 1) // 2
        tail = width - 1 - head
        out = [t[:head] + "…" + t[-tail:] if o in clashes and len(t) > width else o
               for t, o in zip(texts, out, strict=True)]
    seen: dict[str, int] = {}
    alike = {o for o in out if out.count(o) > 1}
    for k, o in enumerate(out):  # still alike (tiny widths): numbered, the full text a key or a hover away
        if o in alike and texts.count(texts[k]) == 1:
            seen[o] = seen.get(o, 0) + 1
            tag = str(seen[o])
            out[k] = texts[k][: max(1, width - len(tag) - 1)] + "…" + tag
    return out


def _spelled(p: Player) -> bool:
    """Whether the id is the name itself, or the name spelled with `_` (as HNC imports make them)."""
    return p.display == p.id or re.sub(r"[^A-Za-z0-9]+", "_", p.display).strip("_") == p.id


def player_label(p: Player) -> str:
    """The id, with the display name beside it where the scenario gives another ("A · Alice"); the name
    alone where the id only spells it with `_` ("Midstream State", id Midstream_State)."""
    return p.display if _spelled(p) else f"{p.id} · {p.display}"


def player_labels(sc: Scenario) -> dict[str, str]:
    """Every player's `player_label`, by id: how the seat dialogs list them."""
    return {p.id: player_label(p) for p in sc.players}


def player_names(sc: Scenario) -> list[str]:
    """A player in one short word or phrase, for tables and grids: its name where the id only spells
    the name ("Midstream State"), else its id ("A", as offers and logs say it)."""
    return _once(sc, "player_names", lambda s: [p.display if _spelled(p) else p.id for p in s.players])


def players_named(sc: Scenario, text: str) -> list[str]:
    """The ids of the players `text` names: an id, or a name as the app shows it ("Upstream State" for id
    Upstream_State, "Alice" or "A · Alice" for A); case and spacing aside where nothing matches exactly.
    An id is that player even where it is another's name; more than one id: two players go by that name."""
    def ways(p: Player) -> set[str]:
        return {p.id, p.display, player_label(p)}

    if text in sc.player_ids:
        return [text]
    exact = [p.id for p in sc.players if text in ways(p)]
    if exact:
        return exact
    folded = name_key(text)
    return [p.id for p in sc.players if folded in {name_key(w) for w in ways(p)}]


def name_key(text: str) -> str:
    """A name as matched when typed: `_` as a space, spacing and case aside ("upstream  state")."""
    return " ".join(text.replace("_", " ").split()).casefold()


def goal_names(sc: Scenario, public: bool = False) -> list[str]:
    """A goal as people read it: its label, or its id when it has none; `public`: the label a seat that knows
    only its own values reads (its public label, where the label says who gains or is harmed)."""
    return [" ".join((g.shown_label if public else g.label).split()) or g.id for g in sc.goals]
