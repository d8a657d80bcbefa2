"""Reports: comparing difficulty across cell counts in a dataset, as text, tables and plots."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..lazy import submodule

if TYPE_CHECKING:
    from .document import Report


def build_report(data: Any, **options: Any) -> Report:
    """Every table of the report on `data` at once (`document.Report.build`, same
    options). Defined here so that importing it needs neither pandas nor pyarrow;
    building does."""
    from .document import Report

    return Report.build(data, **options)


def __getattr__(name: str) -> object:
    return submodule(__name__, name)
