"""The Rust extension builds, imports, and carries the package's single version."""

from __future__ import annotations

import re
from pathlib import Path

import fcanalyze
from fcanalyze import _engine


def test_engine_imports_and_version_is_the_crate_version():
    cargo = Path(__file__).resolve().parents[2] / "engine" / "Cargo.toml"
    crate_version = re.search(r'^version = "([^"]+)"', cargo.read_text(), re.M).group(1)
    assert _engine.__version__ == fcanalyze.__version__ == crate_version


def test_stub_matches_the_module():
    stub = Path(fcanalyze.__file__).with_name("_engine.pyi").read_text()
    public = {n for n in dir(_engine) if not n.startswith("_") or n == "__version__"}
    for name in public:
        assert name in stub, f"{name} missing from _engine.pyi"
