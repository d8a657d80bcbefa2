"""Deciding one job: the engine run within its budgets, and every solution it returns replayed by the referee."""

from ..lazy import submodule


def __getattr__(name: str) -> object:
    return submodule(__name__, name)
