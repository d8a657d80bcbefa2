"""Reports: comparing difficulty across cell counts in a dataset, as text, tables and plots."""

from ..lazy import submodule


def __getattr__(name: str) -> object:
    return submodule(__name__, name)
