"""A saved version an assistant keeps of a memory file (AssistantRuns.restore_points: OpenClaw's
MEMORY.md pre-images) against the file now (what restoring it would change, read-only), and
restoring it by the restore rules (engine/recovery/restore.restore_version)."""

from __future__ import annotations

from ..assistants import assistant_of
from ..core.problems import WorkspaceError
from ..disk.files import read_state
from ..home.workspace import Workspace
from ..recovery.restore import RestoreResult, restore_version
from ..text.diffs import diff_texts

RESTORE_NOTE = ("Restoring one puts MEMORY.md back as it was saved (a snapshot first, what leaves it archived, "
                "undoable); the saved versions themselves are OpenClaw's and stay as they are")


def point_label(point: dict) -> str:
    """"2026-12-06T23:20:57Z · 3f9a1c2e": when it was saved and the start of its content hash."""
    return f"{point.get('created_at')} · {str(point.get('content_hash') or '')[:8]}"


def against_now(ws: Workspace, point: dict) -> str:
    """The unified diff from the saved version to the file now ("" when they are the same)."""
    path = str(point.get("file") or "MEMORY.md")
    target = ws.root / path
    now = read_state(target).text if target.exists() else None
    return diff_texts(str(point.get("content") or ""), now, path).unified("saved " + point_label(point), "now")


def find_point(ws: Workspace, key: str) -> dict:
    """The restore point `key` (or the one whose key starts with it, when only one does)."""
    runs = assistant_of(ws).assistant_runs(ws)
    points = runs.restore_points if runs is not None else []
    hits = [p for p in points if p.get("key") == key] or [p for p in points if str(p.get("key", "")).startswith(key)]
    if len(hits) != 1:
        named = ", ".join(str(p.get("key")) for p in points) or "none"
        raise WorkspaceError(f"no saved version {key!r} here" if not hits else
                             f"{key!r} names {len(hits)} saved versions; name one whole (they are: {named})")
    return hits[0]


def restore_point(ws: Workspace, key: str) -> RestoreResult:
    """Put the file back as the assistant saved it (refused when its recorded hash does not match
    its content: a damaged copy is not written over the file)."""
    point = find_point(ws, key)
    if not point.get("hash_ok", True):
        raise WorkspaceError(f"the saved version {point_label(point)} does not match the hash OpenClaw recorded "
                             "for it (a damaged copy): it is not restored")
    return restore_version(ws, str(point.get("file") or "MEMORY.md"), str(point.get("content") or ""),
                           f"the version saved {point_label(point)}", str(point.get("key")))
