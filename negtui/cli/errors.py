"""Expected failures become a message on stderr and an exit status, never a traceback.

Helpers raise `UsageError` (so anything can reuse them); each command runs inside `user_errors()`,
the one place that turns errors a user can cause into a message and status 2 (130 for Ctrl-C)."""

from __future__ import annotations

import sys
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


# Errors a user can cause, by where they are defined: matched without importing their modules (an error
# of a module never imported cannot be raised), so `negtui play` opens the app without loading the engine.
RENDERED = (("negtui.scenario.io", "ScenarioError"), ("negtui.record.reader", "RecordError"))
SAID = (("negtui.engine.game", "GameError"), ("negtui.engine.exact", "ExactTooLarge"),
        ("negtui.generator.params", "GeneratorError"), ("negtui.engine.negotiation", "IllegalMove"),
        ("negtui.welfare.options", "WelfareError"), ("negtui.seats", "SeatError"),
        ("negtui.record.writer", "CannotWrite"), ("negtui.record.signing", "SigningKeyError"),
        ("negtui.scenario.io", "WriteError"), ("negtui.cases.terms", "TooLarge"),
        ("negtui.engine.lens_model", "LensModelError"))


def _one_of(err: BaseException, where: tuple[tuple[str, str], ...]) -> bool:
    kinds = tuple(getattr(sys.modules[module], name) for module, name in where if module in sys.modules)
    return isinstance(err, kinds)


@contextmanager
def user_errors() -> Iterator[None]:
    import signal

    if signal.getsignal(signal.SIGINT) is quiet_interrupt:  # started: Ctrl-C is ours to handle from here
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    except UsageError as err:
        _exit(str(err), err.code)
    except KeyboardInterrupt:
        _exit("interrupted", EXIT_INTERRUPTED)
    except Exception as err:
        if _one_of(err, RENDERED):
            _exit(err.render(), EXIT_INPUT)  # type: ignore[attr-defined]
        if isinstance(err, FileExistsError) or _one_of(err, SAID):
            _exit(f"error: {err}", EXIT_INPUT)
        raise


def _exit(message: str, code: int) -> NoReturn:
    from negtui.scenario.untrusted import printable

    typer.echo(printable(message), err=True)  # it may quote a file or a program: nothing a terminal acts on
    raise typer.Exit(code)
