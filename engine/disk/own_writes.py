"""What Dreamdesk's own writes left on disk, so a file watcher can tell the echo of one of them
from another writer's change (issue 27: each write read once; a job's change record stands for
what it wrote).

Every engine write (engine/disk/files.py, a new git folder) says before it lands that a write to its
path is under way, and once it has landed what it left there: a file's size, mtime and inode
(and, for a small file, a digest of its bytes), a folder's inode, or nothing for a removal.
`echo(path)` answers the watcher: True while the path is exactly what our last write left (the
event is that write's own), None while a write of ours to it is still under way (ask again once
it lands), False otherwise. Another writer's change after ours leaves another mark (a rename
brings a new inode, a write in place a new size or mtime, and a small file's bytes are compared
even when those match), so it is still reported."""

from __future__ import annotations

import hashlib
import os
import stat
import threading
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterator

DIGEST_LIMIT = 1 << 20       # files up to this size are compared by their bytes too
KEPT = 4096                  # marks kept (the oldest go first: their echoes came long ago)


@dataclass(frozen=True, slots=True)
class Mark:
    """A path as one of our writes left it (exists False: removed)."""

    exists: bool
    size: int = 0
    mtime_ns: int = 0
    inode: int = 0
    folder: bool = False
    digest: str | None = None


ABSENT = Mark(False)


def digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def mark_of(st: os.stat_result, data: bytes | None = None) -> Mark:
    """A path's mark from its stat (and the bytes we wrote, when small enough to compare)."""
    if stat.S_ISDIR(st.st_mode):
        return Mark(True, inode=st.st_ino, folder=True)   # a folder's mtime moves with its children
    small = data if data is not None and len(data) <= DIGEST_LIMIT else None
    return Mark(True, st.st_size, st.st_mtime_ns, st.st_ino, digest=digest(small) if small is not None else None)


def look(path: str | Path) -> Mark:
    """The path as it is now (without its digest)."""
    try:
        return mark_of(os.lstat(path))
    except FileNotFoundError:
        return ABSENT


class Writing:
    """One write under way: `left` is set once it has landed (None: it did not)."""

    left: Mark | None = None


_lock = threading.Lock()
_left: dict[str, Mark] = {}
_under_way: dict[str, int] = {}


@contextmanager
def writing(path: str | Path) -> Iterator[Writing]:
    """Around one write of ours to `path`: its echo is held back until it lands, then recognised."""
    key = os.fspath(path)
    w = Writing()
    with _lock:
        _under_way[key] = _under_way.get(key, 0) + 1
    try:
        yield w
    finally:
        with _lock:
            if _under_way[key] > 1:
                _under_way[key] -= 1
            else:
                del _under_way[key]
            if w.left is not None:
                _left.pop(key, None)            # (re-inserted last: the newest are kept longest)
                _left[key] = w.left
                while len(_left) > KEPT:
                    del _left[next(iter(_left))]


def echo(path: str | Path) -> bool | None:
    """Is `path` exactly as our last write to it left it? None: a write of ours is under way."""
    key = os.fspath(path)
    with _lock:
        if _under_way.get(key):
            return None
        mark = _left.get(key)
    if mark is None:
        return False
    try:
        now = look(path)
    except OSError:
        return False
    same = now == replace(mark, digest=None)
    if not same or mark.digest is None:
        return same
    try:
        with open(path, "rb") as fh:
            return digest(fh.read(DIGEST_LIMIT + 1)) == mark.digest
    except OSError:
        return False
