"""The referee: replays a solution move by move from the rules alone, sharing no code with the engine."""

from ..lazy import submodule


def __getattr__(name: str) -> object:
    return submodule(__name__, name)
