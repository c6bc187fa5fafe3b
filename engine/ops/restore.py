"""Restore a snapshot, one file of it or one hunk, and undo a restore (the Snapshots tab, Edit →
Undo Last Restore, `dreamdesk restore`). The stale-hunk rule is the engine's: a hunk named with the
id of the change the person saw (`hunk_id`) is refused, writing nothing, once the file moved on and
hunk N is another change."""

from __future__ import annotations

from ..core.problems import WorkspaceError
from ..home.workspace import Workspace
from ..recovery.restore import RestoreResult, recent_restores, restore_snapshot, undo_restore
from .result import OpResult, perform, plural


def restore(ws: Workspace, rev: str, initiator: str, *, path: str | None = None, hunk: int | None = None,
            hunk_id: str | None = None, move_cursor: bool = False) -> OpResult[RestoreResult]:
    """The whole snapshot `rev`, or its `path`, or hunk `hunk` (from 1) of `path`'s diff to now.
    `move_cursor`: with a whole restore, .dream_cursor goes back to the snapshot's too."""
    if hunk_id is not None and hunk is None:
        raise WorkspaceError("a hunk id names the change of one hunk: name the hunk (FILE:N) too")

    def work() -> RestoreResult:
        return restore_snapshot(ws, rev, path, hunk, move_cursor=move_cursor, hunk_id=hunk_id)

    return perform(ws, "restore", initiator, work, lambda r: restored_note(r, label(r.target, path, hunk)))


def restore_saved(ws: Workspace, key: str, initiator: str) -> OpResult[RestoreResult]:
    """A version the assistant saved of a memory file (OpenClaw's MEMORY.md pre-image), whole."""
    from ..dream.restore_points import restore_point
    return perform(ws, "restore a saved version", initiator, lambda: restore_point(ws, key),
                   lambda r: restored_note(r, f"the version saved {key}"))


def label(sha: str, path: str | None, hunk: int | None) -> str:
    """How a restore is named to people: "snapshot 1a2b3c4d", "USER.md hunk 2 from 1a2b3c4d"."""
    if path is None:
        return f"snapshot {sha[:8]}"
    return f"{path} hunk {hunk} from {sha[:8]}" if hunk else f"{path} from {sha[:8]}"


def restored_note(r: RestoreResult, what: str) -> str:
    if r.files or r.cursor:
        note = f"Restored {what}: {', '.join(r.files) or 'no files'}{_effects(r)}"
    else:
        note = f"Nothing to restore for {what}: the files already matched"
    return note + "".join(f" ({w})" for w in r.warnings)


def _effects(r: RestoreResult) -> str:
    out = f"; .dream_cursor {r.cursor[0]} → {r.cursor[1]}" if r.cursor else ""
    if r.archived:
        out += f"; {plural(len(r.archived), 'removed entry', 'removed entries')} archived"
    return out


def undo(ws: Workspace, initiator: str, entry_id: str | None = None, *, accept: dict[str, str] | None = None,
         force: bool = False) -> OpResult[RestoreResult]:
    """Undo the restore `entry_id` (None: the last one). A file changed since it is written over
    only with `force`, or when `accept` holds the hash the person saw it with (UndoChanged, in
    words, otherwise: nothing written)."""
    last = entry_id is None or [e.id for e in recent_restores(ws)[:1]] == [entry_id]

    def work() -> RestoreResult:
        return undo_restore(ws, entry_id, accept=accept, force=force)

    return perform(ws, "undo restore", initiator, work, lambda r: undone_note(r, last))


def undo_together(ws: Workspace, ids: list[str], initiator: str,
                  accept: dict[str, str] | None = None) -> OpResult[RestoreResult]:
    """Undo the restores one action made (ids oldest first: an Archive restore of several entries),
    newest first; `accept` (what the person was shown) is the newest's. One result for them all:
    every file any of them wrote back, every warning."""

    def work() -> RestoreResult:
        results = [undo_restore(ws, rid, accept=accept if rid == ids[-1] else None) for rid in reversed(ids)]
        out = results[0]
        for r in results[1:]:
            out.files = sorted(set(out.files) | set(r.files))
            out.warnings = out.warnings + r.warnings
            out.cursor = out.cursor or r.cursor
        return out

    said = "the last restore" if len(ids) == 1 else f"the {len(ids)} restores made together"
    return perform(ws, "undo restores", initiator, work, lambda r: _undone(r, said))


def undone_note(r: RestoreResult, last: bool = True) -> str:
    return _undone(r, "the last restore" if last else f"restore {r.target}")


def _undone(r: RestoreResult, said: str) -> str:
    note = f"Undid {said}: " + (", ".join(r.files) or "no files")
    if r.cursor:
        note += f"; .dream_cursor {r.cursor[0]} → {r.cursor[1]}"
    return note + "".join(f" ({w})" for w in r.warnings)
