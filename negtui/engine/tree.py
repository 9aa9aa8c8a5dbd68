"""The partner tree both partner searches grow (search.py one proposer a turn, turn_search.py simultaneous
turns): its nodes, UCB selection, the order untried partners are expanded in, and the growing itself."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol, TypeVar, cast

import numpy as np

from negtui.engine.negotiation import Negotiation, State


class At(Protocol):
    """Where a node stands: a state, or a point of a simultaneous turn (turn_search.py); the search reads
    only its turn."""

    @property
    def t(self) -> int: ...


P = TypeVar("P", bound=At)  # the kind of point one search's tree holds


@dataclass
class Node:
    """A node of the partner tree.  Only the parent's proposer ever reads a node's value, so the node
    sums just that player's component (`who`; -1 at the root), in the order a whole vector would."""

    state: At
    untried: list[int]
    who: int = -1
    n: int = 0
    w: float = 0.0
    children: dict[int, Node] = field(default_factory=dict)


@dataclass(frozen=True)
class SearchStats:
    visits: dict[int, int]
    value: dict[int, float]  # mean value of each root child for the proposer


def partner_order(neg: Negotiation, s: State, descending: bool) -> list[int]:
    """Untried partners, stored so that list.pop() takes the next one to expand."""
    if neg.is_terminal(s):
        return []
    qs = neg.legal_partners(s)
    # the reference pops from the end of [0..N-1], expanding N-1 first
    return qs if descending else qs[::-1]


def descend(root: Node, T: int, c_ucb: float) -> list[Node]:
    """The path UCB selects from the root to a node with an untried partner, a leaf or the end."""
    node, path = root, [root]
    sqrt, log = math.sqrt, math.log
    while not node.untried and node.state.t < T and node.children:
        log_n = log(node.n)
        best_q, best_u = -1, -math.inf
        for q, ch in node.children.items():
            u = ch.w / ch.n + c_ucb * sqrt(log_n / ch.n)
            if u > best_u:
                best_q, best_u = q, u
        node = node.children[best_q]
        path.append(node)
    return path


def grow(root: Node, sims: int, T: int, c_ucb: float, step: Callable[[P, int], P], untried: Callable[[P], list[int]],
         who: Callable[[P], int], leaf_value: Callable[[P], np.ndarray]) -> tuple[int, SearchStats]:
    """`sims` simulations from the root (docs/reference.md §3.3): select by UCB, expand the next untried partner
    (`step` to the child, whose value the choosing player, `who`, reads), value the leaf, back the value up.
    Returns the most visited partner (ties to the first inserted) and the root's statistics."""
    for _ in range(sims):
        path = descend(root, T, c_ucb)
        node = path[-1]
        if node.state.t < T and node.untried:
            q = node.untried.pop()
            at = cast(P, node.state)  # every node's state is the searcher's kind: the root's, or a step's
            nxt = step(at, q)
            ch = Node(nxt, untried(nxt), who(at))
            node.children[q] = ch
            path.append(ch)
        value = leaf_value(cast(P, path[-1].state)).tolist()
        for nd in path:
            nd.n += 1
            if nd.who >= 0:
                nd.w += value[nd.who]
    if not root.children:
        raise ValueError("no partner to choose at a terminal state")
    best = max(root.children.items(), key=lambda kv: kv[1].n)[0]
    stats = SearchStats({q: ch.n for q, ch in root.children.items()},
                        {q: ch.w / ch.n for q, ch in root.children.items()})
    return best, stats
