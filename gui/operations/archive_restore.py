"""Put removed entries back, through engine/ops/archive_restore.py: the Archive's Restore (and
Restore and pin), the Dream runs tab's Restore of an entry the assistant removed, the Dashboard's
restore of an entry removed since you last looked."""

from __future__ import annotations

from typing import Any, Callable

from dreamdesk.engine.home.workspace import Workspace
from dreamdesk.engine.ops import archive_restore as op
from dreamdesk.engine.ops.result import OpResult
from dreamdesk.engine.text.entries import Removal

from ..context.worker import Job
from .run import Initiator, dialog, run_op

UNDO_HINT = " (Undo restore, or Ctrl+Alt+Z, takes it back)"


def restore_entries(by: Initiator, ws: Workspace, ids: list[str], pin: list[str],
                    done: Callable[[OpResult[op.Restores]], None] | None = None, **on: Any) -> Job:
    """Several entries, then pin those `pin` names. An entry that failed is said in a dialog too
    (the job itself did not fail: the others were restored)."""

    def finished(result: OpResult[op.Restores]) -> None:
        errors = result.value.errors
        if errors:
            dialog(by)("Restore failed", ("Not restored:\n" if len(errors) > 1 else "Not restored: ")
                        + "\n".join(errors))
        if done is not None:
            done(result)

    return run_op(by, f"restore {len(ids)} archive entr{'y' if len(ids) == 1 else 'ies'}" if ids
                  else "pin archive entries",
                  lambda ctx, who: op.restore_entries(ws, ids, who, pin=pin, cancel=ctx.cancel),
                  failure="Restore failed" if ids else "Not pinned",
                  hint=lambda r: UNDO_HINT if r.value.undoable else "", done=finished, **on)


def restore_entry(by: Initiator, ws: Workspace, record_id: str, **on: Any) -> Job:
    return run_op(by, f"restore {record_id}", lambda ctx, who: op.restore_entry(ws, record_id, who),
                  failure=f"{record_id} was not restored", hint=lambda r: " Ctrl+Alt+Z undoes it." if r.value.files
                  else "", **on)


def restore_removed(by: Initiator, ws: Workspace, file: str, removal: Removal, **on: Any) -> Job:
    return run_op(by, "restore an entry removed since you last looked",
                  lambda ctx, who: op.restore_removed(ws, file, removal, who), failure="Not restored", **on)
