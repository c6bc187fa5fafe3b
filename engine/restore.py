"""Restores: a whole snapshot, one file, one hunk, or one archived entry.

Every restore first snapshots the current state (so it can be undone), archives the entries it
removes from USER.md / MEMORY.md, writes atomically, and commits `dream: restore ...` on top (see snapshots.RESTORE_PREFIX).
memory/archive/ and memory/dreams/ are append-only: no restore rolls them back.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .archive import ArchiveRecord, plan_entry_restore, write_memory
from .cursors import read_cursor, write_cursor
from .diffs import diff_texts, revert_hunk
from .files import MISSING_HASH, FileLock, sweep_stale_temps, checked_write_bytes, content_hash as _sha256, resolve_inside
from .problems import WorkspaceError
from .snapshots import SnapshotError, SnapshotStore, is_memory_path, restore_subject
from .workspace import Workspace
from .state import lock_path


@dataclass
class RestoreResult:
    target: str                        # the snapshot restored from (or the archive id)
    undo: str | None                   # restore this snapshot to undo (the pre-restore state)
    commit: str | None                 # the `restore:` commit (None: nothing changed)
    files: list[str] = field(default_factory=list)             # files written
    archived: list[ArchiveRecord] = field(default_factory=list)
    cursor: tuple[int, int] | None = None                       # .dream_cursor (old, new) if moved
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"target": self.target, "undo": self.undo, "commit": self.commit, "files": self.files,
                "archived": [r.id for r in self.archived],
                "cursor": None if self.cursor is None else {"old": self.cursor[0], "new": self.cursor[1]},
                "warnings": self.warnings}


ARCHIVED_FILES = ("USER.md", "memory/MEMORY.md")   # what leaves them is archived first


class JobLock(FileLock):
    """The workspace lock every job takes. Once held, temp files a killed Dreamdesk left in the
    workspace are swept (no other Dreamdesk job can be mid-write with them then)."""

    def __init__(self, ws: Workspace):
        super().__init__(lock_path(ws.root, "job"), timeout=2.0, what="another Dreamdesk job on this workspace")
        self.root = ws.root

    def acquire(self) -> "JobLock":
        super().acquire()
        try:
            sweep_stale_temps(self.root)
        except Exception:
            self.release()
            raise
        return self


def job_lock(ws: Workspace) -> FileLock:
    """The workspace lock every job takes; a held lock is reported, never waited on forever."""
    return JobLock(ws)


def _plan(ws: Workspace, store: SnapshotStore, sha: str, path: str | None,
          hunk: int | None) -> dict[str, tuple[str, str | bytes]]:
    """For each file the restore writes: (the hash of the bytes it planned from, new content).
    Writing against that hash makes a change in between a conflict, never a silent loss.
    Content is text, or the snapshot's raw bytes when they are not UTF-8 (written back as they
    are, so a restore and its undo give back byte-identical files)."""
    if path is not None and not is_memory_path(path):
        raise WorkspaceError(f"{path}: only SOUL.md, USER.md, memory/MEMORY.md and skills/<name>/SKILL.md "
                             "can be restored")
    files = store.memory_bytes_at(sha)
    if path is None:
        wanted = files
    else:
        if path not in files:
            raise WorkspaceError(f"snapshot {sha[:8]} does not hold {path}")
        wanted = {path: files[path]}
    plan: dict[str, tuple[str, str | bytes]] = {}
    for rel, raw in wanted.items():
        state, _ = ws.read_file(rel)
        seen = state.hash if state.hash is not None else MISSING_HASH
        current = state.text if state.exists else None
        try:
            text: str | bytes = raw.decode("utf-8")
        except UnicodeDecodeError:
            if state.exists and state.hash == _sha256(raw):
                continue                     # already as in the snapshot: nothing to write
            if hunk is not None or rel in ARCHIVED_FILES:
                where = (f"--git-dir={store.git_dir} --work-tree={ws.root} " if store.separate else "")
                raise WorkspaceError(f"{rel} is not valid UTF-8 in snapshot {sha[:8]}: "
                                     + ("a hunk of it cannot be restored" if hunk is not None else
                                        "what the restore would remove cannot be archived")
                                     + f"; to take it back as it is, without the archive: "
                                       f"git {where}checkout {sha[:8]} -- {rel}")
            resolve_inside(ws.root, rel)
            plan[rel] = (seen, raw)
            continue
        if hunk is not None and state.exists and state.decode_error:
            raise WorkspaceError(f"{rel} is {state.decode_error}: a hunk restore would replace those bytes; "
                                 "restore the whole file instead")
        if rel in ARCHIVED_FILES and state.exists and state.decode_error and text != current:
            # write_memory would refuse it mid-restore, after other files were already written:
            # refuse the whole restore now, before anything is
            raise WorkspaceError(f"{rel} is {state.decode_error} now, so what the restore would remove from it "
                                 "cannot be archived; fix its encoding first (nothing was written)")
        if hunk is not None:
            d = diff_texts(text, current, rel)
            if not 1 <= hunk <= len(d.hunks):
                raise WorkspaceError(f"{rel} has {len(d.hunks)} hunk(s) against snapshot {sha[:8]}; "
                                     f"there is no hunk {hunk}")
            text = revert_hunk(current or "", d.hunks[hunk - 1])
        if text != current:
            resolve_inside(ws.root, rel)     # refuse a symlink out before anything is written
            plan[rel] = (seen, text)
    return plan


def restore_snapshot(ws: Workspace, rev: str, path: str | None = None, hunk: int | None = None,
                     move_cursor: bool = False, store: SnapshotStore | None = None) -> RestoreResult:
    """Restore a whole snapshot, one file of it (`path`), or one hunk (`path` + 1-based `hunk`)
    of the diff from that snapshot to the working file."""
    store = store or SnapshotStore(ws)
    if hunk is not None and path is None:
        raise WorkspaceError("a hunk restore names its file")
    with job_lock(ws):
        sha = store.resolve(rev)
        plan = _plan(ws, store, sha, path, hunk)
        target_cursor = None
        if move_cursor and path is None:
            text = store.file_at(sha, "memory/.dream_cursor")
            if text is not None and text.strip().isdigit():
                target_cursor = int(text.strip())
        old_cursor, _ = read_cursor(ws.dream_cursor_path, "memory/.dream_cursor")
        what = sha[:8] + (f" {path}" if path else "") + (f" hunk {hunk}" if hunk else "")
        pre = store.snapshot(f"snapshot: before restore {what}")
        result = RestoreResult(sha, pre or store.head(), None)
        for rel, (expected, text) in plan.items():
            try:
                if isinstance(text, bytes):
                    checked_write_bytes(resolve_inside(ws.root, rel), text, expected, display=rel)
                elif rel in ARCHIVED_FILES:
                    _, recs = write_memory(ws, rel, text, expected, "restore")
                    result.archived.extend(recs)
                else:
                    ws.write_file(rel, text, expected)
            except (WorkspaceError, OSError) as exc:
                if not result.files:
                    raise
                # stopped part way (someone wrote a file meanwhile): record what landed and say
                # how to take it back, never leave a half restore unexplained
                done = ", ".join(result.files)
                store.snapshot(restore_subject(f"{what}, stopped before {rel}"), with_summary=True)
                raise WorkspaceError(f"the restore stopped at {rel} ({exc}); {done} had already been restored. "
                                     f"Undo with: dreamdesk restore {ws.home or ws.root} {result.undo}") from None
            result.files.append(rel)
        if target_cursor is not None and target_cursor != old_cursor:
            write_cursor(ws.dream_cursor_path, target_cursor)
            result.cursor = (old_cursor, target_cursor)
        if result.files or result.cursor or result.archived:
            result.commit = store.snapshot(restore_subject(what), with_summary=True)
        return result


def restore_archive_entry(ws: Workspace, record_id: str, store: SnapshotStore | None = None) -> RestoreResult:
    """Put an archived entry back under its heading. Snapshots first (best effort: the entry
    only adds text, so a git failure is reported as a warning and the restore goes on)."""
    store = store or SnapshotStore(ws)
    with job_lock(ws):
        plan = plan_entry_restore(ws, record_id)
        rec = plan.record
        result = RestoreResult(record_id, None, None)
        if not plan.inserted:
            result.warnings.append(f"{rec.file} already holds this entry; nothing to restore")
            return result
        try:
            result.undo = store.snapshot(f"snapshot: before restore archive {record_id}") or store.head()
        except SnapshotError as exc:
            result.warnings.append(f"no snapshot before the restore: {exc}")
        resolve_inside(ws.root, rec.file)
        _, recs = write_memory(ws, rec.file, plan.new_text, plan.base_hash, "restore")
        result.archived.extend(recs)
        result.files.append(rec.file)
        try:
            result.commit = store.snapshot(restore_subject(f"archived entry {record_id} into {rec.file}"), with_summary=True)
        except SnapshotError as exc:
            result.warnings.append(f"the restore was not committed to snapshots: {exc}")
        return result
