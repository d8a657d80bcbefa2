"""The sweep dataset: Parquet part files of one row per job, a local sweep's and a cluster sweep's."""

from ..lazy import submodule


def __getattr__(name: str) -> object:
    return submodule(__name__, name)
