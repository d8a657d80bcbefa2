"""Results out: files written whole or not at all (a temporary file renamed into place), shares shown honestly."""

from __future__ import annotations

import contextlib
import json
import math
import os
import uuid
from collections.abc import Callable
from pathlib import Path

from .errors import FcanalyzeError
from .inputs import quote, short_path


def check_output_path(path: str | os.PathLike, what: str = "--out") -> str:
    """`path` as a place to write results, or FcanalyzeError saying why it cannot be,
    before any work is done: an empty name (which would write into the current
    directory), the filesystem's root, or a name that is not UTF-8 (Parquet's writer
    takes only UTF-8 names: such a name failed after the jobs had run)."""
    text = os.fspath(path)
    if isinstance(text, bytes):
        text = os.fsdecode(text)
    if not text.strip():
        raise FcanalyzeError(f"{what} is empty; give a name to write to")
    if "\x00" in text:
        raise FcanalyzeError(f"{what} {quote(text)} holds a NUL character; give a name to write to")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        shown = os.fsencode(text).decode("utf-8", "backslashreplace")
        raise FcanalyzeError(f"{what} {short_path(shown)} is not UTF-8; give a name in UTF-8") from None
    if "://" not in text and os.path.realpath(text) == os.path.realpath(os.sep):
        raise FcanalyzeError(f"{what} {text} is the filesystem's root; give a directory of its own")
    return text


def write_atomically(path: Path, write: Callable[[Path], object]) -> Path:
    """Calls `write` on a temporary file beside `path`, then renames it to `path`.

    A full disk, a read-only directory or a crash leaves `path` as it was (absent, or
    its old version), never empty or cut short, and no temporary file behind. The
    temporary's name is unique to this call, so that writers of the same file on
    several machines sharing a directory (a cluster's retried task) never mix.
    """
    path = Path(path)
    if not path.parent.is_dir():
        raise FcanalyzeError(f"cannot write {path}: the directory {path.parent} does not exist")
    tmp = path.with_name(f".{path.name}.tmp-{uuid.uuid4().hex}")
    try:
        write(tmp)
        os.replace(tmp, path)
    except OSError as e:
        with contextlib.suppress(OSError):
            tmp.unlink()
        # pyarrow's errors carry its own text with the temporary name; say the errno's.
        reason = os.strerror(e.errno) if e.errno else (e.strerror or str(e).replace(str(tmp), str(path)))
        raise FcanalyzeError(f"cannot write {path}: {reason}") from None
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    return path


def percent(share: float) -> str:
    """A share as a percentage with two decimals, or more when two would round a share
    that is not all or nothing to 100.00% or 0.00% (31,999 of 32,000 is 99.997%)."""
    if share != share:
        return "-"
    for decimals in range(2, 8):
        text = f"{100 * share:.{decimals}f}"
        if not ((share < 1 and text.startswith("100")) or (share > 0 and float(text) == 0)):
            break
    return text + "%"


def json_text(value: object) -> str:
    """`value` as strict JSON: a float that is not finite (NaN, infinity), which JSON
    cannot hold and Python would write as a bare `NaN`, becomes null."""
    return json.dumps(_finite(value), allow_nan=False)


def _finite(value: object) -> object:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def size_text(n: int) -> str:
    """Bytes as MiB below a GiB, else as GiB."""
    return f"{n / 2**20:.1f} MiB" if n < 2**30 else f"{n / 2**30:.1f} GiB"
