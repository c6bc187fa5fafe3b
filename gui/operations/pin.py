"""Pin and unpin an entry (the Files tab, the Dashboard's pin boxes) and put a missing pinned entry
back (the pin alert's Restore), through engine/ops/pin.py."""

from __future__ import annotations

from typing import Any

from dreamdesk.engine.home.workspace import Workspace
from dreamdesk.engine.ops import pin as pin_op

from ..context.worker import Job
from .run import Initiator, run_op


def pin_entry(by: Initiator, ws: Workspace, path: str, line: int, **on: Any) -> Job:
    """The entry at `line` (from 1) of `path`."""
    return run_op(by, "pin entry", lambda ctx, who: pin_op.pin(ws, path, who, line=line),
                  failure="Not pinned", title="Not pinned", **on)


def unpin_entry(by: Initiator, ws: Workspace, path: str, text: str, **on: Any) -> Job:
    return run_op(by, "unpin entry", lambda ctx, who: pin_op.unpin(ws, path, who, text=text),
                  failure="Not unpinned", title="Not unpinned", **on)


def unpin_id(by: Initiator, ws: Workspace, pin_id: str, **on: Any) -> Job:
    return run_op(by, "unpin", lambda ctx, who: pin_op.unpin_id(ws, pin_id, who), failure="Not unpinned", **on)


def restore_pinned(by: Initiator, ws: Workspace, pin_id: str, **on: Any) -> Job:
    return run_op(by, "restore pinned entry", lambda ctx, who: pin_op.restore_pinned(ws, pin_id, who),
                  failure="Not restored", hint=lambda r: "; Ctrl+Alt+Z undoes it" if r.value.files else "", **on)
