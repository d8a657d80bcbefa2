"""`python -m fcanalyze`: the same as the `fcanalyze` command."""

from .launch import main

# Guarded: a local Dask cluster's spawned workers import this module again.
if __name__ == "__main__":
    main()
