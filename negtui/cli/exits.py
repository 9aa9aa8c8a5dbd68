"""Exit statuses and the Ctrl-C handler of start-up: what the package's tiny import needs, apart from
the commands (which import it back), so that nothing here imports anything of negtui."""

from __future__ import annotations

import os

EXIT_INPUT = 2
EXIT_INTERRUPTED = 130


def quiet_interrupt(signum: int, frame: object) -> None:
    """Ctrl-C while negtui is still starting (importing, parsing options): nothing to save yet, so go
    at once.  A command's `user_errors()` hands Ctrl-C back to Python as KeyboardInterrupt."""
    os.write(2, b"interrupted\n")
    os._exit(EXIT_INTERRUPTED)
