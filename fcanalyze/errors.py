"""Exceptions for bad input; the CLI turns each into one `Error:` line and exit status 2."""

from __future__ import annotations


class FcanalyzeError(ValueError):
    """Input that fcanalyze cannot use. The message says what is wrong and how to fix it."""


class CardError(FcanalyzeError):
    """A card's text is not a card."""


class BoardError(FcanalyzeError):
    """A board text is malformed or describes an impossible position."""

    def __init__(self, message: str, line: int | None = None, source: str | None = None):
        self.reason = message
        self.line = line
        self.source = source
        where = source or "board"
        if line is not None:
            where += f", line {line}"
        super().__init__(f"{where}: {message}")


class DealNumberError(FcanalyzeError):
    """A deal number outside the Microsoft range."""


class VariantError(FcanalyzeError):
    """A rule variant that does not exist or is out of range."""


class NotationError(FcanalyzeError):
    """A move that is not in standard notation."""


class FcanalyzeWarning(UserWarning):
    """Something fcanalyze worked around but the user should know (the CLI prints it as one `Warning:` line)."""
