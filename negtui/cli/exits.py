"""Exit statuses and the Ctrl-C handler of start-up: what the package's tiny import needs, apart from
the commands (which import it back), so that nothing here imports anything of negtui."""

from __future__ import annotations

import atexit
import os
import sys
import threading
import time

EXIT_INPUT = 2
EXIT_INTERRUPTED = 130
JOIN_SECONDS = 10.0  # after Ctrl-C, how long other threads get to finish before the process ends anyway


def quiet_interrupt(signum: int, frame: object) -> None:
    """Ctrl-C while negtui is still starting (importing, parsing options): nothing to save yet, so go
    at once.  A command's `user_errors()` hands Ctrl-C back to Python as KeyboardInterrupt."""
    os.write(2, b"interrupted\n")
    os._exit(EXIT_INTERRUPTED)


def leave_interrupted() -> None:
    """End with status 130 once a Ctrl-C has been handled and the command has unwound.

    A normal exit would not do: CPython (3.11, 3.12) marks a KeyboardInterrupt raised inside `exec()` of
    a string (dataclasses and typing make classes that way while a module imports) as unhandled even
    when it is caught, and then ends the process by SIGINT instead of with the status asked for.  So the
    rest of a normal exit is done here: other threads finish, exit handlers run, output is flushed.  The
    waits are bounded: a process pool whose workers were ended under it can leave its manager thread, and
    multiprocessing's exit handler joining its queue's feeder, waiting forever, and Ctrl-C must end the
    process."""
    deadline = time.monotonic() + JOIN_SECONDS
    for thread in threading.enumerate():
        if thread is not threading.current_thread() and not thread.daemon:
            thread.join(max(0.0, deadline - time.monotonic()))
    handlers = threading.Thread(target=atexit._run_exitfuncs, daemon=True)
    handlers.start()
    handlers.join(JOIN_SECONDS)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: nothing more can reach it
            pass
    os._exit(EXIT_INTERRUPTED)
