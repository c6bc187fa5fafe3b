"""Whether OpenClaw 2026.9.6 counts a workspace's setup as completed, from its state database (state/openclaw.sqlite),
read without writing anything beside it (engine/disk/sqlite_read.py: `mode=ro&immutable=1`, or a
private copy while its -wal is there; plain `mode=ro` would create -wal/-shm in the home).

Today: whether the workspace's setup is completed (table `workspace_setup_state`, column
`setup_completed_at`, rows keyed by the workspace's absolute path: dist/workspace-state-store-*.mjs),
which decides whether BOOTSTRAP.md is still injected (dist/workspace-*.mjs)."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from ..disk.sqlite_read import Unreadable, read_sqlite
from .openclaw_bootstrap import BOOTSTRAP
from .openclaw_home import STATE_DB


def setup_row(state_dir: Path, workspace: Path) -> tuple[bool, str | None] | None:
    """(found, setup_completed_at) of the workspace's row; None when the database is absent,
    unreadable or has no such table. Both the path as given and its real path are looked for."""
    db = state_dir / STATE_DB
    if not db.is_file():
        return None
    paths = list(dict.fromkeys([os.path.abspath(workspace), os.path.realpath(workspace)]))

    def read(con: sqlite3.Connection) -> tuple[bool, str | None]:
        marks = ", ".join("?" * len(paths))
        row = con.execute(f"SELECT setup_completed_at FROM workspace_setup_state WHERE workspace_path IN ({marks})",
                          paths).fetchone()
        return (row is not None, row[0] if row else None)
    try:
        return read_sqlite(db, read)
    except Unreadable:
        return None


def setup_completed(state_dir: Path | None, workspace: Path) -> bool:
    """Whether OpenClaw counts the workspace's setup as completed (then BOOTSTRAP.md is no longer
    injected). With no row for it (no state database, or a home moved since: rows name the old
    path) a BOOTSTRAP.md still there means setup is pending, as OpenClaw seeds it on a new one."""
    row = setup_row(state_dir, workspace) if state_dir is not None else None
    if row is not None and row[0]:
        return isinstance(row[1], str) and bool(row[1].strip())
    return not (workspace / BOOTSTRAP).exists()
