"""Helpers for tests (from test_stat_memo.py): settle."""

from __future__ import annotations

from pathlib import Path
import os
import time


def settle(root: Path) -> None:
    """The files under root written in the last 5 s dated 10 s back: older than the memo's racy
    window, as a workspace's files are between two refreshes of a view (the others are left
    alone: setting a time changes a file's ctime, which the memo reads as a change)."""
    now = time.time_ns()
    for p in Path(root).rglob("*"):
        if p.is_file() and now - p.stat().st_mtime_ns < 5_000_000_000:
            os.utime(p, ns=(now - 10_000_000_000,) * 2)
