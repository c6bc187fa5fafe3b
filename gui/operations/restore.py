"""Restore a snapshot, one file of it or one hunk (the Snapshots tab), through engine/ops/restore.py:
a hunk is named with the id of the change the person saw, so the engine refuses it once the file
moved on (the stale-hunk rule, the CLI's too)."""

from __future__ import annotations

from typing import Any

from dreamdesk.engine.home.workspace import Workspace
from dreamdesk.engine.ops import restore as restore_op

from ..context.worker import Job
from .run import Initiator, run_op


def restore_snapshot(by: Initiator, ws: Workspace, sha: str, *, path: str | None = None, hunk: int | None = None,
                     hunk_id: str | None = None, move_cursor: bool = False, **on: Any) -> Job:
    what = restore_op.label(sha, path, hunk)
    return run_op(by, f"restore {what}",
                  lambda ctx, who: restore_op.restore(ws, sha, who, path=path, hunk=hunk, hunk_id=hunk_id,
                                                      move_cursor=move_cursor),
                  failure="Restore failed", title="Restore failed", **on)


def restore_saved(by: Initiator, ws: Workspace, key: str, **on: Any) -> Job:
    """A version the assistant saved (OpenClaw's MEMORY.md pre-image), whole."""
    return run_op(by, "restore a saved version", lambda ctx, who: restore_op.restore_saved(ws, key, who),
                  failure="Restore failed", title="Restore failed", **on)
