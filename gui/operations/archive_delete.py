"""Erase archived entries for good (the Archive's Delete), through engine/ops/archive_delete.py."""

from __future__ import annotations

from typing import Any

from dreamdesk.engine.home.workspace import Workspace
from dreamdesk.engine.ops.archive_delete import delete_entries as delete_op

from ..context.worker import Job
from .run import Initiator, run_op


def delete_entries(by: Initiator, ws: Workspace, ids: list[str], **on: Any) -> Job:
    return run_op(by, "delete archive entries", lambda ctx, who: delete_op(ws, ids, who), failure="Delete failed",
                  **on)
