"""Expected failures become a message on stderr and an exit status, never a traceback.

Helpers raise `UsageError` (so anything can reuse them); each command runs inside `user_errors()`,
the one place that turns errors a user can cause into a message and status 2 (130 for Ctrl-C)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn

import typer

from negtui.cli.exits import EXIT_INPUT, EXIT_INTERRUPTED, quiet_interrupt


class UsageError(Exception):
    """A request that cannot be carried out as given; the message says what and where."""

    def __init__(self, message: str, code: int = EXIT_INPUT):
        super().__init__(message)
        self.code = code


def fail(message: str, code: int = EXIT_INPUT) -> NoReturn:
    raise UsageError(message, code)


@contextmanager
def user_errors() -> Iterator[None]:
    import signal

    from negtui.engine import ExactTooLarge, GameError, IllegalMove
    from negtui.generator import GeneratorError
    from negtui.record import RecordError
    from negtui.record.signing import SigningKeyError
    from negtui.record.writer import CannotWrite
    from negtui.scenario import ScenarioError
    from negtui.scenario.io import WriteError
    from negtui.seats import SeatError
    from negtui.welfare.options import WelfareError

    if signal.getsignal(signal.SIGINT) is quiet_interrupt:  # started: Ctrl-C is ours to handle from here
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    except UsageError as err:
        _exit(str(err), err.code)
    except (ScenarioError, RecordError) as err:
        _exit(err.render(), EXIT_INPUT)
    except (GameError, ExactTooLarge, GeneratorError, IllegalMove, FileExistsError, WelfareError, SeatError,
            CannotWrite, SigningKeyError, WriteError) as err:
        _exit(f"error: {err}", EXIT_INPUT)
    except KeyboardInterrupt:
        _exit("interrupted", EXIT_INTERRUPTED)


def _exit(message: str, code: int) -> NoReturn:
    typer.echo(message, err=True)
    raise typer.Exit(code)
