"""State digests: a short hash of (turn, commitments) that a replay recomputes and compares."""

from __future__ import annotations

import hashlib


def state_digest(t: int, bits: int) -> str:
    return hashlib.sha256(f"{t}:{bits:x}".encode()).hexdigest()[:16]
