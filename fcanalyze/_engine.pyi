"""Type stub for the Rust engine built from engine/ (fcanalyze._engine)."""

__version__: str
