"""Save an edit of a memory file (the Files tab's Save, Ctrl+S), through engine/ops/edit.py. A file
changed on disk since it was loaded comes back as the result's conflict, for the view to ask."""

from __future__ import annotations

from typing import Any

from dreamdesk.engine.home.workspace import Workspace
from dreamdesk.engine.ops import edit as edit_op

from ..context.worker import Job
from .run import Initiator, run_op


def save_edit(by: Initiator, ws: Workspace, path: str, text: str, expected_hash: str, **on: Any) -> Job:
    return run_op(by, f"save {path}", lambda ctx, who: edit_op.save(ws, path, text, expected_hash, who),
                  failure="Not saved", title=f"{path} was not saved", **on)


def apply_action(by: Initiator, ws: Workspace, path: str, action: str, args: dict, **on: Any) -> Job:
    """One of the structured edits the home's assistant defines (OpenClaw's USER.md directives)."""
    return run_op(by, f"{action} in {path}", lambda ctx, who: edit_op.apply_action(ws, path, action, args, who),
                  failure="Not changed", title=f"{path} was not changed", **on)
