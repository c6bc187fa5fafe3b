"""What a parse made of each file of a folder, kept in this process while the file's stat says it
is the same file: run records (memory/dreams/) and the archive (memory/archive/) are read again
on every refresh, but only a new or changed file is parsed again.

A file counts as unchanged when its size, mtime, ctime, inode and device are those it had when
it was parsed. Atomic writes (a new inode) and appends (a new size) always differ; an in-place
rewrite of the same size is told by its mtime, unless both writes fell in one tick of the
filesystem's clock. So a file whose mtime was within RACY_NS of the moment it was read is not
trusted: it is parsed again on the next read, until it has settled (git's "racy clean" rule).
ctime is in the signature for writers that put the old mtime back (cp -p, touch -r).
The folder's own mtime is not used to skip the stats: a rewrite in place does not change it.
"""

from __future__ import annotations

import gc
import os
import threading
import time
from collections import OrderedDict
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Generic, TypeVar

T = TypeVar("T")
Signature = tuple[int, int, int, int, int]

RACY_NS = 2_000_000_000       # FAT keeps mtimes to 2 s; most filesystems to a clock tick (ms)
KEPT_FOLDERS = 8              # workspaces switched between in one session, each folder's parses


@contextmanager
def gc_paused():
    """Python's cycle collector held off while tens of thousands of rows are made: they hold no
    cycles, and each full collection it would start walks every object the process has (in a
    long-running app, several times the rows themselves)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def signature(st: os.stat_result, now_ns: int | None = None) -> Signature | None:
    """The file's identity for the memo, or None while its mtime is too recent to rely on."""
    now_ns = time.time_ns() if now_ns is None else now_ns
    if now_ns - st.st_mtime_ns < RACY_NS:
        return None
    return st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev


def path_signature(path: Path) -> Signature | tuple[str] | None:
    """A file's signature for a memo key: ("absent",) when there is none, None when unsure."""
    try:
        return signature(os.stat(path))
    except FileNotFoundError:
        return ("absent",)
    except OSError:
        return None


class FolderMemo(Generic[T]):
    """parse(path) of each wanted file of one folder, remembered by signature. `parsed` counts the
    files parsed since it was made (structural tests count them; the wall time is in tests/bench)."""

    def __init__(self, parse: Callable[[Path], T]):
        self.parse = parse
        self.parsed = 0
        self._files: dict[str, tuple[Signature, T]] = {}
        self._lock = threading.Lock()     # the reader and writer lanes may list one folder at once

    def read(self, folder: Path, wanted: Callable[[str], bool]) -> list[tuple[str, Signature | None, T | OSError]]:
        """(name, signature, parse result) of each wanted file, by name. A file that could not be
        read gives its OSError, is not kept and is tried again next time (it may be transient);
        signature None: not kept (too new, or unreadable). Deleted files are forgotten."""
        now = time.time_ns()
        out: list[tuple[str, Signature | None, T | OSError]] = []
        with self._lock, gc_paused():
            kept: dict[str, tuple[Signature, T]] = {}
            with os.scandir(folder) as it:
                entries = sorted((e for e in it if wanted(e.name)), key=lambda e: e.name)
            for entry in entries:
                sig, value = self._one(entry, now)
                if sig is not None:
                    kept[entry.name] = (sig, value)
                out.append((entry.name, sig, value))
            self._files = kept
        return out

    def _one(self, entry: os.DirEntry, now: int) -> tuple[Signature | None, T | OSError]:
        try:
            sig = signature(entry.stat(), now)      # before the read: a change after it is seen next time
        except OSError as exc:
            return None, exc
        known = self._files.get(entry.name)
        if sig is not None and known is not None and known[0] == sig:
            return sig, known[1]
        self.parsed += 1
        try:
            return sig, self.parse(Path(entry.path))
        except OSError as exc:
            return None, exc


_EVERY: list["LastUsed"] = []      # every memo made, for forget_all


def forget_all() -> None:
    """Everything this process keeps of parsed files and of what was made from them, dropped:
    the next read is a first open (benchmarks measure one)."""
    for memo in _EVERY:
        memo.clear()


class LastUsed(Generic[T]):
    """A few values by key (a folder, a workspace), the last KEPT_FOLDERS used; thread-safe."""

    def __init__(self):
        self._values: OrderedDict[str, T] = OrderedDict()
        self._lock = threading.Lock()
        _EVERY.append(self)

    def clear(self) -> None:
        with self._lock:
            self._values.clear()

    def get(self, key: str, make: Callable[[], T] | None = None) -> T | None:
        with self._lock:
            value = self._values.pop(key, None)
            if value is None and make is not None:
                value = make()
            if value is not None:
                self._put(key, value)
            return value

    def put(self, key: str, value: T) -> None:
        with self._lock:
            self._values.pop(key, None)
            self._put(key, value)

    def _put(self, key: str, value: T) -> None:
        self._values[key] = value
        while len(self._values) > KEPT_FOLDERS:
            self._values.popitem(last=False)


class MemoShelf(Generic[T]):
    """One FolderMemo per folder (by its real path), the last KEPT_FOLDERS used."""

    def __init__(self, parse: Callable[[Path], T]):
        self.parse = parse
        self._memos: LastUsed[FolderMemo[T]] = LastUsed()

    def memo(self, folder: Path) -> FolderMemo[T]:
        return self._memos.get(os.path.realpath(folder), lambda: FolderMemo(self.parse))
