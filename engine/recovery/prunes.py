"""Every prune: each entry that left USER.md or memory/MEMORY.md, known from the archive file, from
the snapshot commit that removed it (the assistant's own Dream writes no archive), or both.

A commit's removals become archive records with ids `c-<sha12>-<n>` (n counts that commit's
removals from 1), archived_at the commit's time, a reason from its kind, and the commit and its
writer. They fold with the archive's records by file and text (archive.fold), are searched and
filtered the same way, and are restored by the archive's rules (restore.restore_record).
"""

from __future__ import annotations

import re

from ..core import clock
from ..assistants import assistant_of
from ..core.rules import ARCHIVED_FILES
from ..assistants.base import AssistantPrunes
from ..core.problems import Problem
from .archive import Archive, ArchivedEntry, ArchiveRecord, files_now, fold, folded_archive, read_archive
from ..versions.commit_log import CommitHistory, load_history
from ..core.problems import WorkspaceError
from ..versions.snapshots import SnapshotStore
from ..disk.stat_memo import LastUsed, gc_paused, path_signature
from ..home.workspace import Workspace

COMMIT_ID = re.compile(r"^c-([0-9a-f]{12})-(\d+)$")
# a commit's kind -> the reason its removals are archived with; the rest were made outside
# Dreamdesk and only recorded by a snapshot (or an init, or an unknown writer): "outside"
_REASONS = {"dream": "dream", "restore": "restore", "edit": "edit", "revert": "revert"}


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
                                     source, n, c.sha, writer, c.subject))
    return out


def all_prunes(ws: Workspace, arc: Archive | None = None,
               history: CommitHistory | None = None) -> tuple[Archive, list[ArchiveRecord], list[ArchivedEntry]]:
    """The archive, the commits' removals and both folded into one row per entry. While the
    archive files, HEAD, the memory files and the restore log are as they were at the last call
    for this workspace, that call's three are returned again, `arc` given or not (shared: read
    them, never change them; the rows hold the records of the archive returned with them)."""
    own = assistant_of(ws).assistant_prunes(ws)
    if own is not None:
        return own_prunes(ws, own)
    with gc_paused():
        arc = arc if arc is not None else read_archive(ws)
        store = SnapshotStore(ws) if history is None else None
        head = store.head() if store is not None else history.head
        key = _fold_key(ws, arc, head)
        known = _FOLDED.get(str(ws.root))
        if key is not None and known is not None and known[0] == key:
            return known[1]          # its archive too: the rows hold that archive's records
        if history is None:
            history = load_history(ws, store, head) if head else CommitHistory()
        extra = commit_records(history)
        out = arc, extra, mark_placeholders(ws, folded_archive(ws, arc, extra))
        if key is not None:
            _FOLDED.put(str(ws.root), (key, out))
        return out


def own_prunes(ws: Workspace, own: AssistantPrunes) -> tuple[Archive, list[ArchiveRecord], list[ArchivedEntry]]:
    """What the assistant's own records say left its memory files, beside what Dreamdesk's own
    archive holds there (kept apart from the workspace: what a person's edit removed), folded
    as the archive's rows are."""
    recs = [ArchiveRecord(r["id"], r["archived_at"], r["file"], r["text"], r["reason"], r.get("run"),
                          r.get("replaced_by"), r.get("heading"), r.get("source") or "", 0, None, r.get("writer"),
                          r.get("subject"), r.get("origin") or "assistant", own.restore_refused or None)
            for r in own.records]
    arc = read_archive(ws)
    arc = Archive(arc.records, arc.problems + [Problem("the assistant's records", p) for p in own.problems], arc.key)
    every = sorted(arc.records + recs, key=lambda r: r.archived_at)
    return arc, recs, mark_placeholders(ws, fold(every, files_now(ws, sorted({r.file for r in every}))))


def mark_placeholders(ws: Workspace, entries: list[ArchivedEntry]) -> list[ArchivedEntry]:
    """The entries, those that are the assistant's own untouched template lines marked (its
    onboarding text that left the file, not a fact anybody pruned: engine/assistants)."""
    who = assistant_of(ws)
    for e in entries:
        e.placeholder = who.is_placeholder(e.latest.text, e.latest.file)
    return entries


_FOLDED: LastUsed[tuple] = LastUsed()      # workspace root -> (what it was made from, (arc, extra, folded))


def _fold_key(ws: Workspace, arc: Archive, head: str | None) -> tuple | None:
    """What every prune is made from: the archive files, HEAD, the memory files (is an entry back?)
    and the restore log (since when?); None when one of them is too new to vouch for."""
    from .restore_log import log_path
    files = [path_signature(ws.root / rel) for rel in ARCHIVED_FILES]
    key = (arc.key, head or "", *files, path_signature(log_path(ws.root)))
    return None if None in key else key


def find_prune(ws: Workspace, record_id: str) -> ArchiveRecord:
    """An archive id's record or a commit removal's (c-<sha12>-<n>)."""
    rec = find_prunes(ws, [record_id]).get(record_id)
    if rec is None:
        raise WorkspaceError(f"no archive entry with id {record_id}")
    return rec


def find_prunes(ws: Workspace, ids: list[str]) -> dict[str, ArchiveRecord]:
    """The records of those ids that exist: the archive read once, the commits only when a c- id
    is asked for (a selection of many rows is one read of each); on a home whose assistant keeps
    its own records of what left (OpenClaw), those."""
    wanted = set(ids)
    own = assistant_of(ws).assistant_prunes(ws)
    if own is not None:
        return {r.id: r for r in own_prunes(ws, own)[1] if r.id in wanted}
    out = {r.id: r for r in read_archive(ws).records if r.id in wanted}
    if any(COMMIT_ID.match(i or "") for i in wanted - out.keys()):
        out.update((r.id, r) for r in commit_records(load_history(ws)) if r.id in wanted)
    return out


def restore_prune(ws: Workspace, record_id: str):
    """Put a pruned entry back under its heading, by the archive-restore rules (undoable)."""
    from .restore import restore_archive_entry, restore_record
    if (theirs := own_record(ws, record_id)) is not None:       # (the assistant's records read once)
        if theirs.restore_refused:
            raise WorkspaceError(refused_words(record_id, theirs))
        return restore_record(ws, theirs, f"entry {record_id} ({theirs.subject or 'removed by the assistant'})")
    if not COMMIT_ID.match(record_id or ""):
        return restore_archive_entry(ws, record_id)
    rec = find_prune(ws, record_id)
    return restore_record(ws, rec, f"entry {record_id} (removed in commit {rec.commit[:8]} by {who(rec.writer)})")


def own_record(ws: Workspace, record_id: str) -> ArchiveRecord | None:
    """The entry the assistant's own records tell of under that id (None on the contract's homes,
    where nothing more is read)."""
    own = assistant_of(ws).assistant_prunes(ws)
    return next((r for r in own_prunes(ws, own)[1] if r.id == record_id), None) if own is not None else None


def refused_words(record_id: str, rec: ArchiveRecord) -> str:
    """Why an entry the assistant's own records tell of is not put back from here."""
    return f"{record_id} is not restored: {rec.restore_refused}"


def delete_refusal(record_id: str, rec: ArchiveRecord | None = None) -> str | None:
    """Why an entry known only from a commit, or from the assistant's own records, is not deleted
    (None: an archive id, deletable)."""
    if rec is not None and rec.known_from == "assistant":
        return (f"{record_id} is read from the assistant's own records, which Dreamdesk never writes: "
                "there is no copy of Dreamdesk's to delete")
    m = COMMIT_ID.match(record_id or "")
    if m is None:
        return None
    return (f"{record_id} is known from commit {m.group(1)[:8]}; the repository's history is not rewritten, "
            "so there is nothing to delete")


# -- the same words in the CLI and the GUI ---------------------------------------------------------
_WRITERS = {"assistant": "assistant", "dreamdesk": "Dreamdesk"}


def who(writer: str | None) -> str:
    """A commit's writer in a sentence: "the assistant" or "Dreamdesk"."""
    return "Dreamdesk" if writer == "dreamdesk" else "the assistant"


def commit_label(rec: ArchiveRecord) -> str:
    """"commit 1a2b3c4d · assistant" / "commit 1a2b3c4d · Dreamdesk"."""
    return f"commit {(rec.commit or '')[:8]} · {_WRITERS.get(rec.writer or '', rec.writer or '?')}"


def from_label(e: ArchivedEntry) -> str:
    """Where an entry is known from: "archive", "commit 1a2b3c4d · assistant", "archive + commit ..."
    (the latest commit that removed it), "the assistant · pre-image …" (its own records)."""
    if e.latest.known_from == "assistant":
        return f"the assistant · {e.latest.source}" if e.latest.source else "the assistant"
    if not e.commits:
        return "archive"
    return ("archive + " if e.known_from != "commit" else "") + commit_label(e.commits[-1])
