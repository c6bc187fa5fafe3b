"""Every prune: each entry that left USER.md or memory/MEMORY.md, known from the archive file, from
the snapshot commit that removed it (the assistant's own Dream writes no archive), or both.

A commit's removals become archive records with ids `c-<sha12>-<n>` (n counts that commit's
removals from 1), archived_at the commit's time, a reason from its kind, and the commit and its
writer. They fold with the archive's records by file and text (archive.fold), are searched and
filtered the same way, and are restored by the archive's rules (restore.restore_record).
"""

from __future__ import annotations

import re

from . import clock
from .archive import ARCHIVED_FILES, Archive, ArchivedEntry, ArchiveRecord, folded_archive, read_archive
from .commit_log import CommitHistory, gc_paused, load_history
from .problems import WorkspaceError
from .workspace import Workspace

COMMIT_ID = re.compile(r"^c-([0-9a-f]{12})-(\d+)$")
# a commit's kind -> the reason its removals are archived with; the rest were made outside
# Dreamdesk and only recorded by a snapshot (or an init, or an unknown writer): "outside"
_REASONS = {"dream": "dream", "restore": "restore", "edit": "edit", "revert": "revert"}
COMMIT_REASONS = ("revert",)   # beside archive.REASONS, which has "outside" too


def commit_records(history: CommitHistory) -> list[ArchiveRecord]:
    """Each entry a commit removed from USER.md or MEMORY.md, oldest commit first."""
    out = []
    for c in history.records:
        gone = [(path, e) for path, e in c.removed() if path in ARCHIVED_FILES]
        if not gone:
            continue
        when = clock.iso(clock.from_epoch(c.time)) or ""
        reason, source, writer = _REASONS.get(c.kind, "outside"), f"commit {c.sha[:8]}", c.writer
        for n, (path, e) in enumerate(gone, 1):
            out.append(ArchiveRecord(f"c-{c.sha[:12]}-{n}", when, path, e.text, reason, None, e.replaced_by, e.heading,
                                     source, n, c.sha, writer))
    return out


def all_prunes(ws: Workspace, arc: Archive | None = None,
               history: CommitHistory | None = None) -> tuple[Archive, list[ArchiveRecord], list[ArchivedEntry]]:
    """The archive, the commits' removals and both folded into one row per entry."""
    with gc_paused():
        arc = arc if arc is not None else read_archive(ws)
        extra = commit_records(history if history is not None else load_history(ws))
        return arc, extra, folded_archive(ws, arc, extra)


def find_prune(ws: Workspace, record_id: str) -> ArchiveRecord:
    """An archive id's record or a commit removal's (c-<sha12>-<n>)."""
    if COMMIT_ID.match(record_id or ""):
        rec = next((r for r in commit_records(load_history(ws)) if r.id == record_id), None)
    else:
        rec = read_archive(ws).get(record_id)
    if rec is None:
        raise WorkspaceError(f"no archive entry with id {record_id}")
    return rec


def restore_prune(ws: Workspace, record_id: str):
    """Put a pruned entry back under its heading, by the archive-restore rules (undoable)."""
    from .restore import restore_archive_entry, restore_record
    if not COMMIT_ID.match(record_id or ""):
        return restore_archive_entry(ws, record_id)
    rec = find_prune(ws, record_id)
    return restore_record(ws, rec, f"entry {record_id} (removed in commit {rec.commit[:8]} by "
                          f"{'Dreamdesk' if rec.writer == 'dreamdesk' else 'the assistant'})")
