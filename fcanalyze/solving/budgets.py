"""Search budgets (positions, seconds, memory, disk): parsed and range-checked once, where input arrives."""

from __future__ import annotations

import functools
import math
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from ..cluster import cores
from ..errors import FcanalyzeError
from ..inputs import quote, short_path

# Beyond these a budget is a typo, not a plan: the engine expands about a million
# positions a second, so 10^15 positions is decades; 10^7 seconds is four months; no
# machine this runs on has a pebibyte. Rejecting them keeps numbers like 1e30 from
# overflowing the engine's integers deep inside a sweep.
MAX_NODES = 10**15
MAX_SECONDS = 1e7
MAX_MEMORY = 1 << 50
# Below this the search cannot even hold its first table; such a budget is a mistake
# (512 instead of 512M), so say so rather than record every job as unknown.
MIN_MEMORY = 1 << 20

# The defaults, for `solve` and for each job of a sweep: 8 GiB lets two workers share a
# 24 GiB machine (a sweep lowers it to fit its workers in this machine's memory), and is
# the engine's own default too (a test holds the two together); 90 s decides all but a
# handful of the 160,000 classic jobs at 0 to 4 cells (docs/tuning.md).
DEFAULT_MAX_MEMORY = 8 << 30
DEFAULT_MAX_SECONDS = 90.0


# A job's memory budget bounds the whole process that runs it, as the OS counts it
# (peak resident memory): the engine gets what is left of it once the process's own
# memory now and this reserve are taken off. The reserve covers what the process
# allocates beside the engine's own structures while a job runs and after: the
# referee's replay, the result, the allocator's slack on the engine's side: 4 to 12 MiB
# seen (a sweep's worker at --max-memory 200M peaked at 204 MiB with 8 MiB kept back,
# on a clean install under load).
PROCESS_RESERVE = 24 << 20
# The least the engine is started with: it can hold its first tables in this.
MIN_ENGINE_MEMORY = 256 << 10
_PAGE_SIZE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


# /proc/self/statm, opened once per process (a forked worker opens its own: the file
# opened names the process that opened it): a sweep reads it before every job, and
# opening it cost 50 µs of a 4-cell job's 500.
_statm: tuple[int, int] | None = None


def resident_bytes() -> int | None:
    """This process's resident memory now, as the OS counts it; None where that cannot
    be read (only Linux's /proc is read)."""
    global _statm
    try:
        pid = os.getpid()
        if _statm is None or _statm[0] != pid:
            _statm = (pid, os.open("/proc/self/statm", os.O_RDONLY | os.O_CLOEXEC))
        return int(os.pread(_statm[1], 128, 0).split()[1]) * _PAGE_SIZE
    except (OSError, ValueError, IndexError):
        return None


def engine_memory(max_memory: int) -> int:
    """The part of a job's memory budget left for the engine's structures, so that the
    whole process stays within `max_memory`: what the process holds now and
    PROCESS_RESERVE are taken off. FcanalyzeError if that leaves less than
    MIN_ENGINE_MEMORY."""
    held = resident_bytes() or 0
    share = max_memory - held - PROCESS_RESERVE
    if share < MIN_ENGINE_MEMORY:
        raise FcanalyzeError(
            f"a memory budget of {max_memory / 2**20:,.0f} MiB leaves the search nothing: the process already "
            f"holds {held / 2**20:,.1f} MiB; give at least {-(-(held + PROCESS_RESERVE + MIN_MEMORY) // 2**20)}M"
        )
    return share


def retry_seconds(seconds: float | None) -> float:
    """The time budget to suggest for rerunning jobs that ran out of `seconds` (None: the
    sweep had no time limit): four times as much, and at least 300 s."""
    return max(300.0, 4 * (seconds or 0))


# The free space a layered proof leaves on its disk when --max-disk is given.
KEEP_FREE_GIVEN = 1 << 30

_UNITS = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40, "P": 1 << 50}


def check_nodes(value: int | None, what: str = "max_nodes") -> int | None:
    """A positions budget: None (no limit) or a whole number 1..10^15."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise FcanalyzeError(f"{what} must be a whole number, got {quote(value)}")
    if not 1 <= value <= MAX_NODES:
        raise FcanalyzeError(f"{what} must be 1..{MAX_NODES:,}, got {quote(value)}")
    return value


# More threads than any machine fcanalyze runs on has cores: a number above it is a typo.
MAX_THREADS = 1024
# The memory budget each thread of a layered proof needs at least: its stack and its
# allocator's arena (some 8 MiB, which the engine takes off the budget), and a store
# worth searching with. engine/src/search/layered.rs's MIN_THREAD_MEMORY is the same.
THREAD_MEMORY = 16 << 20


def threads_within(threads: int | None, max_memory: int | None) -> int:
    """The threads of a layered proof: `threads` (None: every core, as many as
    `max_memory` gives THREAD_MEMORY each), or FcanalyzeError if `max_memory` cannot
    give each of the `threads` asked for its THREAD_MEMORY: more threads would only
    hold more than the budget."""
    if threads is None:
        fit = cores() if max_memory is None else max(1, max_memory // THREAD_MEMORY)
        return max(1, min(cores(), fit))
    threads = check_threads(threads)
    if max_memory is not None and threads > 1 and threads * THREAD_MEMORY > max_memory:
        most = max(1, max_memory // THREAD_MEMORY)
        raise FcanalyzeError(
            f"{threads:,} threads need a memory budget of at least {threads * THREAD_MEMORY >> 20:,}M "
            f"({THREAD_MEMORY >> 20} MiB a thread); give --threads {most} or less, or more --max-memory"
        )
    return threads


def check_threads(value: int | None) -> int:
    """Threads for one layered proof: None means all cores (cluster.cores), or a whole
    number 1..MAX_THREADS."""
    if value is None:
        return cores()
    if isinstance(value, bool) or not isinstance(value, int):
        raise FcanalyzeError(f"threads must be a whole number, got {quote(value)}")
    if not 1 <= value <= MAX_THREADS:
        raise FcanalyzeError(f"threads must be 1..{MAX_THREADS:,}, got {quote(value)}")
    return value


def check_seconds(value: float | None) -> float | None:
    """A time budget: None (no limit) or a number of seconds above 0 and at most 10^7."""
    if value is None:
        return None
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        raise FcanalyzeError(f"max_seconds must be a number, got {quote(value)}") from None
    if math.isnan(seconds) or not 0 < seconds <= MAX_SECONDS:
        raise FcanalyzeError(
            f"max_seconds must be above 0 and at most {MAX_SECONDS:,.0f}, got {quote(value)}; leave it out for no limit"
        )
    return seconds


def parse_memory(value: int | str | None, what: str = "memory budget") -> int | None:
    """Bytes from an int or text like `2G`, `512M`, `1.5GiB`: 1 MiB..1 PiB, or None."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise FcanalyzeError(f"bad memory size {quote(value)}; write it like 2G or 512M")
    if isinstance(value, int):
        size = value
    else:
        text = str(value).strip().upper().removesuffix("IB").removesuffix("B")
        scale = _UNITS.get(text[-1:], 1)
        number = text[:-1] if text[-1:] in _UNITS else text
        # float() also takes 'inf', 'nan', '1e30' and non-ASCII digits; only plain
        # decimal numbers are sizes.
        # (A number of more than 20 characters is past the limit anyway, and float()
        # makes a long enough one infinite.)
        if (
            not number
            or len(number) > 20
            or not all(c in "0123456789." for c in number)
            or number.count(".") > 1
            or number == "."
        ):
            raise FcanalyzeError(f"bad memory size {quote(value)}; write it like 2G or 512M")
        size = int(float(number) * scale)
    if not MIN_MEMORY <= size <= MAX_MEMORY:
        raise FcanalyzeError(f"{what} must be 1M..1P, got {quote(value)}")
    return size


def check_spill_dir(path: str | os.PathLike[str] | None) -> str | None:
    """A directory for a layered proof's files: it must exist and be writable."""
    if path is None:
        return None
    text = os.fspath(path)
    try:
        # A sweep's rows record it, in Parquet's UTF-8: refused now, not after the jobs ran.
        text.encode("utf-8")
    except UnicodeEncodeError:
        shown = os.fsencode(text).decode("utf-8", "backslashreplace")
        raise FcanalyzeError(f"--spill-dir {short_path(shown)} is not UTF-8; give a name in UTF-8") from None
    if not os.path.isdir(text):
        raise FcanalyzeError(f"--spill-dir {quote(text)} is not a directory; make it first")
    if not os.access(text, os.W_OK | os.X_OK):
        raise FcanalyzeError(f"--spill-dir {quote(text)} is not writable")
    return os.path.abspath(text)


def kept_proofs(spill_dir: str | os.PathLike[str]) -> list[Path]:
    """The layered proofs kept in `spill_dir` to go on from: the engine keeps a proof
    that a budget stopped in a directory of its own, named for its job, and writes its
    checkpoint last (engine/src/search/layered.rs)."""
    try:
        return sorted(d for d in Path(spill_dir).glob("fcanalyze-proof-*") if (d / "checkpoint").is_file())
    except OSError:
        return []


def default_max_disk(spill_dir: str) -> int:
    """Half the space free in `spill_dir` now: a proof never fills the disk it shares."""
    return max(MIN_MEMORY, shutil.disk_usage(spill_dir).free // 2)


def default_keep_free(spill_dir: str, max_disk_given: bool) -> int:
    """The free space every layered proof leaves on `spill_dir`'s filesystem, whoever
    else fills it (two workers' proofs side by side, proofs kept from earlier jobs):
    half of what is free now, as the default --max-disk's own share; with a --max-disk
    given, 1 GiB (or half of what is free, if less), so that the dataset's writes and
    the rest of the machine still have room."""
    half = shutil.disk_usage(spill_dir).free // 2
    return min(KEEP_FREE_GIVEN, half) if max_disk_given else half


@dataclass(frozen=True)
class Budgets:
    """Per-job limits, checked on construction; None means no limit.

    `spill_dir` is where a proof that runs out of memory goes on as a layered proof,
    keeping at most `max_disk` bytes of files there (by default half the space free
    there when the budgets are made), and stopping when the free space there falls
    below `keep_free` (`default_keep_free`), however it was filled; without it such a
    proof ends `unknown`. With
    `layered`, the layered proof starts at once, skipping the searches in memory: for
    jobs known to be too big for memory (a win it meets is found in memory). With
    `shortest`, a won job's line is the shortest the search finds within these
    budgets. With `whole_process`, `max_memory` bounds the process, not only the
    search. `threads` is how many threads a layered proof searches the buckets of a
    level on (None: all cores); its memory and disk budgets bound all of them
    together."""

    max_nodes: int | None = None
    max_seconds: float | None = None
    max_memory: int | None = None
    spill_dir: str | None = None
    max_disk: int | None = None
    layered: bool = False
    keep_free: int | None = None
    # Once a job is won, search for its shortest line (fewest moves not to a foundation)
    # within what is left of these budgets (docs/correctness.md, "The shortest line").
    shortest: bool = False
    # Whether max_memory bounds the whole process's peak resident memory (the command
    # line's --max-memory, and every sweep's workers, whose processes are fcanalyze's
    # own), or the search's own structures alone (the library's default: the caller's
    # process may hold anything besides). See engine_memory.
    whole_process: bool = False
    # Threads of a layered proof. A sweep's jobs keep 1 each: its workers take the cores.
    threads: int = 1
    # Positions the search for the shortest line may expand to prove it shortest (None:
    # the engine's default, SHORTEST_NODES); the time and memory budgets bound it too.
    shortest_nodes: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "threads", check_threads(self.threads))
        object.__setattr__(self, "max_nodes", check_nodes(self.max_nodes))
        object.__setattr__(self, "shortest_nodes", check_nodes(self.shortest_nodes, "shortest_nodes"))
        if self.shortest_nodes is not None and not self.shortest:
            raise FcanalyzeError("--shortest-nodes needs --shortest: it is the budget of the proof of a shortest line")
        object.__setattr__(self, "max_seconds", check_seconds(self.max_seconds))
        object.__setattr__(self, "max_memory", parse_memory(self.max_memory))
        object.__setattr__(self, "spill_dir", check_spill_dir(self.spill_dir))
        max_disk = parse_memory(self.max_disk, "disk budget")
        if max_disk is not None and self.spill_dir is None:
            raise FcanalyzeError("--max-disk needs --spill-dir: the disk it limits is the spill directory's")
        if self.keep_free is not None and (
            isinstance(self.keep_free, bool) or not isinstance(self.keep_free, int) or self.keep_free < 0
        ):
            raise FcanalyzeError(f"keep_free must be a number of bytes, not {self.keep_free!r}")
        if self.spill_dir is not None and self.keep_free is None:
            object.__setattr__(self, "keep_free", default_keep_free(self.spill_dir, max_disk is not None))
        if self.spill_dir is not None and max_disk is None:
            max_disk = default_max_disk(self.spill_dir)
        object.__setattr__(self, "max_disk", max_disk)
        if self.layered and self.spill_dir is None:
            raise FcanalyzeError("--layered needs --spill-dir: a layered proof keeps its later layers in files there")

    def text(self) -> str:
        """As the dataset's `budgets` column records it: `max_nodes=none,max_seconds=90,max_memory=...`."""
        return _budgets_text(self)


@functools.lru_cache(maxsize=16)
def _budgets_text(budgets: Budgets) -> str:
    # Every row of a sweep carries it, and a sweep has one.
    def show(v: float | None) -> str:
        return "none" if v is None else f"{v:g}" if isinstance(v, float) else str(v)

    text = (
        f"max_nodes={show(budgets.max_nodes)},max_seconds={show(budgets.max_seconds)},"
        f"max_memory={show(budgets.max_memory)}"
    )
    # Only a sweep that spills says so: the text of every other is as it always was.
    if budgets.spill_dir is not None:
        text += f",max_disk={show(budgets.max_disk)},keep_free={show(budgets.keep_free)},spill_dir={budgets.spill_dir}"
    if budgets.layered:
        text += ",layered=yes"
    # Threads change how fast a proof ends, never what it decides; 1 is not said.
    if budgets.spill_dir is not None and budgets.threads != 1:
        text += f",threads={budgets.threads}"
    if budgets.shortest:
        text += ",shortest=yes"
    if budgets.shortest_nodes is not None:
        text += f",shortest_nodes={budgets.shortest_nodes}"
    return text
