"""Whether memory-core's workspace lock is still held, decided as OpenClaw decides whether it may
take the lock over (2026.9.6, `dreaming-dreams-file-*.mjs` isShortTermLockStealable with
`pid-alive-*.mjs` isPidDefinitelyDead / getProcessStartTime): a lock is held for its first 60 s
whatever became of its owner; after that it is left behind when the owner's pid (the number
before ":" in `owner`) does not read, is gone or a zombie, or has started at another time than the
lock recorded (`ownerStartTime`, Linux clock ticks since boot); a live owner with no recorded
start time still holds it, however old. Read only: nothing is signalled, `kill(pid, 0)` only asks.
"""

from __future__ import annotations

import os
import re

LOCK_STALE_MS = 60_000            # SHORT_TERM_LOCK_STALE_MS
_OWNER = re.compile(r"^\s*(\d+):")


def owner_pid(owner: str) -> int | None:
    m = _OWNER.match(owner)
    return int(m.group(1)) if m and int(m.group(1)) > 0 else None


def pid_gone(pid: int) -> bool:
    """isPidDefinitelyDead: no such process, or a zombie."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OSError):
        return False              # someone else's live process
    return _stat(pid)[0] == "Z"


def start_time(pid: int) -> int | None:
    """getProcessStartTime on Linux: /proc/<pid>/stat's starttime (None elsewhere)."""
    return _stat(pid)[1]


def _stat(pid: int) -> tuple[str | None, int | None]:
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as f:
            stat = f.read()
    except OSError:
        return None, None
    fields = stat[stat.rfind(")") + 1:].split()
    state = fields[0] if fields else None
    start = fields[19] if len(fields) > 19 else ""
    return state, int(start) if start.isdigit() else None


def left_behind(owner: str, acquired_at_ms: int, owner_start: int | None, now_ms: int) -> bool:
    """The lock may be taken over (OpenClaw would): it no longer keeps Dreamdesk out."""
    if now_ms - acquired_at_ms <= LOCK_STALE_MS:
        return False
    pid = owner_pid(owner)
    if pid is None or pid_gone(pid):
        return True
    if owner_start is None:
        return False
    now_start = start_time(pid)
    return now_start is not None and now_start != owner_start
