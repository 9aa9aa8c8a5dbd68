"""The learned lens's name in a seat: `learned` (the model shipped with negtui) or `learned:PATH`.  Plain words,
no numpy: a seat is read and its dialog drawn before numpy is imported; its model is read by lens_model.py."""

from __future__ import annotations

from pathlib import Path

LEARNED = "learned"  # the lens's name: `learned` (the model shipped with negtui) or `learned:PATH`


def split_learned(name: str) -> tuple[bool, str | None]:
    """(whether the lens is the learned one, its model file; None: the shipped model)."""
    if name == LEARNED:
        return True, None
    head, sep, path = name.partition(":")
    if sep and head == LEARNED:
        return True, path
    return False, None


def short_name(name: str) -> str:
    """A lens as a label shows it: `learned:PATH` by its file's name (the record keeps the whole path)."""
    learned, path = split_learned(name)
    return f"{LEARNED}:{Path(path).name}" if learned and path else name


def based(name: str, base: Path) -> str:
    """`learned:PATH` with a relative PATH read from `base` (a course's folder, as its scenarios are);
    any other lens as it is."""
    _, path = split_learned(name)
    if not path or not path.strip() or Path(path).expanduser().is_absolute():
        return name
    return f"{LEARNED}:{base / path.strip()}"
