"""Results out: files written whole or not at all (a temporary file renamed into place), shares shown honestly."""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Callable
from pathlib import Path

from .errors import FcanalyzeError


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
