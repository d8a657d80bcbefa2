"""The game model: cards, boards and their text, Microsoft deals, rule variants, move notation and the app's scoring."""

from ..lazy import submodule


def __getattr__(name: str) -> object:
    return submodule(__name__, name)
