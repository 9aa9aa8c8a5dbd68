"""A learned lens's name in a seat (`learned`, `learned:PATH`) and where its model file is: read wherever a
seat is spelled (the command line, the seat dialog, a course), so it imports no numpy; the model file itself
is lens_model.py's."""

from __future__ import annotations

import os
from pathlib import Path

LEARNED = "learned"  # the lens's name: `learned` (the model shipped with negtui) or `learned:PATH`


class LensModelError(ValueError):
    """A learned lens's model file that cannot be used: it names the file and what is wrong with it."""

    def __init__(self, path: str | os.PathLike[str], why: str):
        super().__init__(f"{path}: {why}")
        self.path = str(path)
        self.why = why


def default_model_path() -> Path:
    """The model shipped with negtui (trained by the command in the model card beside it)."""
    return Path(__file__).resolve().parent / "models" / "learned-lens.npz"


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


def model_path(name: str) -> Path:
    _, path = split_learned(name)
    return default_model_path() if path is None else Path(path)


def based(name: str, base: Path) -> str:
    """`learned:PATH` with a relative PATH read from `base` (a course's folder, as its scenarios are);
    any other lens as it is."""
    _, path = split_learned(name)
    if not path or not path.strip() or Path(path).expanduser().is_absolute():
        return name
    return f"{LEARNED}:{base / path.strip()}"
