"""negtui's stylesheet: CSS parsed once per process and theme, styles remembered for a place and state in the
tree.  The app sets it as its own (`NegtuiApp.__init__`); Textual's `Stylesheet` class stays as it is.

Every app parses the CSS of each widget class it shows, and parses it all again when a screen with CSS of its
own first shows: about 30 ms of every trainee's session went to parsing the same sources with the same theme.
This stylesheet keeps parsed rules per process, by source and theme variables; the fork server parses every
widget class's CSS once before it forks (`preparse`), so a trainee's app parses nothing.

Textual works out each node's styles by checking every rule that could apply against the node and its
ancestors, whenever the node mounts, changes class or state, or its screen resumes: 312 times in a
`bench_serve.py` session, about 0.3 ms each.  This stylesheet remembers what it worked out for a place and
state in the tree (the types, ids, classes and pseudo-classes of the node and each ancestor, the only things a
selector tests) and gives it to the next node in the same place and state, until it is parsed anew; a widget
not yet in the tree (a button styles itself as it adds its classes) is left to be styled as it mounts.  Of the
pseudo-classes, only those the rules that may apply to the node test count: those tested on the node itself,
and those tested on an ancestor.  Nodes whose rules look at their siblings or descendants are worked out each
time, as Textual's own cache does.
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from textual.css.model import CombinatorType
from textual.css.stylesheet import Stylesheet
from textual.css.types import CSSLocation
from textual.dom import DOMNode

if TYPE_CHECKING:
    from textual.app import App

PARSED_MOST = 4096  # parsed sources kept (the code's CSS under a few themes); beyond, the cache starts anew
STYLED_MOST = 4096  # nodes' styles kept per stylesheet (places in a tree, in a state); beyond, it starts anew

_parsed: dict[tuple, list] = {}  # (theme variables' number, source, where from, …) -> its rules
_themes: dict[tuple[tuple[str, str], ...], int] = {}  # theme variables -> a small number standing for them


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




class NegtuiStylesheet(Stylesheet):
    """Textual's stylesheet, parsing each source once per process and theme and styling a node from memory."""

    _theme: tuple[dict[str, str], int] | None = None  # the variables seen last and the number standing for them
    _memo: _Memo | None = None

    def _parse_rules(self, css: str, read_from: CSSLocation, is_default_rules: bool = False,
                     tie_breaker: int = 0, scope: str = "") -> list:
        variables = self._variables
        seen = self._theme
        if seen is None or seen[0] is not variables:  # Textual replaces the dict when the theme changes
            seen = self._theme = (variables, _themes.setdefault(tuple(sorted(variables.items())), len(_themes)))
        key = (seen[1], css, read_from, is_default_rules, tie_breaker, scope)
        rules = _parsed.get(key)
        if rules is None:
            rules = super()._parse_rules(css, read_from, is_default_rules, tie_breaker, scope)
            if len(_parsed) >= PARSED_MOST:
                _parsed.clear()
            _parsed[key] = rules
        return rules

    def reparse(self) -> None:
        """Textual parses into a fresh `Stylesheet` (of its own class, without the parsed rules kept) so that an
        error leaves this one as it was; `parse` does too (the rules are set only once every source parsed)."""
        self.parse()

    def copy(self) -> NegtuiStylesheet:
        sheet = NegtuiStylesheet(variables=self._variables.copy())
        sheet.source = self.source.copy()
        return sheet

    def apply(self, node: DOMNode, *, animate: bool = False, cache: dict | None = None) -> None:
        if not node.is_attached:
            return  # a widget being made (a Button adds its classes as it is made): styled as it is mounted
        rules = self.rules
        memo = self._memo
        if memo is None or memo[0] is not rules:  # parsed anew: what was worked out before may not hold
            memo = self._memo = _carried_over(memo, rules)
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
        super().apply(node, animate=animate, cache=kept)
        if kept.rules is not None:  # Textual caches no node whose rules look at their siblings or descendants
            if len(styled) >= STYLED_MOST:
                styled.clear()
            styled[key] = (kept.rules, (node._has_hover_style, node._has_focus_within, node._has_order_style,
                                        node._has_odd_or_even), names)


def preparse(app: App) -> int:
    """Parse the CSS of every widget class imported so far under `app`'s theme, as an app registering that
    class would: done once before forking, it leaves each child nothing to parse.  The number of sources."""
    sheet = NegtuiStylesheet(variables=app.get_css_variables())
    classes: list[type[DOMNode]] = []
    stack: list[type[DOMNode]] = [DOMNode]
    while stack:
        cls = stack.pop()
        classes.append(cls)
        stack.extend(cls.__subclasses__())
    for path in app.css_path:
        sheet.read(path)
    sheet.parse()
    default_css: Callable[[object], list[tuple[Any, str, int, str]]] = DOMNode._get_default_css  # type: ignore[assignment]
    sources = {(read_from, css, tie_breaker, scope) for cls in classes
               # a class's CSS is parsed once for each place it takes among a subclass's bases
               for read_from, css, tie_breaker, scope in default_css(
                   SimpleNamespace(_node_bases=DOMNode._css_bases(cls)))}  # all the method reads of a node
    for read_from, css, tie_breaker, scope in sources:
        sheet._parse_rules(css, read_from, True, tie_breaker, scope)
    return len(sheet.source) + len(sources)
