"""The lock Hermes Agent takes around every write of a memory file, taken the same way, so a
Dreamdesk write and a Hermes write of MEMORY.md or USER.md never interleave. Read from
hermes-agent 0.19.0's tools/memory_tool.py (MemoryStore._file_lock): the lock is on a separate
file, `<file>.lock` beside it (MEMORY.md.lock, USER.md.lock), opened with open(path, "a+") and
locked whole with fcntl.flock(LOCK_EX) (BSD flock, not lockf/POSIX record locks, which do not
exclude it), on Windows msvcrt.locking of its first byte; it is never removed. Hermes holds it
while it re-reads the file, decides, writes a temp file, fsyncs and renames it over the file;
its reads take no lock (the rename makes them see one whole file or the other).

engine.disk.files.FileLock is that lock (flock on POSIX, the first byte on Windows). The lock
file is left in place afterwards, as Hermes leaves it: removing it would let a writer that
opened the old one and a writer that creates a new one both hold "the" lock. Nothing else is
created: the memories/ folder must exist."""

from __future__ import annotations

from pathlib import Path

from ..disk.files import FileLock, lock_is_held

DEFAULT_WAIT = 10.0          # seconds; Hermes holds its lock for a few milliseconds per write


def lock_path(memory_file: Path) -> Path:
    """<file>.lock beside the memory file (Hermes: path.with_suffix(path.suffix + ".lock"))."""
    memory_file = Path(memory_file)
    return memory_file.with_name(memory_file.name + ".lock")


def write_lock(memory_file: Path, timeout: float = DEFAULT_WAIT) -> FileLock:
    """Hermes's write lock on this memory file, to use as `with write_lock(path): ...` around a
    read-modify-write; LockHeld when Hermes keeps it longer than `timeout` seconds. Creates
    the .lock file when absent (as Hermes's first write does), never the folder."""
    path = lock_path(memory_file)
    if not path.parent.is_dir():
        raise FileNotFoundError(f"no folder {path.parent} for {Path(memory_file).name}")
    return FileLock(path, timeout=timeout, what=f"Hermes's write lock on {Path(memory_file).name}")


def hermes_is_writing(memory_file: Path) -> bool:
    """Someone holds the lock right now (Hermes mid-write). Reads only: creates no lock file."""
    return lock_is_held(lock_path(memory_file))
