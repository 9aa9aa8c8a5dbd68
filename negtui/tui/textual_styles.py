"""Guards on how Textual styles nodes, each tied to the pinned version (the others: textual_guards.py,
which puts these in place with the rest).

Every app parses the CSS of each widget class it shows, and parses it all again when a screen with CSS
of its own first shows (a fresh stylesheet, an empty cache): about 30 ms of every trainee's session went
to parsing the same sources with the same theme.  The guard keeps parsed rules per process, by source and
theme variables; the fork server parses every widget class's CSS once before it forks
(`textual_guards.preparse`), so a trainee's app parses nothing.

Textual works out each node's styles by checking every rule that could apply against the node and its
ancestors, whenever the node mounts, changes class or state, or its screen resumes: 312 times in a
`bench_serve.py` session, about 0.3 ms each.  A stylesheet now remembers what it worked out for a place
and state in the tree (the types, ids, classes and pseudo-classes of the node and each ancestor, the
only things a selector tests) and gives it to the next node in the same place and state, until it is
parsed anew; a widget not yet in the tree (a button styles itself as it adds its classes) is left to be
styled as it mounts.  Of the pseudo-classes, only those the rules that may apply to the node test count: those
tested on the node itself, and those tested on an ancestor (the app's focus, which the terminal reports after
the first screen is styled, made every node styled before it a stranger).  Nodes whose rules look at their
siblings or descendants are worked out each time, as Textual's own cache does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.css.model import CombinatorType
from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode

PARSED_MOST = 4096  # parsed sources kept (the code's CSS under a few themes); beyond, the cache starts anew
STYLED_MOST = 4096  # nodes' styles kept per stylesheet (places in a tree, in a state); beyond, it starts anew

_parsed: dict[tuple, list] = {}  # (theme variables' number, source, where from, …) -> its rules
_themes: dict[tuple[tuple[str, str], ...], int] = {}  # theme variables -> a small number standing for them


def _parsed_once(parse_rules: Callable[..., Any]) -> Callable[..., Any]:
    def _parse_rules(self: Stylesheet, css: str, read_from: Any, is_default_rules: bool = False,
                     tie_breaker: int = 0, scope: str = "") -> list:
        variables = self._variables
        seen = self.__dict__.get("_negtui_theme")
        if seen is None or seen[0] is not variables:  # Textual replaces the dict when the theme changes
            seen = (variables, _themes.setdefault(tuple(sorted(variables.items())), len(_themes)))
            self._negtui_theme = seen  # type: ignore[attr-defined]
        key = (seen[1], css, read_from, is_default_rules, tie_breaker, scope)
        rules = _parsed.get(key)
        if rules is None:
            rules = parse_rules(self, css, read_from, is_default_rules, tie_breaker, scope)
            if len(_parsed) >= PARSED_MOST:
                _parsed.clear()
            _parsed[key] = rules
        return rules

    return _parse_rules


class _Kept(dict):
    """The cache `Stylesheet.apply` is handed, passed through to the caller's own: keeps the rules it worked out
    for the node (or found in the caller's cache)."""

    def __init__(self, outer: dict | None) -> None:
        super().__init__()
        self.outer = outer
        self.rules: Any = None

    def get(self, key: Any, default: Any = None) -> Any:
        found = None if self.outer is None else self.outer.get(key)
        if found is not None:
            self.rules = found
        return found if found is not None else default

    def __setitem__(self, key: Any, rules: Any) -> None:
        self.rules = rules
        if self.outer is not None:
            self.outer[key] = rules


def _pseudo_classes_tested(rules_map: dict[str, list[Any]], names: frozenset[str]) -> tuple[tuple[str, ...],
                                                                                              tuple[str, ...]]:
    """The pseudo-classes that the rules which may apply to a node (those whose last selector names one of
    its types, classes or id, as Textual picks them) test on the node itself, and on its ancestors."""
    own: set[str] = set()
    above: set[str] = set()
    for name in rules_map.keys() & names:
        for rule in rules_map[name]:
            for selector_set in rule.selector_set:
                selectors = selector_set.selectors
                k = len(selectors) - 1
                while k > 0 and selectors[k].combinator == CombinatorType.SAME:  # a compound: the node's too
                    k -= 1
                for selector in selectors[k:]:
                    own |= selector.pseudo_classes
                for selector in selectors[:k]:
                    above |= selector.pseudo_classes
    excluded = Stylesheet._EXCLUDE_PSEUDO_CLASSES_FROM_CACHE  # a node whose rules test these is not remembered
    return tuple(sorted(own - excluded)), tuple(sorted(above - excluded))


# what a stylesheet remembers: the rules it was worked out under; for a node's selector names, the pseudo-classes
# those rules test on the node and on its ancestors; for a node's place and state, its rules, flags and names
_Memo = tuple[list, dict[frozenset[str], tuple[tuple[str, ...], tuple[str, ...]]],
              dict[tuple, tuple[Any, tuple[bool, ...], frozenset[str]]]]


def _carried_over(memo: _Memo | None, rules: list) -> _Memo:
    """What still holds under `rules`.  An app parses its stylesheet anew for every widget class it shows
    for the first time, adding that class's rules: a rule added can change only the nodes it may apply to
    (its last selector names one of their types, classes or id, as Textual picks them), so what was worked
    out for every other node carries over.  A rule gone (a theme changed, CSS read anew): nothing does."""
    if memo is None:
        return rules, {}, {}
    before = {id(rule) for rule in memo[0]}
    if not before <= {id(rule) for rule in rules}:
        return rules, {}, {}
    added: set[str] = set().union(*(rule.selector_names for rule in rules if id(rule) not in before))
    if "*" in added:
        return rules, {}, {}
    tested = {names: pseudo for names, pseudo in memo[1].items() if names.isdisjoint(added)}
    styled = {key: found for key, found in memo[2].items() if found[2].isdisjoint(added)}
    return rules, tested, styled


def _styled_from_memory(apply: Callable[..., Any]) -> Callable[..., Any]:
    def apply_(self: Stylesheet, node: DOMNode, *, animate: bool = False, cache: dict | None = None) -> None:
        if not node.is_attached:
            return  # a widget being made (a Button adds its classes as it is made): styled as it is mounted
        rules = self.rules
        memo: _Memo | None = self.__dict__.get("_negtui_styled")
        if memo is None or memo[0] is not rules:  # parsed anew: what was worked out before may not hold
            memo = _carried_over(memo, rules)
            self._negtui_styled = memo  # type: ignore[attr-defined]
        _, tested, styled = memo
        names = frozenset(node._selector_names)
        pseudo = tested.get(names)
        if pseudo is None:
            pseudo = tested[names] = _pseudo_classes_tested(self.rules_map, names)
        own, above = pseudo
        # everything a selector that may apply can test, from the app down to the node: types, ids, classes,
        # and the pseudo-classes those selectors test on the node and on its ancestors
        *path, last = node.css_path_nodes
        key = (tuple((type(n), n._id, frozenset(n._classes), tuple([n.has_pseudo_class(p) for p in above]))
                     for n in path),
               (type(last), last._id, frozenset(last._classes), tuple([last.has_pseudo_class(p) for p in own])))
        found = styled.get(key)
        if found is not None:
            node_rules, flags, _ = found
            node._has_hover_style, node._has_focus_within, node._has_order_style, node._has_odd_or_even = flags
            self.replace_rules(node, node_rules, animate=animate)
            self._process_component_classes(node)
            return
        kept = _Kept(cache)
        apply(self, node, animate=animate, cache=kept)
        if kept.rules is not None:  # Textual caches no node whose rules look at its siblings or descendants
            if len(styled) >= STYLED_MOST:
                styled.clear()
            styled[key] = (kept.rules, (node._has_hover_style, node._has_focus_within, node._has_order_style,
                                        node._has_odd_or_even), names)

    return apply_
