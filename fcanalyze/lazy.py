"""Packages whose modules load on first use: a dotted name such as `fcanalyze.dataset.store.read_frame` works after a plain `import fcanalyze`."""

from __future__ import annotations

import importlib
from types import ModuleType


def submodule(package: str, name: str) -> ModuleType:
    """The module `name` of `package`, imported now (a package's `__getattr__` calls
    this); AttributeError, as for any missing attribute, if there is none."""
    if not name.startswith("__"):
        try:
            return importlib.import_module(f"{package}.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"{package}.{name}":
                raise
    raise AttributeError(f"module {package!r} has no attribute {name!r}")
