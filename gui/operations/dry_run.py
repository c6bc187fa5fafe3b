"""Apply what a dry run previewed (the dry-run dialog's Apply), through engine/ops/dry_run.py."""

from __future__ import annotations

from typing import Any

from dreamdesk.engine.home.workspace import Workspace
from dreamdesk.engine.ops.dry_run import apply

from ..context.worker import Job
from .run import Initiator, run_op


def apply_dry_run(by: Initiator, ws: Workspace, preview: dict, **on: Any) -> Job:
    return run_op(by, "apply dry run", lambda ctx, who: apply(ws, preview, who), failure="Not applied", **on)
