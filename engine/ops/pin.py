"""Pin and unpin an entry (the Files tab, the Dashboard's pin boxes, `dreamdesk pin`/`unpin`), and
put a missing pinned entry back (the pin alert's Restore: the one way it comes back)."""

from __future__ import annotations

from ..home.workspace import Workspace
from ..recovery import pins
from ..recovery.pins import Pin
from ..recovery.restore import RestoreResult
from .result import OpResult, perform


def _shown(verb: str, p: Pin) -> str:
    return f"{verb} in {p.file}: " + p.text.replace("\n", "\n    ")


def pin(ws: Workspace, file: str, initiator: str, *, text: str | None = None,
        line: int | None = None) -> OpResult[tuple[Pin, bool]]:
    """The entry named by its text or a line of it (from 1); (the pin, whether it is new)."""
    return perform(ws, "pin", initiator, lambda: pins.pin(ws, file, text, line),
                   lambda got: _shown("Pinned" if got[1] else "Already pinned", got[0]))


def unpin(ws: Workspace, file: str, initiator: str, *, text: str | None = None,
          line: int | None = None) -> OpResult[Pin]:
    return perform(ws, "unpin", initiator, lambda: pins.unpin(ws, file, text, line),
                   lambda p: _shown("Unpinned", p))


def unpin_id(ws: Workspace, pin_id: str, initiator: str) -> OpResult[Pin]:
    """By the pin's id (the entry itself may be gone from its file)."""
    return perform(ws, "unpin", initiator, lambda: pins.unpin_id(ws, pin_id), lambda p: _shown("Unpinned", p))


def restore_pinned(ws: Workspace, pin_id: str, initiator: str) -> OpResult[RestoreResult]:
    return perform(ws, "restore pinned entry", initiator, lambda: pins.restore_pin(ws, pin_id),
                   lambda r: f"Restored the pinned entry into {', '.join(r.files)}" if r.files
                   else "; ".join(r.warnings) or "Nothing to restore")
