"""The list of recent restores of a workspace, so each can be undone exactly, even after a restart.

Every restore (snapshot, file, hunk, archived entry, and every undo, which is a restore too)
appends one line to `restores.jsonl` in Dreamdesk's own state for that workspace (never the
workspace: the assistant's git sees memory/). A line says which files the restore wrote and the
hash of each file's bytes just before and just after, and the commit that holds the bytes
before. Undo writes back exactly those files, and only those; a file whose bytes are no longer
the ones the restore wrote has changed since, which the caller is shown before anything is
lost. The file's text is never copied here: the snapshot commit holds it.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from ..core import jsonl
from ..disk.files import append_durably, read_bytes
from ..core.state import workspace_state_dir

LOG_NAME = "restores.jsonl"
KINDS = ("snapshot", "file", "hunk", "archive", "undo", "lint")   # lint: a memory-lint fix (engine/lint/lint_fixes.py)


@dataclass(frozen=True, slots=True)
class FileWrite:
    path: str
    before: str        # sha256 of the bytes just before the restore ("missing": it did not exist)
    after: str         # sha256 of the bytes it wrote

    def to_json(self) -> dict:
        return {"path": self.path, "before": self.before, "after": self.after}


@dataclass(slots=True)
class RestoreEntry:
    id: str
    at: str                                   # ISO time with offset
    what: str                                 # as a person reads it: "snapshot 1a2b3c4d USER.md"
    kind: str
    pre: str | None                           # the commit holding every file as it was before
    commit: str | None                        # the commit recording what the restore wrote
    files: list[FileWrite] = field(default_factory=list)
    cursor: tuple[int, int] | None = None     # .dream_cursor (old, new), when it moved
    archived: list[str] = field(default_factory=list)    # archive ids of what it removed
    returned: list[str] = field(default_factory=list)    # archive ids of entries it put back
    undoes: str | None = None                 # the restore this one undid
    undone_by: str | None = None              # filled in by read_log, never stored

    def to_json(self) -> dict:
        return {"id": self.id, "at": self.at, "what": self.what, "kind": self.kind, "pre": self.pre,
                "commit": self.commit, "files": [f.to_json() for f in self.files],
                "cursor": None if self.cursor is None else list(self.cursor),
                "archived": self.archived, "returned": self.returned, "undoes": self.undoes}

    @property
    def undone(self) -> bool:
        return self.undone_by is not None

    @property
    def paths(self) -> list[str]:
        return [f.path for f in self.files]


def log_path(root: Path) -> Path:
    return workspace_state_dir(root) / LOG_NAME


def new_id(now: datetime | None = None) -> str:
    now = now or datetime.now().astimezone()
    return f"r-{now.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(2)}"


def append(root: Path, entry: RestoreEntry) -> None:
    """One whole line, appended durably. Callers hold the workspace's job lock."""
    workspace_state_dir(root, create=True)
    append_durably(log_path(root), (json.dumps(entry.to_json(), ensure_ascii=False) + "\n").encode("utf-8"))


def _entry(obj: object) -> RestoreEntry | None:
    if not isinstance(obj, dict) or not isinstance(obj.get("id"), str) or obj.get("kind") not in KINDS:
        return None
    files = []
    for f in obj.get("files") or []:
        if isinstance(f, dict) and all(isinstance(f.get(k), str) for k in ("path", "before", "after")):
            files.append(FileWrite(f["path"], f["before"], f["after"]))
    cur = obj.get("cursor")
    cursor = (cur[0], cur[1]) if isinstance(cur, list) and len(cur) == 2 and \
        all(isinstance(x, int) and not isinstance(x, bool) for x in cur) else None

    def ids(key: str) -> list[str]:
        return [x for x in obj.get(key) or [] if isinstance(x, str)]

    def opt(key: str) -> str | None:
        return obj[key] if isinstance(obj.get(key), str) else None

    return RestoreEntry(obj["id"], str(obj.get("at", "")), str(obj.get("what", "")), obj["kind"], opt("pre"),
                        opt("commit"), files, cursor, ids("archived"), ids("returned"), opt("undoes"))


def _as_entry(obj: object) -> tuple[RestoreEntry | None, str | None]:
    e = _entry(obj)
    return (e, None) if e is not None else (None, "not a restore")


def _skip_silently(bad: jsonl.Bad) -> str:
    """A torn last line (a crash mid-append) or a foreign one: the log is Dreamdesk's own, and
    a restore it cannot read is simply not offered for undo."""
    return jsonl.SKIP


def read_log(root: Path) -> list[RestoreEntry]:
    """Every recorded restore, oldest first, with `undone_by` worked out: an undo marks what it
    undid as undone; undoing that undo makes the original undoable again. Torn or foreign lines
    are skipped."""
    try:
        data = read_bytes(log_path(root))
    except OSError:
        return []
    entries: list[RestoreEntry] = []
    by_id: dict[str, RestoreEntry] = {}
    flips: dict[str, list[tuple[RestoreEntry, str | None]]] = {}   # what each undo changed, to revert
    for row in jsonl.read(data, _skip_silently, _as_entry):
        e = row.value
        if e.id in by_id:
            continue
        entries.append(e)
        by_id[e.id] = e
        target = by_id.get(e.undoes) if e.undoes else None
        if target is not None:
            # undoing T goes back to the state before T: T is undone, and whatever T itself
            # undid is in effect again (undo of an undo is a redo)
            changed = [(target, target.undone_by)]
            target.undone_by = e.id
            for other, old in flips.get(target.id, []):
                changed.append((other, other.undone_by))
                other.undone_by = old
            flips[e.id] = changed
    return entries


def live(entries: list[RestoreEntry]) -> list[RestoreEntry]:
    """The restores that can be undone now, newest first."""
    by_id = {e.id: e for e in entries}

    def redo(e: RestoreEntry) -> bool:     # shown through the restore it brought back instead
        t = by_id.get(e.undoes) if e.undoes else None
        return t is not None and t.kind == "undo"

    return [e for e in reversed(entries) if not e.undone and (e.files or e.cursor) and not redo(e)]


def find(entries: list[RestoreEntry], entry_id: str) -> RestoreEntry | None:
    """By full id or an unambiguous prefix."""
    exact = [e for e in entries if e.id == entry_id]
    if exact:
        return exact[0]
    hits = [e for e in entries if e.id.startswith(entry_id)]
    return hits[0] if len(hits) == 1 else None
