"""Apply what a dry run previewed (the dry-run dialog's Apply): exactly those writes, as a recorded
manual run, or nothing when the preview did not complete or a file changed since."""

from __future__ import annotations

from ..dream.run import apply_preview
from ..dream.run_state import load_state
from ..home.workspace import Workspace
from .result import OpResult, perform


def apply(ws: Workspace, preview: dict, initiator: str) -> OpResult[list[str]]:
    """The files written; the message is the outcome of the run it recorded (a held cursor, a
    refused write are said as the dry run said them)."""

    def said(_files: list[str]) -> str:
        return str((load_state(ws).get("last_run") or {}).get("outcome") or "Applied the dry run.")

    return perform(ws, "apply dry run", initiator, lambda: apply_preview(ws, preview), said)
