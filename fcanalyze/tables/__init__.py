"""The shipped tables of deals 1..32,000 and the published counts they are held to."""

from ..lazy import submodule


def __getattr__(name: str) -> object:
    return submodule(__name__, name)
