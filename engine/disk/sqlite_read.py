"""Reading another program's SQLite database without writing anything beside it (nanobot's usage
store, OpenClaw's state database).

Such databases run in WAL mode, where even a read-only connection (`mode=ro`) creates the
-wal/-shm files when they are missing: then the file is opened as immutable, so nothing appears.
While a -wal is there (its program running, or killed before a checkpoint) the newest rows may be
only in it, and attaching to the -shm writes it: the database and its -wal are copied to a
temporary folder and read there. Whatever fails is one sentence (Unreadable), never a traceback.
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from pathlib import Path
from typing import Callable, TypeVar
from urllib.parse import quote

T = TypeVar("T")
SQLITE_MAGIC = b"SQLite format 3\x00"
BUSY_SECONDS = 0.5


class Unreadable(Exception):
    """Why the database cannot be read, in words."""


class Locked(Unreadable):
    """Another program holds the database locked past the wait (a writer's transaction in a
    rollback-journal database): it may be readable in a moment."""


def read_sqlite(path: Path, read: Callable[[sqlite3.Connection], T]) -> T | None:
    """`read(connection)` on the database at `path`, read-only; None for an empty file (an empty
    SQLite database)."""
    try:
        with open(path, "rb") as f:
            head = f.read(100)
    except OSError as exc:
        raise Unreadable(exc.strerror or str(exc)) from None
    if not head:
        return None
    if not head.startswith(SQLITE_MAGIC) or len(head) < 100:
        raise Unreadable("it is not an SQLite database (damaged, or another program's file)")
    wal = path.with_name(path.name + "-wal")
    if head[18] != 2 or not wal.exists():
        return _read_file(path, read, immutable=head[18] == 2)
    with tempfile.TemporaryDirectory(prefix="dreamdesk-sqlite-") as tmp:
        copy = Path(tmp) / path.name
        try:
            shutil.copyfile(path, copy)
            shutil.copyfile(wal, copy.with_name(path.name + "-wal"))
        except OSError as exc:
            raise Unreadable(exc.strerror or str(exc)) from None
        return _read_file(copy, read, immutable=False)


def _read_file(path: Path, read: Callable[[sqlite3.Connection], T], immutable: bool) -> T:
    """mode=ro; immutable for a WAL database without its -wal (a read-only connection would
    create the -wal/-shm beside it)."""
    uri = f"file:{quote(str(path.resolve()))}?mode=ro" + ("&immutable=1" if immutable else "")
    try:
        con = sqlite3.connect(uri, uri=True, timeout=BUSY_SECONDS)
    except sqlite3.Error as exc:
        raise Unreadable(str(exc)) from None
    try:
        return read(con)
    except sqlite3.OperationalError as exc:
        text = str(exc)
        if "locked" in text or "busy" in text:
            raise Locked("another program holds it locked; try again in a moment") from None
        raise Unreadable(text) from None
    except sqlite3.DatabaseError as exc:
        raise Unreadable(f"it is damaged ({exc})") from None
    finally:
        con.close()
