"""Guards around Textual behaviour that negtui cannot live with, each tied to the pinned version.

A notification's toast starts a timer for the time the notification has left, computed when the toast
is made.  The rack checks that the notification has not expired just before, but a toast made in the
same instant the notification expires (a thread switch between the two is enough, and on a busy
training server it happens) gets a negative delay, and Textual's timer loop, given a negative
interval, spins forever without yielding: the app freezes at 100% CPU, deaf even to SIGHUP.  Found
under `bench/bench_serve.py` at 50 sessions; the guard gives such a toast the shortest delay instead.

A screen pushed onto the stack receives its first size as a resize, and passes it on to every screen
below it that shows through (each dialog's dimmed background): each of those is laid out and drawn in
full again although its size has not changed.  On a training server that was a whole-screen reflow of
the game below every dialog, and, the layout being news to the dialog's backdrop, a second backdrop
half a second later.  The guard passes a resize on only to a screen not yet laid out at that size;
whatever else changed on it is laid out by its own refresh, as before.
"""

from __future__ import annotations

from textual.geometry import Size
from textual.screen import Screen
from textual.widgets._toast import Toast

SHORTEST = 0.01  # seconds: an expired toast is removed on the next tick


def _guard_toast_timeout() -> None:
    mount = Toast._on_mount
    if getattr(mount, "negtui_guard", False):
        return

    def _on_mount(self: Toast, event) -> None:
        self._timeout = max(SHORTEST, self._timeout)
        mount(self, event)

    _on_mount.negtui_guard = True  # type: ignore[attr-defined]
    Toast._on_mount = _on_mount  # type: ignore[method-assign,assignment]


def _guard_same_size_relayout() -> None:
    resized = Screen._screen_resized
    if getattr(resized, "negtui_guard", False):
        return

    def _screen_resized(self: Screen, size: Size) -> None:
        if self is not self.app.screen and self._compositor.size == size:
            return  # a screen below the one pushed, already laid out at this size
        resized(self, size)

    _screen_resized.negtui_guard = True  # type: ignore[attr-defined]
    Screen._screen_resized = _screen_resized  # type: ignore[method-assign]


def install() -> None:
    _guard_toast_timeout()
    _guard_same_size_relayout()
