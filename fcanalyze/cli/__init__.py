"""The `fcanalyze` command line: thin commands over the library."""

from ..lazy import submodule


def __getattr__(name: str) -> object:
    return submodule(__name__, name)
