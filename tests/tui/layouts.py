"""Spies on the layouts and frames of Textual screens, and a way to run one of our overrides as Textual's own."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def screens_laid_out() -> Iterator[list[str]]:
    """The screens laid out while the block runs, by class name."""
    from textual.screen import Screen

    laid_out: list[str] = []
    real = Screen._refresh_layout

    def spy(self, *args, **kwargs):
        laid_out.append(type(self).__name__)
        return real(self, *args, **kwargs)

    Screen._refresh_layout = spy  # type: ignore[method-assign]
    try:
        yield laid_out
    finally:
        Screen._refresh_layout = real  # type: ignore[method-assign]


@contextmanager
def frames_drawn() -> Iterator[list[tuple[str, bool]]]:
    """Each frame the app draws meanwhile: (the screen drawn, whether every cell of it was)."""
    from textual.screen import Screen

    drawn: list[tuple[str, bool]] = []
    real = Screen._compositor_refresh

    def spy(self):
        if self is self.app.screen and self._compositor._dirty_regions:
            drawn.append((type(self).__name__, self.size.region in self._compositor._dirty_regions))
        return real(self)

    Screen._compositor_refresh = spy  # type: ignore[method-assign]
    try:
        yield drawn
    finally:
        Screen._compositor_refresh = real  # type: ignore[method-assign]


@contextmanager
def as_textuals(cls: type, name: str) -> Iterator[None]:
    """Our class without its override of `name` while the block runs: Textual's own behaviour, to compare."""
    ours = cls.__dict__[name]
    delattr(cls, name)
    try:
        yield
    finally:
        setattr(cls, name, ours)
