"""The sweep dataset: Parquet part files of one row per job, a local sweep's and a cluster sweep's."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ..lazy import submodule

if TYPE_CHECKING:
    import pandas as pd


def read_frame(path: str | os.PathLike, columns: list[str] | None = None) -> pd.DataFrame:
    """A dataset's rows as a pandas DataFrame (`store.read_frame`). Defined here so that
    importing it needs neither pyarrow nor pandas; reading does."""
    from .store import read_frame as read

    return read(path, columns)


def __getattr__(name: str) -> object:
    return submodule(__name__, name)
