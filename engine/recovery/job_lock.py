"""The workspace lock every Dreamdesk job takes (a Dream run, a restore, an edit, a compaction, a
lint fix, an archive delete). Importing it brings the watch (recovery/watch.py), whose guard every
write of ours passes through (home/workspace.guard_writes): a job that writes takes this lock, so
no write can come without the guard that keeps it from being taken for another writer's."""

from __future__ import annotations

from . import watch  # noqa: F401  (its guard on every write: registered on import)
from ..core.state import lock_path
from ..disk.files import FileLock, sweep_stale_temps
from ..home.workspace import Workspace

# How long a job waits for another Dreamdesk job on the workspace before it refuses (LockHeld).
# Read when each lock is made, so tests that hold the lock on purpose can shorten it.
JOB_LOCK_TIMEOUT = 2.0


class JobLock(FileLock):
    """The workspace lock every job takes. Once held, temp files a killed Dreamdesk left in the
    workspace are swept (no other Dreamdesk job can be mid-write with them then)."""

    def __init__(self, ws: Workspace):
        super().__init__(lock_path(ws.root, "job"), timeout=JOB_LOCK_TIMEOUT,
                         what="another Dreamdesk job on this workspace")
        self.ws = ws

    def acquire(self) -> "JobLock":
        super().acquire()
        try:
            sweep_stale_temps(self.ws.root)
        except Exception:
            self.release()
            raise
        return self


def job_lock(ws: Workspace) -> FileLock:
    """The workspace lock every job takes; a held lock is reported, never waited on forever."""
    return JobLock(ws)
