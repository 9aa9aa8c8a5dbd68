"""The partner tree both partner searches grow (search.py one proposer a turn, turn_search.py simultaneous
turns): its nodes, UCB selection, and the order untried partners are expanded in."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Protocol

from negtui.engine.negotiation import Negotiation, State


class At(Protocol):
    """Where a node stands: a state, or a point of a simultaneous turn (turn_search.py); the search reads
    only its turn."""

    @property
    def t(self) -> int: ...


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


