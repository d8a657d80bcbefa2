"""`python -m fcanalyze`: the same as the `fcanalyze` command."""

from .launch import main

main()
