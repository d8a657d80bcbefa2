"""The `fcanalyze` command line: thin commands over the library."""
