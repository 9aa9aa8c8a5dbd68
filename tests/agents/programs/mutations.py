"""Hostile variations of a good answer, for the fuzz of outside agents and model servers: the bytes a
buggy or malicious program might send instead of the JSON object it was asked for.  Standard library
only: the fuzz agent imports it from its own folder."""

from __future__ import annotations

import json
import random

HOSTILE_VALUES: list[object] = [None, -1, 0, 2**70, -(2**70), 1e308, "", "x" * 300, [], {}, True, 3.5, "P0",
                                [["P0", "a0"]] * 50, {"nested": [[[]]]}, "\x1b]0;owned\x07\x1b[2J", "\u202e"]


def mutated_object(answer: dict, rng: random.Random) -> dict:
    """The answer with one key removed, replaced by a hostile value, or one key added."""
    out = dict(answer)
    key = rng.choice(list(out)) if out else "id"
    op = rng.randrange(3)
    if op == 0:
        out.pop(key, None)
    elif op == 1:
        out[key] = rng.choice(HOSTILE_VALUES)
    else:
        out[rng.choice(["extra", "type", "reason", "offer", "partner", "accept"])] = rng.choice(HOSTILE_VALUES)
    return out


def mutated_lines(answer: dict, rng: random.Random) -> tuple[str, list[bytes]]:
    """A kind of mutation and the lines (without their newline) to send in place of `answer`."""
    good = json.dumps(answer)
    kinds = {
        "object": lambda: [json.dumps(mutated_object(answer, rng)).encode()],
        "truncated": lambda: [good[: rng.randrange(len(good))].encode()],
        "inserted": lambda: [_inserted(good, rng).encode()],
        "deep": lambda: [b"[" * 100_000 + b"]" * 100_000],
        "deep-object": lambda: [b'{"id": ' + b"[" * 5_000 + b"]" * 5_000 + b"}"],
        "bigint": lambda: [good.replace(str(answer.get("id", 0)), "9" * 5_000, 1).encode()],
        "nan": lambda: [good[:-1].encode() + b', "accept": NaN, "partner": Infinity}'],
        "bad-utf8": lambda: [b"\xff\xfe\xc3(" + good.encode()],
        "nul": lambda: [good.replace(":", ":\x00", 1).encode()],
        "wrong-id": lambda: [json.dumps({**answer, "id": rng.choice([-1, "1", 10**9, None, 1.5])}).encode()],
        "extra-line": lambda: [json.dumps({**answer, "id": rng.choice([0, -5, 10**6])}).encode(), good.encode()],
        "two-in-one": lambda: [(good + good).encode()],
        "blank-first": lambda: [b"   ", b"", good.encode()],
        "not-an-object": lambda: [rng.choice([b"[]", b'"ok"', b"42", b"null", b"true"])],
        "long": lambda: [b'{"reason": "' + b"y" * (1 << 20) + b'"}'],
        "surrogate": lambda: [good[:-1].encode() + b', "reason": "\\ud800\\udfff\\ud800"}'],
        "duplicate-keys": lambda: [good[:-1].encode() + b', "id": 0, "id": "x"}'],
        "escapes": lambda: [json.dumps({**answer, "reason": "\x1b[31m\x1b]52;c;aGk=\x07\x9b2J"}).encode()],
        "bom": lambda: [b"\xef\xbb\xbf" + good.encode()],
    }
    kind = rng.choice(list(kinds))
    return kind, kinds[kind]()


def _inserted(text: str, rng: random.Random) -> str:
    k = rng.randrange(len(text) + 1)
    return text[:k] + rng.choice(["}", "]", ",", '"', "\\", "{", ":", "NaN", "\t", "'"]) + text[k:]
