"""A saved version an assistant keeps of a memory file (AssistantRuns.restore_points: OpenClaw's
MEMORY.md pre-images) against the file now: what restoring it would change, read-only."""

from __future__ import annotations

from ..disk.files import read_state
from ..home.workspace import Workspace
from ..text.diffs import diff_texts

RESTORE_LATER = ("Read-only: Dreamdesk does not write OpenClaw homes yet; restoring a saved version must "
                 "take OpenClaw's own lock and keep its pre-images")


def point_label(point: dict) -> str:
    """"2026-12-06T23:20:57Z · 3f9a1c2e": when it was saved and the start of its content hash."""
    return f"{point.get('created_at')} · {str(point.get('content_hash') or '')[:8]}"


def against_now(ws: Workspace, point: dict) -> str:
    """The unified diff from the saved version to the file now ("" when they are the same)."""
    path = str(point.get("file") or "MEMORY.md")
    target = ws.root / path
    now = read_state(target).text if target.exists() else None
    return diff_texts(str(point.get("content") or ""), now, path).unified("saved " + point_label(point), "now")
