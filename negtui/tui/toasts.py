"""The app's notifications as its toast racks see them: none that is about to expire.

A toast starts a timer for the time its notification has left, worked out as the toast is made.  The rack
checks that the notification has not expired just before, but a toast made in the instant it expires (a
thread switch or a collection between the two is enough, and on a busy training server it happens) gets a
negative delay, and Textual's timer loop, given a negative interval, spins forever without yielding: the app
froze at 100 % CPU, deaf even to SIGHUP (found under `bench/bench_serve.py` at 50 sessions).  The racks
iterate over these notifications, which leave out any with less than `LAST_MOMENT` to live: a toast is made
only with time to show, and its delay cannot turn negative before it is.
"""

from __future__ import annotations

from collections.abc import Iterator

from textual.notifications import Notification, Notifications

LAST_MOMENT = 0.25  # seconds: a notification with less to live gets no toast (one already shown stays)


class LastingNotifications(Notifications):
    """Textual's collection of notifications, iterated (by a toast rack making toasts) without those about to
    expire; counting them and asking whether one is there see them all."""

    def __iter__(self) -> Iterator[Notification]:
        return (note for note in list(super().__iter__()) if note.time_left >= LAST_MOMENT)
