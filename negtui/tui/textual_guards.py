"""Guards around Textual behaviour that negtui cannot live with, each tied to the pinned version.

A notification's toast starts a timer for the time the notification has left, computed when the toast
is made.  The rack checks that the notification has not expired just before, but a toast made in the
same instant the notification expires (a thread switch between the two is enough, and on a busy
training server it happens) gets a negative delay, and Textual's timer loop, given a negative
interval, spins forever without yielding: the app freezes at 100% CPU, deaf even to SIGHUP.  Found
under `bench/bench_serve.py` at 50 sessions; the guard gives such a toast the shortest delay instead.
"""

from __future__ import annotations

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


def install() -> None:
    _guard_toast_timeout()
