"""Random mutations of the files negtui reads, for the fuzz tests: one structural or value change in decoded
JSON, one cut or insertion in text.  Seeded by the caller's `random.Random`, so a failing case replays."""

from __future__ import annotations

import copy
import random


def mutate(data: object, rng: random.Random) -> object:
    """One random structural or value mutation somewhere in a JSON document."""
    data = copy.deepcopy(data)
    nodes = [data]
    target = data
    for _ in range(rng.randint(1, 6)):
        children = list(target.items()) if isinstance(target, dict) else list(enumerate(target)) \
            if isinstance(target, list) else []
        if not children:
            break
        key, child = rng.choice(children)
        if not isinstance(child, (dict, list)) or rng.random() < 0.3:
            break
        target = child
        nodes.append(target)
    if isinstance(target, dict) and target:
        key = rng.choice(list(target))
        op = rng.randrange(6)
        if op == 0:
            del target[key]
        elif op == 1:
            target[key] = rng.choice([None, -1, 0, 10**12, 1e300, "", "x" * 300, [], {}, True, 3.5, "P0"])
        elif op == 2:
            target[key + "_extra"] = 1
        elif op == 3 and isinstance(target[key], list) and target[key]:
            target[key] = target[key] * rng.randint(2, 3)
        elif op == 4 and isinstance(target[key], str):
            target[key] = target[key] + rng.choice([".", " ", "\u00e9", "\ud800"])
        else:
            target[key] = rng.choice([[], {}, -(2**70), 2**70])
    elif isinstance(target, list) and target:
        k = rng.randrange(len(target))
        op = rng.randrange(3)
        if op == 0:
            del target[k]
        elif op == 1:
            target.insert(k, copy.deepcopy(target[k]))
        else:
            target[k] = rng.choice([None, "?", 7, -7, {}])
    return data


JSON_PIECES = ("}", "]", ",", '"', "\\", "\x00", "NaN")
# what breaks TOML and CSV: their syntax, a NUL, a byte-order mark mid-file, a number no reader should take
# (underscores, past a float, past Python's 4,300 digits), a cell past csv's own limit of 131,072 characters
TEXT_PIECES = ("\n", ",", '"', "=", "[", "]", "\x00", "\ufeff", "\x1b[2J", "1_0", "9" * 400, "7" * 5000,
               "z" * 140_000, "..", "/etc/passwd")


def text_mutation(text: str, rng: random.Random, pieces: tuple[str, ...] = JSON_PIECES) -> str:
    """Text cut at a random place, a piece inserted there, or a few characters there taken out."""
    k = rng.randrange(max(1, len(text)))
    return rng.choice([text[:k], text[:k] + rng.choice(pieces) + text[k:], text[:k] + text[k + rng.randint(1, 20):]])
