"""negtui: multi-party negotiation over binding commitments, in the terminal."""

from __future__ import annotations

from functools import cache


@cache
def installed_version() -> str:
    """The version pip installed, from its metadata: pyproject.toml is the one place it is written.  Read on
    first use, not at import (importlib.metadata costs the app's first screen some 20 ms)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("negtui")
    except PackageNotFoundError:  # a source tree on sys.path that pip never installed
        return "0+unknown"


def __getattr__(name: str) -> str:
    if name == "__version__":  # records, sweep rows and reports name the version that wrote them
        return installed_version()
    raise AttributeError(name)
