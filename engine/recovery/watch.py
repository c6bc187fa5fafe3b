"""The watch: nothing another writer removes from USER.md or memory/MEMORY.md is lost while
Dreamdesk runs, and "Since you last looked" when it was closed (issue 13 §3).

Dreamdesk remembers, in its own state outside the workspace (`<state>/seen.json`), two
versions of each file, each as hash + normalised text + when:

- `watch`: the last version the watch saw. `observe` compares the file now with it; every
  entry another writer removed is appended to memory/archive/ with reason `outside`, and the
  version moves on. All of it happens under the workspace's `watch` lock, so two observes, a
  restart or two Dreamdesk processes archive a removal once. It exists only while a watch is
  (or was) on: `forget_watch` drops it when the user turns the watch off.
- `looked`: the versions the user last acknowledged on the Dashboard ("Got it"). What any
  writer removed or added since is "Since you last looked".

Dreamdesk's own writes (every one goes through Workspace.write_file) call `own_write`: under
the same lock the watch first catches up with the file (an outside change made just before is
still the other writer's), then the write lands and each remembered version that was the file
just before the write moves on to what we wrote, so our own removals (archived with their own
reason already) are never counted as outside.

A commit for an outside change: if HEAD already holds exactly the bytes seen, the record names
HEAD; otherwise the change is kept pending here and, when a later commit holding those bytes
lands, an annotation line `{"id", "commit", "noted_at"}` is appended to the archive, which the
reader merges into the record (the archive stays append-only). nanobot's Dream writes a file
once per tool call and commits once: a pending removal whose entry is still gone when the file
moves on waits for the newer version's commit instead."""

from __future__ import annotations

import hashlib
import json
import logging
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from datetime import datetime

from ..disk import changes
from .archive import ArchiveRecord, append_annotations, append_records, read_archive
from ..text.entries import Entry, Removal, contains_entry, removed_entries, split_entries
from ..disk.files import FileLock, atomic_write_text, content_hash, read_bytes, resolve_inside
from ..core.state import lock_path, workspace_state_dir
from ..text.textform import normalise
from ..home.workspace import Workspace, guard_writes

log = logging.getLogger(__name__)

STATE_FILE = "seen.json"
PENDING_LIMIT = 20           # outside changes per file still waiting for their commit
COMMIT_SLACK_S = 5           # a commit this much older than the change seen may still be its commit


@dataclass(frozen=True, slots=True)
class Version:
    hash: str | None          # sha256 of the bytes; None: the file did not exist
    text: str                 # normalised text ("" when missing)
    blob: str | None = None   # git's blob id of the bytes (finds the commit that holds them)

    def to_json(self, at: str) -> dict:
        return {"hash": self.hash, "text": self.text, "blob": self.blob, "at": at}

    @classmethod
    def from_json(cls, obj) -> "Version | None":
        if not isinstance(obj, dict) or not isinstance(obj.get("text"), str):
            return None
        return cls(obj.get("hash"), obj["text"], obj.get("blob"))


@dataclass(slots=True)
class WatchEvent:
    """Entries another writer removed from one file, archived (or a commit found for them later)."""
    file: str
    ids: list[str]
    commit: str | None = None
    by_dream: bool = False      # the commit is the assistant's own `dream:` commit
    later: bool = False         # the commit was found after the removal was archived

    @property
    def message(self) -> str:
        n = len(self.ids)
        what = f"{n} entr{'y' if n == 1 else 'ies'} from {self.file.rsplit('/', 1)[-1]}"
        who = "The assistant's Dream" if self.by_dream else "Another writer"
        return f"{who} removed {what}" + (f" (commit {self.commit[:8]})" if self.later and self.commit else "")


def read_version(ws: Workspace, rel: str) -> Version:
    try:
        data = read_bytes(resolve_inside(ws.root, rel))
    except FileNotFoundError:
        return Version(None, "")
    text = normalise(data.decode("utf-8", errors="replace"))
    blob = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
    return Version(content_hash(data), text, blob)


# -- the state file ---------------------------------------------------------------------------

def _state_path(ws: Workspace):
    return workspace_state_dir(ws.root) / STATE_FILE


def _load(ws: Workspace) -> dict:
    try:
        obj = json.loads(_state_path(ws).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return obj if isinstance(obj, dict) else {}


def _save(ws: Workspace, state: dict, shown: bool = False) -> None:
    """`shown`: the versions acknowledged on the Dashboard moved ("Got it"), so its "Since you
    last looked" box is read again; everything else kept here is the watch's own bookkeeping,
    which changes nothing on screen and so causes no read."""
    workspace_state_dir(ws.root, create=True)
    with nullcontext() if shown else changes.bookkeeping():
        atomic_write_text(_state_path(ws), json.dumps(state, ensure_ascii=False, indent=1))


def _lock(ws: Workspace) -> FileLock:
    return FileLock(lock_path(ws.root, "watch"), timeout=30, what="the watch lock")


def _now() -> str:
    return datetime.now().astimezone().isoformat(timespec="seconds")


def _get(state: dict, kind: str, rel: str) -> Version | None:
    return Version.from_json(state.get(kind, {}).get(rel))


def _put(state: dict, kind: str, rel: str, v: Version) -> None:
    state.setdefault(kind, {})[rel] = v.to_json(_now())


# -- the watch ---------------------------------------------------------------------------------

def observe(ws: Workspace) -> list[WatchEvent]:
    """Archive what other writers removed since the watch last looked, and note commits that
    landed for earlier removals. The first observe only remembers the files as they are."""
    with _lock(ws):
        state = _load(ws)
        was = json.dumps(state)
        events = _recover(ws, state)
        _keep_outside_change(ws, state)
        for rel in ws.layout.archived:
            events += _observe_file(ws, state, rel, read_version(ws, rel))
        events += _note_commits(ws, state)
        if json.dumps(state) != was:      # nothing changed (a touch, our own write): nothing written
            _save(ws, state)
    return events


def check_commits(ws: Workspace) -> list[WatchEvent]:
    """Only look for commits of removals archived earlier (git does not show in the file watch)."""
    if not _load(ws).get("pending"):
        return []
    with _lock(ws):
        state = _load(ws)
        events = _note_commits(ws, state)
        if events:
            _save(ws, state)
    return events


def watching(ws: Workspace) -> bool:
    """Has a watch remembered this workspace's files (and not been turned off since)?"""
    return bool(_load(ws).get("watch"))


def forget_watch(ws: Workspace) -> None:
    """The watch was turned off: what it saw is forgotten, so turning it on again later starts
    from the files as they are then (changes made while it was off are never archived by it)."""
    with _lock(ws):
        state = _load(ws)
        if state.pop("watch", None) is not None or state.pop("pending", None) is not None:
            _save(ws, state)


def _keep_outside_change(ws: Workspace, state: dict) -> None:
    """Where Dreamdesk's history is kept apart (OpenClaw's home: no one else commits), the watch's
    first look is a snapshot of the memory files as they are, and every change another writer
    makes to any of them since (a sweep, the agent, an update overwriting SOUL.md) one of its
    own, before its removals are archived, so each record names the commit that holds the file
    as that writer left it. Nothing changed: no commit. Best effort: a failing snapshot still
    lets the removals be archived."""
    if not ws.layout.apart:
        return
    from ..versions.snapshots import SnapshotError, SnapshotStore
    first = not any(_get(state, "watch", rel) for rel in ws.layout.archived)
    try:
        SnapshotStore(ws).snapshot("snapshot: as the watch first saw it" if first
                                   else "snapshot: changed by another writer", with_summary=True)
    except SnapshotError as exc:
        log.warning("no snapshot of another writer's change: %s", exc)


def _observe_file(ws: Workspace, state: dict, rel: str, now: Version) -> list[WatchEvent]:
    before = _get(state, "watch", rel)
    if before is not None and before.hash == now.hash:
        return []
    _carry_pending(state, rel, now)
    gone = removed_entries(before.text, now.text) if before is not None else []
    if not gone:
        _put(state, "watch", rel, now)
        return []
    # written down before the append: a crash between the two is finished by _recover, once
    state["journal"] = {"file": rel, "at": _now(), "to": now.to_json(_now()),
                        "texts": [r.entry.text for r in gone]}
    _save(ws, state)
    commit = _head_holding(ws, rel, now.blob)
    records = append_records(ws, [_item(rel, r, commit) for r in gone])
    return [_finish(ws, state, rel, now, records, commit)]


def _item(rel: str, r: Removal, commit: str | None) -> dict:
    return {"file": rel, "text": r.entry.text, "reason": "outside", "replaced_by": r.replaced_by,
            "heading": r.entry.heading, "commit": commit}


def _finish(ws: Workspace, state: dict, rel: str, now: Version, records: list[ArchiveRecord],
            commit: str | None) -> WatchEvent:
    ids = [r.id for r in records]
    _put(state, "watch", rel, now)
    state.pop("journal", None)
    if commit is None and now.blob:
        pending = [p for p in state.get("pending", []) if p.get("file") == rel]
        others = [p for p in state.get("pending", []) if p.get("file") != rel]
        pending.append({"file": rel, "blob": now.blob, "ids": ids, "texts": [r.text for r in records],
                        "at": _now(), "unix": _unix()})
        state["pending"] = others + pending[-PENDING_LIMIT:]
    return WatchEvent(rel, ids, commit, commit is not None and _by_dream(ws, commit))


def _carry_pending(state: dict, rel: str, now: Version) -> None:
    """The file moved on before any commit held the version a removal was seen in (nanobot's
    Dream edits a file several times, then commits once): a removed entry still gone waits for
    the commit of the newer version instead; one that is back keeps waiting for its own."""
    kept = []
    for p in state.get("pending", []):
        ids, texts = p.get("ids") or [], p.get("texts")
        if p.get("file") != rel or p.get("blob") == now.blob or not now.blob or \
                not isinstance(texts, list) or len(texts) != len(ids):
            kept.append(p)
            continue
        back = [contains_entry(now.text, t) for t in texts]
        for is_back, blob in ((False, now.blob), (True, p.get("blob"))):
            pairs = [(i, t) for i, t, b in zip(ids, texts, back) if b == is_back]
            if pairs:
                kept.append(p | {"blob": blob, "ids": [i for i, _ in pairs], "texts": [t for _, t in pairs]})
    state["pending"] = kept


def _recover(ws: Workspace, state: dict) -> list[WatchEvent]:
    """A journal left by a crash between the archive append and the state save: append what
    did not land (a record of that text, reason outside, archived since the journal, did)."""
    j = state.get("journal")
    if not isinstance(j, dict) or j.get("file") not in ws.layout.archived:
        state.pop("journal", None)
        return []
    rel, now = j["file"], Version.from_json(j.get("to"))
    landed = [r for r in read_archive(ws).records
              if r.reason == "outside" and r.file == rel and r.archived_at >= str(j.get("at", ""))]
    texts = [t for t in j.get("texts", []) if isinstance(t, str)]
    missing = [t for t in texts if t not in {r.text for r in landed}]
    if now is None:
        state.pop("journal", None)
        return []
    gone = [g for g in removed_entries(_get(state, "watch", rel).text if _get(state, "watch", rel) else "",
                                       now.text) if g.entry.text in missing]
    records = append_records(ws, [_item(rel, r, None) for r in gone])
    return [_finish(ws, state, rel, now, [r for r in landed if r.text in texts] + records, None)]


# -- commits ---------------------------------------------------------------------------------------

def _store(ws: Workspace):
    from ..versions.snapshots import SnapshotError, SnapshotStore
    store = SnapshotStore(ws)
    try:
        return store if store.exists() and store.head() else None
    except SnapshotError:
        return None


def _head_holding(ws: Workspace, rel: str, blob: str | None) -> str | None:
    """HEAD, when its tree already holds exactly these bytes of `rel`."""
    from ..versions.snapshots import SnapshotError
    store = _store(ws)
    if store is None or blob is None:
        return None
    try:
        head = store.head()
        return store.public(head) if store.tree(head).get(rel) == blob else None
    except SnapshotError:
        return None


def _by_dream(ws: Workspace, commit: str) -> bool:
    """A `dream:` commit that Dreamdesk did not make is the assistant's own Dream."""
    from ..versions.snapshots import AUTHOR_NAME, SnapshotError, kind_of
    store = _store(ws)
    try:
        author, _, subject = store._git("log", "-1", "--format=%an%x1f%s",
                                        store._local(commit)).strip().partition("\x1f")
    except (SnapshotError, AttributeError):
        return False
    return kind_of(subject) == "dream" and author != AUTHOR_NAME


def _note_commits(ws: Workspace, state: dict) -> list[WatchEvent]:
    pending = state.get("pending") or []
    if not pending:
        return []
    from ..versions.snapshots import SnapshotError
    store = _store(ws)
    if store is None:
        return []
    events, left, notes = [], [], []
    for p in pending:
        try:
            commit = _commit_with(store, p["file"], p["blob"], int(p.get("unix", 0)) - COMMIT_SLACK_S)
        except (SnapshotError, KeyError, TypeError, ValueError):
            commit = None
        if commit is None:
            left.append(p)
            continue
        notes += [{"id": i, "commit": commit} for i in p["ids"]]
        events.append(WatchEvent(p["file"], list(p["ids"]), commit, _by_dream(ws, commit), later=True))
    append_annotations(ws, notes)
    state["pending"] = left
    return events


def _commit_with(store, rel: str, blob: str, since: int) -> str | None:
    """The first commit since `since` (unix seconds) whose `rel` is exactly `blob`."""
    out = store._git("log", "--format=%x1e%H %ct", "--raw", "--no-abbrev", "--no-renames",
                     f"--since={since}", "HEAD", "--", rel)
    found = None
    for chunk in out.split("\x1e")[1:]:            # newest first: the last match is the first commit
        head, _, raw = chunk.partition("\n")
        sha = head.split()[0]
        for line in raw.splitlines():
            meta, _, path = line.partition("\t")
            parts = meta.split()
            if path == rel and len(parts) >= 4 and parts[3] == blob:
                found = sha
    return found and store.public(found)        # an assistant's commit by its own sha


def _unix() -> int:
    import time
    return int(time.time())


# -- Dreamdesk's own writes ---------------------------------------------------------------------

@contextmanager
def own_write(ws: Workspace, rel: str):
    """Around a write by Dreamdesk itself: see the module docstring. Costs nothing (no lock, no
    state written) for other files or while nothing is remembered for this workspace."""
    if rel not in ws.layout.archived or not _state_path(ws).is_file():
        yield
        return
    with _lock(ws):
        state = _load(ws)
        before = read_version(ws, rel)
        if _get(state, "watch", rel) is not None:
            _recover(ws, state)
            _observe_file(ws, state, rel, before)     # another writer's change just before ours
        try:
            yield
        except BaseException:
            _save(ws, state)         # what the watch archived just now stays archived once
            raise
        after = read_version(ws, rel)
        for kind in ("watch", "looked"):
            seen = _get(state, kind, rel)
            if seen is not None and seen.hash == before.hash:
                _put(state, kind, rel, after)
        _save(ws, state)


# -- Since you last looked -------------------------------------------------------------------------

@dataclass(slots=True)
class FileChanges:
    file: str
    removed: list[Removal] = field(default_factory=list)
    added: list[Entry] = field(default_factory=list)
    now: Version | None = None          # the version compared (what "Got it" acknowledges)


@dataclass(slots=True)
class SinceLooked:
    files: list[FileChanges]
    looked_at: dict[str, str] = field(default_factory=dict)    # file -> when it was last acknowledged

    @property
    def empty(self) -> bool:
        return not any(f.removed or f.added for f in self.files)


def since_last_looked(ws: Workspace) -> SinceLooked | None:
    """What any writer removed or added since the versions last acknowledged (reads only;
    None while Dreamdesk has never remembered this workspace: see `remember_looked`)."""
    state = _load(ws)
    looked = state.get("looked") or {}
    if not looked:
        return None
    out = SinceLooked([])
    for rel in ws.layout.archived:
        seen = _get(state, "looked", rel)
        now = read_version(ws, rel)
        fc = FileChanges(rel, now=now)
        if seen is not None and seen.hash != now.hash:
            fc.removed = removed_entries(seen.text, now.text)
            fc.added = _added(seen.text, now.text)
        out.files.append(fc)
        out.looked_at[rel] = str(looked.get(rel, {}).get("at", ""))
    return out


def _added(old: str, new: str) -> list[Entry]:
    from collections import Counter
    left = Counter(e.text for e in split_entries(old))
    out = []
    for e in split_entries(new):
        if left[e.text] > 0:
            left[e.text] -= 1
        else:
            out.append(e)
    return out


def remember_looked(ws: Workspace, shown: SinceLooked | None = None) -> None:
    """Acknowledge: the versions `shown` (or, the first time, the files as they are now) become
    the ones last looked at. Only Dreamdesk's own state is written, never the workspace."""
    with _lock(ws):
        state = _load(ws)
        if shown is None and state.get("looked"):
            return
        for rel in ws.layout.archived:
            v = next((f.now for f in shown.files if f.file == rel), None) if shown else read_version(ws, rel)
            if v is not None:
                _put(state, "looked", rel, v)
        # the first time, the files as they are: "Since you last looked" is as empty as before
        _save(ws, state, shown=shown is not None)


def as_record(rel: str, removal: Removal) -> ArchiveRecord:
    """A removal listed in "Since you last looked", in the shape restore_record takes."""
    return ArchiveRecord("since-last-looked", _now(), rel, removal.entry.text, "outside",
                         replaced_by=removal.replaced_by, heading=removal.entry.heading)


guard_writes(own_write)          # every write of Dreamdesk's goes through it (engine/home/workspace.py)
