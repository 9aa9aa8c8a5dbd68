"""A package's public names, each imported from its module on first use (PEP 562).

`from negtui.engine import Game` must not cost every part of the engine: `negtui play` draws its first
screen from the scenario alone, and numpy, the agents and the records arrive while the person reads it.
A package lists where each name lives; `from package import *` still imports them all."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any


class _Package(ModuleType):
    """A lazy package.  Importing a submodule sets the package's attribute of that name to the module;
    where the package exports a name of the same spelling (`negtui.engine.observation`, the function), the
    attribute is left to the export, as the package's own imports used to leave it."""

    def __setattr__(self, name: str, value: Any) -> None:
        if (isinstance(value, ModuleType) and value.__name__ == f"{self.__name__}.{name}"
                and name in self.__dict__.get("__lazy_home__", {})):
            return  # the export is found by __getattr__ (and the module in sys.modules)
        super().__setattr__(name, value)


def lazy_exports(namespace: dict[str, Any], where: Mapping[str, tuple[str, ...]]
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """`__getattr__` and `__dir__` for the package whose `globals()` is `namespace`: its names are
    `where[module]` of each module."""
    home = {name: module for module, names in where.items() for name in names}
    package = namespace["__name__"]
    namespace["__lazy_home__"] = home
    sys.modules[package].__class__ = _Package

    def __getattr__(name: str) -> Any:
        module = home.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value  # asked once
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *home})

    return __getattr__, __dir__
