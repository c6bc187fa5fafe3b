"""Every snapshot commit that changed a memory file or .dream_cursor, by any writer, as a record.

The shared <workspace>/.git holds the assistant's own Dream (nanobot's `dream:` and `revert:`
commits, author `nanobot`) beside Dreamdesk's. One `git log --raw` pass over the first-parent
history (oldest first) names each commit's changed files with their blobs before and after; one
`cat-file --batch` pass reads those blobs. For SOUL.md, USER.md, MEMORY.md and each SKILL.md the
entries added and removed are found with Dreamdesk's own entry rules (entries.removed_entries,
computed by flat_delta and entry_delta without parsing each version whole); .dream_cursor's
value is read before and after. Results are cached outside the workspace (commit_cache) by repository and
HEAD; a commit's record depends on its sha alone, so a new HEAD analyses only the new commits.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from ..core import clock
from . import commit_cache
from ..home.cursors import parse_cursor
from ..text.flat_delta import Version, advance, version
from ..core.rules import is_memory_path
from .snapshots import AUTHOR_NAME, SnapshotError, SnapshotStore, kind_of
from ..disk.stat_memo import gc_paused
from ..text.textform import normalise
from ..home.workspace import Workspace

CURSOR = "memory/.dream_cursor"
USER = "USER.md"
CACHE_NAME = "commits"
# Bump it whenever the entry rules change what a commit's rows hold (they are kept per commit, so
# an older cache would keep the old answers): 3: a header line with the body's CRC, then the rows;
# 4: replaced_by also pairs an entry rewritten in its very place (entries._pair_in_place);
# 5: a memory file that was a symlink before a commit is no file there (its target path is no entry)
CACHE_VERSION = 5
_NULL = "0" * 40
_LOG_FORMAT = "--format=%x1e%H%x1f%P%x1f%ct%x1f%an%x1f%s"


def watched(path: str) -> bool:
    return is_memory_path(path) or path == CURSOR


# Plain tuples (a cache hit makes thousands of them: a tuple is made several times faster than a
# frozen dataclass)
class EntryChange(NamedTuple):
    heading: str | None
    text: str
    replaced_by: str | None = None     # for a removal: the entry that took its place, if any

    def to_json(self) -> dict:
        return {"heading": self.heading, "text": self.text, "replaced_by": self.replaced_by}


class FileChange(NamedTuple):
    path: str
    before: str | None                 # blob sha in the parent (None: not there)
    after: str | None                  # blob sha in the commit (None: deleted)
    added: tuple[EntryChange, ...] = ()
    removed: tuple[EntryChange, ...] = ()

    def to_json(self) -> dict:
        return {"path": self.path, "before": self.before, "after": self.after,
                "added": [e.to_json() for e in self.added], "removed": [e.to_json() for e in self.removed]}


_ENTRY = EntryChange._make           # from a cached row (a row of another length: TypeError, rebuilt)


@dataclass(slots=True)
class CommitRecord:
    sha: str
    parent: str | None
    time: int                          # committer time, unix seconds
    author: str
    subject: str
    kind: str                          # snapshots.kind_of
    by_dreamdesk: bool
    # each changed file as the cache keeps it: [path, blob before, blob after, added, removed], an
    # entry as [heading, text, replaced_by]; made into FileChange only when asked (`files`)
    rows: list
    cursor: tuple[int | None, int | None]       # .dream_cursor before -> after (None: no such file)
    user_md: tuple[str | None, str | None]      # USER.md blob before -> after (the peer card)

    @property
    def files(self) -> tuple[FileChange, ...]:
        return tuple(FileChange(p, b, a, tuple(map(_ENTRY, add)), tuple(map(_ENTRY, rem)))
                     for p, b, a, add, rem in self.rows)

    @property
    def writer(self) -> str:
        return "dreamdesk" if self.by_dreamdesk else "assistant"

    @property
    def who(self) -> str:
        """The writer in words: "the assistant" or "Dreamdesk"."""
        return "Dreamdesk" if self.by_dreamdesk else "the assistant"

    @property
    def changed_memory(self) -> bool:
        return any(is_memory_path(f[0]) for f in self.rows)

    def removed(self) -> list[tuple[str, EntryChange]]:
        return [(f[0], _ENTRY(e)) for f in self.rows for e in f[4]]

    def added(self) -> list[tuple[str, EntryChange]]:
        return [(f[0], _ENTRY(e)) for f in self.rows for e in f[3]]

    def to_json(self) -> dict:
        return {"sha": self.sha, "parent": self.parent, "time": self.time, "author": self.author,
                "subject": self.subject, "kind": self.kind, "by_dreamdesk": self.by_dreamdesk,
                "writer": self.writer, "files": [f.to_json() for f in self.files],
                "cursor": {"before": self.cursor[0], "after": self.cursor[1]},
                "user_md": {"before": self.user_md[0], "after": self.user_md[1]}}

    def to_row(self) -> list:
        """The compact form the cache keeps (lists decode faster than objects)."""
        return [self.sha, self.parent, self.time, self.author, self.subject, self.kind, self.by_dreamdesk,
                self.rows, list(self.cursor), list(self.user_md)]

    @classmethod
    def from_row(cls, row: list) -> "CommitRecord":
        """A cached row as a record (its shape is trusted: commit_cache checked the file's CRC)."""
        sha, parent, ct, author, subject, kind, ours, files, cursor, user = row
        return cls(sha, parent, ct, author, subject, kind, ours, files, tuple(cursor), tuple(user))


@dataclass
class CommitHistory:
    records: list[CommitRecord] = field(default_factory=list)   # oldest first
    head: str | None = None
    analysed: int = 0                  # commits analysed this time (0: all from the cache)
    git_calls: list[str] = field(default_factory=list)          # git subcommands run this time

    def find(self, rev: str) -> CommitRecord | None:
        """The record whose sha starts with `rev` (7 characters at least), if exactly one does."""
        rev = rev.strip().lower()
        if len(rev) < 7:
            return None
        hits = [r for r in self.records if r.sha.startswith(rev)]
        return hits[0] if len(hits) == 1 else None


def load_history(ws: Workspace, store: SnapshotStore | None = None, head: str | None = None) -> CommitHistory:
    """The commit records, from the cache when HEAD is the one cached, else analysing only the
    commits the cache does not hold. Reads the repository only; writes only the cache.
    `head`: HEAD as the caller has just read it (store.head()), so it is not asked again."""
    with gc_paused():
        return _load(store or SnapshotStore(ws), head)


def _load(store: SnapshotStore, head: str | None = None) -> CommitHistory:
    out = CommitHistory()
    if not store.exists():
        return out
    if head is None:
        out.git_calls.append("rev-parse")
        head = store.head()
    if head is None:
        return out
    out.head = head
    cached = _cached(store)
    if cached is not None and cached[0] == head:
        out.records = cached[2]
        return out
    walk = _Walk(store, out)
    if cached is not None and walk.extends(cached[0]):
        new = walk.run(f"{cached[0]}..{head}", cached[1])
        if walk.first_parent == cached[0]:           # else it sits beyond a merge's second parent
            out.records = cached[2] + walk.records(new, {})
            _save(store, walk, out)
            return out
    known = {r.sha: r for r in cached[2]} if cached is not None else {}
    out.records = walk.records(walk.run(head, {}), known)
    _save(store, walk, out)
    return out


def _save(store: SnapshotStore, walk: "_Walk", out: CommitHistory) -> None:
    commit_cache.save(store.git_dir, CACHE_NAME, CACHE_VERSION, {"head": out.head, "tip": walk.tip},
                      [r.to_row() for r in out.records])


def _cached(store: SnapshotStore) -> tuple[str, dict, list[CommitRecord]] | None:
    cached = commit_cache.load(store.git_dir, CACHE_NAME, CACHE_VERSION)
    if cached is None:
        return None
    data, rows = cached
    try:
        tip = {str(k): str(v) for k, v in data["tip"].items()}
        return str(data["head"]), tip, [CommitRecord.from_row(d) for d in rows]
    except (KeyError, TypeError, ValueError, AttributeError):
        return None                      # a cache of another shape: rebuilt


# one commit from the log: sha, first parent, time, author, subject, {path: (blob before, blob after)}
_Raw = tuple[str, str | None, int, str, str, dict[str, tuple[str | None, str | None]]]


class _Walk:
    """One pass over part of the history; `tip` is each watched path's blob at the last commit."""

    def __init__(self, store: SnapshotStore, out: CommitHistory):
        self.store, self.out = store, out
        self.tip: dict[str, str] = {}
        self.parsed: dict[str, tuple[str, Version]] = {}    # path -> (blob, its version)

    def git(self, *args: str, **kw):
        self.out.git_calls.append(args[0])
        return self.store._git(*args, **kw)

    def extends(self, old_head: str) -> bool:
        """Is the cached HEAD an ancestor of HEAD (not a rewritten or gone history)?"""
        try:
            base = self.git("merge-base", old_head, self.out.head, ok_codes=(0, 1)).strip()
        except SnapshotError:
            return False                 # the old HEAD is gone from the repository
        return base == old_head

    def run(self, rev_range: str, tip: dict[str, str]) -> list[_Raw]:
        self.tip = dict(tip)
        self.first_parent = None         # the first listed commit's parent
        out = self.git("log", "--reverse", "--first-parent", "-m", "--root", _LOG_FORMAT, "--raw", "--no-abbrev",
                       "--no-renames", rev_range, "--")
        commits: list[_Raw] = []
        for i, chunk in enumerate(out.split("\x1e")[1:]):
            head, _, rest = chunk.partition("\n")
            sha, parents, ct, author, subject = (head.split("\x1f") + [""] * 5)[:5]
            if i == 0:
                self.first_parent = parents.split()[0] if parents.strip() else None
            changes: dict[str, tuple[str | None, str | None]] = {}
            for row in rest.splitlines():
                meta, _, path = row.partition("\t")
                parts = meta.lstrip(":").split()     # ":100644 100644 …": the old mode without its colon
                if row.startswith(":") and len(parts) >= 5 and (watched(path) or self.store.ws.layout.writable(path)):
                    changes[path] = (_blob(parts[2], parts[0]), _blob(parts[3], parts[1]))
            if changes:
                commits.append((sha, parents.split()[0] if parents.strip() else None, int(ct or 0), author,
                                subject, changes))
        return commits

    def records(self, commits: list[_Raw], known: dict[str, CommitRecord]) -> list[CommitRecord]:
        todo = [c for c in commits if c[0] not in known]
        wanted = [b for c in todo for p, pair in c[5].items() for b in pair if b]
        # a cursor's value before a commit may come from a commit analysed earlier (tiny blobs)
        wanted += [b for c in commits for b in c[5].get(CURSOR, ()) if b] + [b for b in (self.tip.get(CURSOR),) if b]
        if wanted:
            self.out.git_calls.append("cat-file")
        blobs = self.store.blob_bytes(wanted) if wanted else {}
        out = []
        for sha, parent, ct, author, subject, changes in commits:
            rec = known.get(sha)
            if rec is None:
                rec = self._analyse(sha, parent, ct, author, subject, changes, blobs)
                self.out.analysed += 1
            for path, (_, after) in changes.items():
                if after:
                    self.tip[path] = after
                else:
                    self.tip.pop(path, None)
            out.append(rec)
        self.store._blob_cache.clear()       # thousands of versions: not kept once analysed
        return out

    def _analyse(self, sha, parent, ct, author, subject, changes, blobs) -> CommitRecord:
        files = [self._file(path, before, after, blobs) for path, (before, after) in sorted(changes.items())]
        cur_before = self.tip.get(CURSOR)
        cur_after = changes[CURSOR][1] if CURSOR in changes else cur_before
        user = (self.tip.get(USER), changes[USER][1] if USER in changes else self.tip.get(USER))
        sha, parent = self.store.public(sha), parent and self.store.public(parent)   # an assistant's by its name
        return CommitRecord(sha, parent, ct, author, subject, kind_of(subject, author), author == AUTHOR_NAME,
                            files, (_cursor(blobs, cur_before), _cursor(blobs, cur_after)), user)

    def _file(self, path: str, before: str | None, after: str | None, blobs: dict[str, bytes]) -> list:
        if not self.store.ws.layout.writable(path):
            return [path, before, after, [], []]
        known = self.parsed.get(path)
        old = known[1] if known and known[0] == before else version(_text(blobs, before))
        new, gone, came = advance(old, _text(blobs, after))
        if after:
            self.parsed[path] = (after, new)
        return [path, before, after, [[e.heading, e.text, None] for e in came],
                [[r.entry.heading, r.entry.text, r.replaced_by] for r in gone]]


def _blob(sha: str, mode: str) -> str | None:
    """A raw line's blob, None for no file (all zeros) or a symlink (its blob is a path)."""
    return None if sha == _NULL or mode == "120000" else sha


def _text(blobs: dict[str, bytes], sha: str | None) -> str:
    return normalise(blobs[sha].decode("utf-8", errors="replace")) if sha else ""


def _cursor(blobs: dict[str, bytes], sha: str | None) -> int | None:
    return None if sha is None else parse_cursor(blobs[sha], CURSOR)[0]


# -- what people ask of it ------------------------------------------------------------------------
def run_summary(rec: CommitRecord) -> dict:
    """An assistant's run in `dreamdesk runs --json`: the keys Dreamdesk's own runs have where they
    mean the same, plus what only a commit tells."""
    at = clock.iso(clock.from_epoch(rec.time))
    return {"id": rec.sha, "writer": "assistant", "commit": rec.sha, "author": rec.author, "subject": rec.subject,
            "kind": rec.kind, "started": at, "finished": at, "trigger": rec.kind, "status": "committed",
            "outcome": rec.subject, "files": [f.path for f in rec.files],
            "created_count": len(rec.added()), "removed_count": len(rec.removed()),
            "cursor": {"before": rec.cursor[0], "after": rec.cursor[1]}}


def assistant_runs(ws: Workspace, history: CommitHistory | None = None) -> list[CommitRecord]:
    """Commits Dreamdesk did not make that changed SOUL.md, USER.md, MEMORY.md or a skill
    (nanobot's `dream:` and `revert:`, or any other writer's), newest first."""
    history = history or load_history(ws)
    return [r for r in reversed(history.records) if not r.by_dreamdesk and r.changed_memory]


def peer_card(ws: Workspace, rec: CommitRecord, store: SnapshotStore | None = None) -> tuple[str | None, str | None]:
    """USER.md's text before and after the commit (read now: only when a detail is shown)."""
    store = store or SnapshotStore(ws)
    shas = [s for s in rec.user_md if s]
    texts = store.blob_texts(shas) if shas else {}
    return tuple(texts[s] if s else None for s in rec.user_md)
