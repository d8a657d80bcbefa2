# fcanalyze's checks and chores in one place: the README's test command, CI and contributors run these targets.

CARGO_MANIFEST := --manifest-path engine/Cargo.toml

.PHONY: check lint test engine-check slow format bench table help

help:  ## List the targets.
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/'

check:  ## Everything CI runs: lints, types, the stub, pytest, the engine's checks; each part runs even if one before it failed, and the last line says which failed.
	@failed=""; \
	$(MAKE) --no-print-directory lint || failed="$$failed lint"; \
	$(MAKE) --no-print-directory test || failed="$$failed test"; \
	$(MAKE) --no-print-directory engine-check || failed="$$failed engine-check"; \
	if [ -n "$$failed" ]; then echo "make check: FAILED:$$failed"; exit 1; fi; \
	echo "make check: lint, test and engine-check all passed"

lint:  ## Python lints and formatting, the package's import layers, types, and the engine's stub against the build.
	ruff check
	lint-imports
	ruff format --check
	mypy
	python -m mypy.stubtest fcanalyze._engine

test:  ## The default pytest suite (the slow exhaustive checks are `make slow`).
	pytest

engine-check:  ## The engine's formatting, its cargo tests and clippy with warnings as errors.
	cargo fmt $(CARGO_MANIFEST) --check
	cargo test $(CARGO_MANIFEST)
	cargo clippy $(CARGO_MANIFEST) --all-targets --all-features -- -D warnings

slow:  ## The slow exhaustive checks; they need Freecell Solver (apt-get install freecell-solver-bin).
	pytest -m slow

format:  ## Rewrite Python and Rust files in the house format.
	ruff format
	cargo fmt $(CARGO_MANIFEST)

bench:  ## The 4-cell sweep benchmark against Freecell Solver (needs fc-solve).
	python scripts/bench_sweep.py --deals 1-32000 --cells 4 --workers 2 --repeat 3

table:  ## Rebuild data/ from a finished sweep: make table SWEEP=path/to/dataset.
	python scripts/build_table.py --from $(SWEEP)
