"""`python -m fcanalyze`: the same as the `fcanalyze` command."""

from .cli import main

main()
