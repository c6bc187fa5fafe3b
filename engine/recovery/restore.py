"""Restores: a whole snapshot, one file, one hunk, or one archived entry.

Every restore first snapshots the current state (so it can be undone), archives the entries it
removes from USER.md / MEMORY.md, writes atomically, and commits `dream: restore ...` on top (see snapshots.RESTORE_PREFIX).
memory/archive/ and memory/dreams/ are append-only: no restore rolls them back.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import restore_log
from .job_lock import job_lock
from .archive import ArchiveRecord, archive_removed, plan_record_restore, read_archive, write_memory
from ..home.cursors import read_cursor, write_cursor
from ..text.diffs import diff_texts, revert_hunk
from ..text.entries import removed_entries
from ..disk.files import (MISSING_HASH, checked_write_bytes, remove, content_hash as _sha256,
                    current_hash, read_bytes, resolve_inside)
from ..core.problems import ConflictError, WorkspaceError
from .restore_log import FileWrite, RestoreEntry
from ..core.rules import cursor_value
from ..versions.snapshots import SnapshotError, SnapshotStore, restore_subject
from ..home.workspace import Workspace
from ..text.textform import AS_GIVEN, KEEP_ENDINGS, fit


@dataclass
class RestoreResult:
    target: str                        # the snapshot restored from (or the archive id)
    undo: str | None                   # restore this snapshot to undo (the pre-restore state)
    commit: str | None                 # the `restore:` commit (None: nothing changed)
    files: list[str] = field(default_factory=list)             # files written
    archived: list[ArchiveRecord] = field(default_factory=list)
    cursor: tuple[int, int] | None = None                       # .dream_cursor (old, new) if moved
    warnings: list[str] = field(default_factory=list)
    id: str | None = None              # its line in the restore log (undo it by this id)
    writes: list[FileWrite] = field(default_factory=list)      # each file's hash before and after

    def to_json(self) -> dict:
        return {"id": self.id, "target": self.target, "undo": self.undo, "commit": self.commit, "files": self.files,
                "archived": [r.id for r in self.archived],
                "cursor": None if self.cursor is None else {"old": self.cursor[0], "new": self.cursor[1]},
                "warnings": self.warnings}




def _check_hunk(store: SnapshotStore, sha: str, path: str, n: int, hunk_id: str) -> None:
    """Hunks are numbered afresh from the files now: hunk n must still be the change shown."""
    now = store.diff(sha, paths=[path])
    hunks = now[0].hunks if now else []
    if len(hunks) < n or hunks[n - 1].id != hunk_id:
        raise StaleHunk(f"{path} changed since this diff was shown, so hunk {n} is no longer the one you saw "
                        f"(id {hunk_id}). Nothing was written: look at the diff again and try again.")


def _plan(ws: Workspace, store: SnapshotStore, sha: str, path: str | None,
          hunk: int | None) -> dict[str, tuple[str, str | bytes]]:
    """For each file the restore writes: (the hash of the bytes it planned from, new content).
    Writing against that hash makes a change in between a conflict, never a silent loss.
    Content is text, or the snapshot's raw bytes when they are not UTF-8 (written back as they
    are, so a restore and its undo give back byte-identical files)."""
    if path is not None and not ws.layout.writable(path):
        raise WorkspaceError(f"{path}: only the memory files Dreamdesk writes can be restored (here: "
                             f"{', '.join(p for p, _ in ws.layout.files if ws.layout.writable(p))} and the rest "
                             "of the memory files listed)")
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
            if hunk is not None or rel in ws.layout.archived:
                where = (f"--git-dir={store.git_dir} --work-tree={ws.root} " if store.separate else "")
                raise WorkspaceError(f"{rel} is not valid UTF-8 in snapshot {sha[:8]}: "
                                     + ("a hunk of it cannot be restored" if hunk is not None else
                                        "what the restore would remove cannot be archived")
                                     + f"; to take it back as it is, without the archive: "
                                       f"git {where}checkout {sha[:8]} -- {rel}")
            ws.check_writable(rel)           # (the home's own reason first: OpenClaw's regular files)
            resolve_inside(ws.root, rel)
            plan[rel] = (seen, raw)
            continue
        if hunk is not None and state.exists and state.decode_error:
            raise WorkspaceError(f"{rel} is {state.decode_error}: a hunk restore would replace those bytes; "
                                 "restore the whole file instead")
        if rel in ws.layout.archived and state.exists and state.decode_error and text != current:
            # write_memory would refuse it mid-restore, after other files were already written:
            # refuse the whole restore now, before anything is
            raise WorkspaceError(f"{rel} is {state.decode_error} now, so what the restore would remove from it "
                                 "cannot be archived; fix its encoding first (nothing was written)")
        if hunk is not None:
            d = diff_texts(text, current, rel)
            if not 1 <= hunk <= len(d.hunks):
                raise WorkspaceError(f"{rel} has {len(d.hunks)} hunk(s) against snapshot {sha[:8]}; "
                                     f"there is no hunk {hunk}")
            # the lines it brings back take the file's line endings and BOM (the rest keep
            # their bytes); a whole file goes back exactly as the snapshot holds it
            text = fit(current, revert_hunk(current or "", d.hunks[hunk - 1]), KEEP_ENDINGS)
        if text != current:
            ws.check_writable(rel)           # refused in words before anything is written: the home's
            resolve_inside(ws.root, rel)     # reason first, then a symlink out
            plan[rel] = (seen, text)
    return plan


class StaleHunk(WorkspaceError):
    """The hunk a person asked for is no longer the change they saw: nothing was written."""


def restore_snapshot(ws: Workspace, rev: str, path: str | None = None, hunk: int | None = None,
                     move_cursor: bool = False, store: SnapshotStore | None = None,
                     hunk_id: str | None = None) -> RestoreResult:
    """Restore a whole snapshot, one file of it (`path`), or one hunk (`path` + 1-based `hunk`)
    of the diff from that snapshot to the working file. `hunk_id` (Hunk.id of the hunk shown):
    refuse, writing nothing, when hunk `hunk` is now another change (the file moved on)."""
    store = store or SnapshotStore(ws)
    if hunk is not None and path is None:
        raise WorkspaceError("a hunk restore names its file")
    with job_lock(ws):
        sha = store.resolve(rev)
        if hunk is not None and hunk_id is not None:
            _check_hunk(store, sha, path, hunk, hunk_id)
        plan = _plan(ws, store, sha, path, hunk)
        target_cursor = None
        if move_cursor and path is None:
            text = store.file_at(sha, "memory/.dream_cursor")
            target_cursor = cursor_value(text) if text is not None else None
        old_cursor, _ = read_cursor(ws.dream_cursor_path, "memory/.dream_cursor")
        what = sha[:8] + (f" {path}" if path else "") + (f" hunk {hunk}" if hunk else "")
        pre = store.snapshot(f"snapshot: before restore {what}")
        result = RestoreResult(sha, pre or store.head(), None, warnings=list(store.notes))
        kind = "hunk" if hunk else "file" if path else "snapshot"
        label = (f"hunk {hunk} of {path} from {sha[:8]}" if hunk else f"{path} from {sha[:8]}" if path
                 else f"snapshot {sha[:8]}")          # how the restore list names it
        returned = _Returned(ws)
        for rel, (expected, text) in plan.items():
            try:
                if isinstance(text, bytes):
                    after = checked_write_bytes(resolve_inside(ws.root, rel), text, expected, display=rel)
                elif rel in ws.layout.archived:
                    old_text = ws.read_file(rel)[0].text
                    after, recs = write_memory(ws, rel, text, expected, "restore", form=AS_GIVEN)
                    result.archived.extend(recs)
                    returned.note(rel, old_text, text)
                else:
                    after = ws.write_file(rel, text, expected)
            except (WorkspaceError, OSError) as exc:
                if not result.files:
                    raise
                # stopped part way (someone wrote a file meanwhile): record what landed and say
                # how to take it back, never leave a half restore unexplained
                done = ", ".join(result.files)
                result.commit = store.snapshot(restore_subject(f"{what}, stopped before {rel}"), with_summary=True)
                log_restore(ws, result, f"{label} (stopped before {rel})", kind, returned.ids)
                raise WorkspaceError(f"the restore stopped at {rel} ({exc}); {done} had already been restored. "
                                     f"Undo with: dreamdesk restore {ws.home or ws.root} --undo {result.id}") from None
            result.files.append(rel)
            result.writes.append(FileWrite(rel, expected, after))
        if target_cursor is not None and target_cursor != old_cursor:
            write_cursor(ws.dream_cursor_path, target_cursor)
            result.cursor = (old_cursor, target_cursor)
        if result.files or result.cursor or result.archived:
            result.commit = store.snapshot(restore_subject(what), with_summary=True)
            log_restore(ws, result, label, kind, returned.ids)
        return result


class _Returned:
    """Archive ids of the entries a restore put back into USER.md / MEMORY.md (read lazily: most
    restores put back nothing that was archived)."""

    def __init__(self, ws: Workspace):
        self.ws = ws
        self.ids: list[str] = []
        self._records = None

    def note(self, rel: str, old_text: str, new_text: str) -> None:
        back = {r.entry.text for r in removed_entries(new_text, old_text)}
        if not back:
            return
        if self._records is None:
            self._records = read_archive(self.ws).records
        self.ids += [r.id for r in self._records if r.file == rel and r.text in back and r.id not in self.ids]


def log_restore(ws: Workspace, result: RestoreResult, what: str, kind: str, returned: list[str],
         undoes: str | None = None) -> None:
    entry = RestoreEntry(restore_log.new_id(), _now(), what, kind, result.undo, result.commit,
                         list(result.writes), result.cursor, [r.id for r in result.archived], returned, undoes)
    restore_log.append(ws.root, entry)
    result.id = entry.id


def _now() -> str:
    from datetime import datetime
    return datetime.now().astimezone().isoformat(timespec="seconds")


def restore_archive_entry(ws: Workspace, record_id: str, store: SnapshotStore | None = None) -> RestoreResult:
    """Put an archived entry back under its heading (see restore_record)."""
    with job_lock(ws):
        rec = read_archive(ws).get(record_id)
        if rec is None:
            raise WorkspaceError(f"no archive entry with id {record_id}")
        return _restore_record(ws, rec, store or SnapshotStore(ws), f"archived entry {record_id}")


def restore_record(ws: Workspace, rec: ArchiveRecord, what: str, store: SnapshotStore | None = None,
                   any_memory_file: bool = False) -> RestoreResult:
    """Put one entry (file, text, heading) back under its heading, by the archive-restore rules:
    snapshot first (a failing snapshot writes nothing), the file's own line endings, a commit
    and a restore-log line (so it can be undone). `rec` need not be in the archive file: an
    entry known from a commit or a pin is restored the same way; `what` names it for people.
    `any_memory_file`: a pin may name SOUL.md or a skill too (the archive holds only USER.md and
    MEMORY.md entries)."""
    with job_lock(ws):
        return _restore_record(ws, rec, store or SnapshotStore(ws), what, any_memory_file)


def _restore_record(ws: Workspace, rec: ArchiveRecord, store: SnapshotStore, what: str,
                    any_memory_file: bool = False) -> RestoreResult:
    plan = plan_record_restore(ws, rec, any_memory_file)
    result = RestoreResult(rec.id, None, None)
    if not plan.inserted:
        result.warnings.append(f"{rec.file} already holds this entry; nothing to restore")
        return result
    ws.check_writable(rec.file)          # a refusal takes no snapshot either
    _snapshot_first(store, result, what)
    resolve_inside(ws.root, rec.file)
    after, recs = write_memory(ws, rec.file, plan.new_text, plan.base_hash, "restore", form=AS_GIVEN)
    result.archived.extend(recs)
    result.files.append(rec.file)
    result.writes.append(FileWrite(rec.file, plan.base_hash or MISSING_HASH, after))
    what = f"{what} into {rec.file}"
    try:
        result.commit = store.snapshot(restore_subject(what), with_summary=True)
    except SnapshotError as exc:
        result.warnings.append(f"the restore was not committed to snapshots: {exc}")
    same = [r.id for r in read_archive(ws).records if r.file == rec.file and r.text == rec.text]
    log_restore(ws, result, what, "archive", same or [rec.id])
    return result


def _snapshot_first(store: SnapshotStore, result: RestoreResult, what: str) -> None:
    """The snapshot every restore takes before it writes (its undo target); without it the restore
    could not be undone, so nothing is written."""
    try:
        result.undo = store.snapshot(f"snapshot: before restore {what}") or store.head()
    except SnapshotError as exc:
        raise WorkspaceError(f"{what} was not restored: the snapshot taken before every restore failed "
                             f"({exc})") from None
    result.warnings += store.notes


def restore_version(ws: Workspace, rel: str, text: str, what: str, target: str,
                    store: SnapshotStore | None = None) -> RestoreResult:
    """Put `rel` back as a version known from elsewhere holds it (`text`: an assistant's own
    saved copy, OpenClaw's MEMORY.md pre-image), by the restore rules: refused in words before
    anything is done when the file may not be written, a snapshot first (a failing one writes
    nothing), what leaves the file archived, a commit and a restore-log line (undoable exactly).
    `target` names the version in the result; `what` names it for people."""
    store = store or SnapshotStore(ws)
    with job_lock(ws):
        if not ws.layout.writable(rel):
            raise WorkspaceError(f"{rel}: not a memory file Dreamdesk restores")
        ws.check_writable(rel)
        state, _ = ws.read_file(rel)
        result = RestoreResult(target, None, None)
        if state.exists and state.text == text:
            result.warnings.append(f"{rel} is already as {what} holds it; nothing to restore")
            return result
        _snapshot_first(store, result, what)
        returned = _Returned(ws)
        expected = state.hash or MISSING_HASH
        after, recs = write_memory(ws, rel, text, expected, "restore", form=AS_GIVEN)
        returned.note(rel, state.text if state.exists else "", text)
        result.archived.extend(recs)
        result.files.append(rel)
        result.writes.append(FileWrite(rel, expected, after))
        try:
            result.commit = store.snapshot(restore_subject(f"{rel} from {what}"), with_summary=True)
        except SnapshotError as exc:
            result.warnings.append(f"the restore was not committed to snapshots: {exc}")
        log_restore(ws, result, f"{rel} from {what}", "file", returned.ids)
        return result


# -- undo -------------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class UndoFile:
    path: str
    before: bytes | None        # what the undo writes back (None: the restore created the file)
    current: bytes | None       # the file now (None: missing)
    current_hash: str
    changed_since: bool         # the file no longer holds the bytes the restore wrote
    since: list[str]            # what changed since the restore, as "+ line" / "- line"


@dataclass(slots=True)
class UndoPlan:
    entry: RestoreEntry
    files: list[UndoFile]                   # the files to write back (already-undone ones left out)
    cursor: tuple[int, int] | None = None   # .dream_cursor (now, back to)
    warnings: list[str] = field(default_factory=list)

    @property
    def changed(self) -> list[UndoFile]:
        return [f for f in self.files if f.changed_since]

    def to_json(self) -> dict:
        return {"id": self.entry.id, "what": self.entry.what, "files": [f.path for f in self.files],
                "changed_since": {f.path: f.since for f in self.changed},
                "cursor": None if self.cursor is None else {"now": self.cursor[0], "back_to": self.cursor[1]},
                "warnings": self.warnings}


class UndoChanged(WorkspaceError):
    """Files the restore wrote changed since; undoing would drop those changes."""

    def __init__(self, plan: UndoPlan):
        self.plan = plan
        names = ", ".join(f.path for f in plan.changed)
        super().__init__(f"{names} changed since that restore ({plan.entry.what}); undoing it would drop those "
                         "changes, so nothing was written")


def recent_restores(ws: Workspace) -> list[RestoreEntry]:
    """The restores that can be undone now, newest first."""
    return restore_log.live(restore_log.read_log(ws.root))


def _entry_to_undo(ws: Workspace, entry_id: str | None) -> RestoreEntry:
    entries = restore_log.read_log(ws.root)
    if entry_id is None:
        live = restore_log.live(entries)
        if not live:
            raise WorkspaceError("there is no restore to undo in this workspace")
        return live[0]
    entry = restore_log.find(entries, entry_id)
    if entry is None:
        raise WorkspaceError(f"no restore with id {entry_id} (see: dreamdesk restore PATH --list)")
    if entry.undone:
        raise WorkspaceError(f"restore {entry.id} ({entry.what}) was already undone by {entry.undone_by}")
    return entry


def plan_undo(ws: Workspace, entry_id: str | None = None, store: SnapshotStore | None = None) -> UndoPlan:
    """What undoing a restore would write, read only (the GUI asks with it first)."""
    store = store or SnapshotStore(ws)
    entry = _entry_to_undo(ws, entry_id)
    needs = [w for w in entry.files if w.before != MISSING_HASH]
    if needs and entry.pre is None:
        raise WorkspaceError(f"no snapshot was taken before restore {entry.id} ({entry.what}), so the files as they "
                             "were cannot be put back")
    before_all = store.memory_bytes_at(entry.pre) if needs else {}
    after_all = store.memory_bytes_at(entry.commit) if entry.commit else {}
    plan = UndoPlan(entry, [])
    for w in entry.files:
        target = resolve_inside(ws.root, w.path)
        before = before_all.get(w.path) if w.before != MISSING_HASH else None
        if w.before != MISSING_HASH and (before is None or _sha256(before) != w.before):
            raise WorkspaceError(f"snapshot {entry.pre[:8]} does not hold {w.path} exactly as it was before restore "
                                 f"{entry.id}, so it cannot be put back byte for byte (nothing was written)")
        try:
            current = read_bytes(target)
        except FileNotFoundError:
            current = None
        now_hash = MISSING_HASH if current is None else _sha256(current)
        if now_hash == w.before:
            continue                                   # already as it was before
        since = []
        if now_hash != w.after:
            wrote = after_all.get(w.path)
            base = wrote if wrote is not None and _sha256(wrote) == w.after else before
            since = _changes(base, current, w.path)
        plan.files.append(UndoFile(w.path, before, current, now_hash, now_hash != w.after, since))
    if entry.cursor is not None:
        now, _ = read_cursor(ws.dream_cursor_path, "memory/.dream_cursor")
        if now == entry.cursor[1]:
            plan.cursor = (now, entry.cursor[0])
        elif now != entry.cursor[0]:
            plan.warnings.append(f"memory/.dream_cursor moved since the restore (now {now}); it is left as it is")
    return plan


def _changes(old: bytes | None, new: bytes | None, path: str, limit: int = 40) -> list[str]:
    a = (old or b"").decode("utf-8", errors="replace")
    b = (new or b"").decode("utf-8", errors="replace")
    out = [f"{x.kind} {x.text.rstrip(chr(10))}" for h in diff_texts(a, b, path).hunks for x in h.lines if x.kind != " "]
    return out[:limit] + ([f"… and {len(out) - limit} more changed lines"] if len(out) > limit else [])


def undo_restore(ws: Workspace, entry_id: str | None = None, accept: dict[str, str] | None = None,
                 force: bool = False, store: SnapshotStore | None = None) -> RestoreResult:
    """Undo one restore (the latest by default): write back exactly the files it wrote, as they were
    before it. A file changed since is written over only when `force`, or when `accept` holds the
    hash the person saw it with (so a change after they were asked is still refused). Itself a
    restore: snapshotted first, committed, logged, and undoable in turn."""
    store = store or SnapshotStore(ws)
    accept = accept or {}
    with job_lock(ws):
        plan = plan_undo(ws, entry_id, store)
        entry = plan.entry
        if any(not force and accept.get(f.path) != f.current_hash for f in plan.changed):
            raise UndoChanged(plan)
        what = f"undo of {entry.what}"
        result = RestoreResult(entry.id, None, None, warnings=list(plan.warnings))
        if not plan.files and plan.cursor is None:
            result.warnings.append("the files already are as they were before that restore; nothing to write")
            return result
        result.undo = store.snapshot(f"snapshot: before {what}") or store.head()
        result.warnings += store.notes
        returned = _Returned(ws)
        for f in plan.files:
            try:
                after = _write_back(ws, f, result, returned)
            except (WorkspaceError, OSError) as exc:
                if not result.files:
                    raise
                result.commit = store.snapshot(restore_subject(f"{what}, stopped before {f.path}"), with_summary=True)
                log_restore(ws, result, f"{what} (stopped before {f.path})", "undo", returned.ids, undoes=entry.id)
                raise WorkspaceError(f"the undo stopped at {f.path} ({exc}); {', '.join(result.files)} had already "
                                     f"been put back. Undo this with: dreamdesk restore {ws.home or ws.root} "
                                     f"--undo {result.id}") from None
            result.files.append(f.path)
            result.writes.append(FileWrite(f.path, f.current_hash, after))
        if plan.cursor is not None:
            write_cursor(ws.dream_cursor_path, plan.cursor[1])
            result.cursor = plan.cursor
        result.commit = store.snapshot(restore_subject(what), with_summary=True)
        log_restore(ws, result, what, "undo", returned.ids, undoes=entry.id)
        return result


def _write_back(ws: Workspace, f: UndoFile, result: RestoreResult, returned: _Returned) -> str:
    """Put one file back as it was; what leaves USER.md / MEMORY.md is archived first."""
    target = resolve_inside(ws.root, f.path)
    if f.before is None:
        # the restore created it: the undo removes it again (its text stays in the snapshots)
        if current_hash(target) != f.current_hash:
            raise ConflictError(f.path, f.current_hash, current_hash(target))
        if f.path in ws.layout.archived and f.current is not None:
            result.archived += archive_removed(ws, f.current.decode("utf-8", errors="replace"), "", f.path, "restore")
        remove(target)
        return MISSING_HASH
    try:
        text = f.before.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    if f.path in ws.layout.archived and text is not None:
        after, recs = write_memory(ws, f.path, text, f.current_hash, "restore", form=AS_GIVEN)   # byte for byte
        result.archived += recs
        returned.note(f.path, (f.current or b"").decode("utf-8", errors="replace"), text)
        return after
    return checked_write_bytes(target, f.before, f.current_hash, display=f.path)
