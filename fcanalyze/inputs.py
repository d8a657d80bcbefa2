"""Reading what users type and give: ASCII whole numbers, size-capped files, short quotes in errors."""

from __future__ import annotations

import os
import re
import sys

from .errors import FcanalyzeError

# Boards are a few hundred bytes and the longest solutions a few hundred kilobytes;
# a file past this is the wrong file (or /dev/zero), not input.
MAX_INPUT_BYTES = 16 << 20


def quote(value: object, limit: int = 40) -> str:
    """`value` for an error message: repr of a string, and never more than `limit`
    characters of it, so that a megabyte of bad input gives a one-line error."""
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def short_path(path: object, limit: int = 80) -> str:
    """A path for an error message: whole if short, else its last `limit` characters
    (the file's own name is the telling part), so that an error stays one short line."""
    text = str(path)
    return text if len(text) <= limit else "..." + text[-(limit - 3) :]


_WHOLE = re.compile(r"[0-9]{1,30}", re.ASCII)


def whole_number(text: str) -> int | None:
    """`text` (surrounding space allowed) as a non-negative int, or None. Only ASCII
    digits: int() also takes '٣' and '1_000', and str.isdigit() even '²'."""
    cleaned = text.strip()
    return int(cleaned) if _WHOLE.fullmatch(cleaned) else None


def read_text(path: str, what: str = "file", limit: int = MAX_INPUT_BYTES) -> tuple[str, str]:
    """(text, name) of a UTF-8 text file, '-' meaning standard input, reading at most
    `limit` bytes: anything longer is refused rather than read until memory runs out."""
    if path == "-":
        data, name = sys.stdin.buffer.read(limit + 1), "<stdin>"
    else:
        name = path
        if "\x00" in path:
            raise FcanalyzeError(f"{quote(path)} is not a file name (it holds a NUL character)")
        if os.path.isdir(path):
            raise FcanalyzeError(f"{path} is a directory, not a {what}")
        try:
            with open(path, "rb") as f:
                data = f.read(limit + 1)
        except FileNotFoundError:
            raise FcanalyzeError(f"{path}: no such file") from None
        except OSError as e:
            raise FcanalyzeError(f"cannot read {what} {path}: {e.strerror or e}") from None
    if len(data) > limit:
        raise FcanalyzeError(f"{name} is larger than {limit >> 20} MiB; that is not a {what}")
    try:
        return data.decode("utf-8"), name
    except UnicodeDecodeError:
        raise FcanalyzeError(f"{name}: not a text file (not UTF-8)") from None
