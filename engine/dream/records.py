"""Run records in memory/dreams/<run id>.json: what each Dream run changed, with provenance,
fact status across runs, 30-day retention (a run with nothing left is deleted, as Honcho does),
and scrubbing of deleted archive text."""

from __future__ import annotations

import copy
import json
import re
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from ..recovery.archive import read_archive
from ..assistants.home_repo import hide_own_files
from ..core.clock import from_iso
from ..text.entries import contains_entry, split_entries
from ..disk.files import FileLock, atomic_write_text, read_bytes
from ..core.problems import Problem, WorkspaceError
from ..disk.read_only import ReadOnlyKind
from ..home.workspace import Workspace
from ..core.state import lock_path
from ..disk.stat_memo import MemoShelf
from ..text.textform import normalise
from .runtypes import RecordError, RunRecord, copy_record, decode_record, record_json

RETENTION_DAYS = 30
_RUN_FILE = re.compile(r"^r-\d{8}-\d{6}(-\d+)?\.json$")
_ID = re.compile(r"^r-\d{8}-\d{6}(-\d+)?$")


def new_run_id(ws: Workspace, now: datetime) -> str:
    base = "r-" + now.strftime("%Y%m%d-%H%M%S")
    rid, n = base, 1
    while (ws.dreams_dir / f"{rid}.json").exists():
        n += 1
        rid = f"{base}-{n}"
    return rid


def run_order(rec: RunRecord) -> tuple:
    """The real sequence of runs: start time to the second, then the run number Dream counts,
    then the same-second suffix of the id (r-…-2 after r-…), never the text of the id alone."""
    rid = rec.id or ""
    m = re.search(r"-(\d+)$", rid[len("r-00000000-000000"):]) if len(rid) > 17 else None
    return (rec.started or "", rec.run_number or 0, int(m.group(1)) if m else 1, rid)


def save_record(ws: Workspace, record: RunRecord | dict) -> None:
    """Write a run record (a dict, as a preview or the demo's history holds one, is checked as
    a record read from a file is, and written by the same encoder)."""
    if isinstance(record, dict):
        try:
            record = decode_record(record)
        except RecordError as exc:
            raise WorkspaceError(f"refusing to write a run record: {exc}") from None
    if not isinstance(record.id, str) or not _ID.match(record.id):
        raise WorkspaceError(f"refusing to write a run record with the id {record.id!r}")
    from ..core.redact import scrub
    text = json.dumps(record_json(record), indent=2, ensure_ascii=False)
    hide_own_files(ws)
    atomic_write_text(ws.dreams_dir / f"{record.id}.json", scrub(text) + "\n")


class _Unreadable(Exception):
    """A run record file that holds no JSON (why, in the message)."""


def _read_record(path: Path) -> RunRecord:
    """The run record in a file: _Unreadable when it holds no JSON, RecordError when the JSON is
    no run record (an OSError is raised)."""
    try:
        obj = json.loads(read_bytes(path).decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise _Unreadable(str(exc)) from None
    return decode_record(obj, path.stem)


def _parse_record(path: Path) -> RunRecord | Problem:
    """A run record as listed, or why it is skipped; an OSError is raised."""
    try:
        return _read_record(path)
    except _Unreadable as exc:
        return Problem(f"memory/dreams/{path.name}", f"unreadable run record ({exc}); skipped")
    except RecordError as exc:
        return Problem(f"memory/dreams/{path.name}", f"not a usable run record: {exc}; skipped")


_RECORDS = MemoShelf(_parse_record)


def records_parsed(ws: Workspace) -> int:
    """How many run record files this process has parsed for ws (structural tests count them)."""
    return _RECORDS.memo(ws.dreams_dir).parsed


def list_runs(ws: Workspace) -> tuple[list[RunRecord], list[Problem]]:
    """All run records, newest first. Only files new or changed since the last listing are parsed
    (engine/disk/stat_memo.py). Each record is a copy of its top level, for the caller to change;
    the lists and objects inside are shared with the memo: copy one before changing it."""
    d = ws.dreams_dir
    runs, problems = [], []
    if not d.is_dir():
        return runs, problems
    for name, _sig, got in _RECORDS.memo(d).read(d, _RUN_FILE.match):
        if isinstance(got, OSError):
            problems.append(Problem(f"memory/dreams/{name}", f"unreadable run record ({got}); skipped"))
        elif isinstance(got, Problem):
            problems.append(got)
        else:
            runs.append(copy_record(got))
    runs.sort(key=run_order, reverse=True)
    _interrupted(ws, runs)
    return runs, problems


INTERRUPTED_OUTCOME = ("Interrupted: the process running it ended before it finished (Dreamdesk was closed or "
                       "killed). What it wrote before that is in the snapshots and the archive; the Dream cursor "
                       "did not move, so its entries are dreamed again.")


def _interrupted(ws: Workspace, runs: list[RunRecord]) -> None:
    """A record still "running" while nobody holds the workspace's job lock (every run holds it
    from start to end) was cut short: it reads as interrupted. The file is left as it is."""
    if not any(r.status == "running" for r in runs):
        return
    from ..disk.files import lock_is_held
    if lock_is_held(lock_path(ws.root, "job")):
        return
    for r in runs:
        if r.status == "running":
            r.status, r.outcome = "interrupted", INTERRUPTED_OUTCOME


def load_run(ws: Workspace, run_id: str) -> RunRecord:
    """One run record, or a WorkspaceError that names its file and says what is wrong in it."""
    if not _ID.match(run_id or ""):
        raise WorkspaceError(f"not a run id: {run_id!r}")
    try:
        rec = _read_record(ws.dreams_dir / f"{run_id}.json")
    except FileNotFoundError:
        raise WorkspaceError(f"no run {run_id} in this workspace") from None
    except (OSError, _Unreadable) as exc:
        raise WorkspaceError(f"run record memory/dreams/{run_id}.json is unreadable ({exc})") from None
    except RecordError as exc:
        raise WorkspaceError(f"run record memory/dreams/{run_id}.json is not usable: {exc}") from None
    _interrupted(ws, [rec])
    return rec


def size_refusals(refused: list[dict]) -> list[dict]:
    """The refused writes (a record's "refused") a size budget or the absolute cap refused (not the
    review pass's shrink-only rule); records from before the kind was kept count as size refusals."""
    return [r for r in refused if isinstance(r, dict) and r.get("kind", "budget") in ("budget", "cap")]


def pin_refusals(refused: list[dict]) -> list[dict]:
    """The writes refused because they would have removed or rewritten a pinned entry."""
    return [r for r in refused if isinstance(r, dict) and r.get("kind") == "pin"]


def counted_refusals(refused: list[dict]) -> list[dict]:
    """The refusals a run is counted by (size, pin and scope: a write the model wanted that never
    landed); the review pass's shrink-only rule is its own and is said apart."""
    closed = [r for r in refused if isinstance(r, dict) and r.get("kind") == "scope"]
    return size_refusals(refused) + pin_refusals(refused) + closed


class InFiles:
    """Whether a fact's text is in its file now: an entry, or (a fact recorded as one line before
    nested items joined their parent) consecutive lines of one. Each file is read once."""

    def __init__(self, ws: Workspace):
        self.ws = ws
        self.texts: dict[str, set[str]] = {}
        self.raw: dict[str, str] = {}
        self.unreadable: set[str] = set()      # there, but not read (so nothing is known of it)

    def _read(self, rel: str) -> None:
        state, _, why = self.ws.read_for_edit(rel)
        if why is not None and why.kind in (ReadOnlyKind.UNREADABLE, ReadOnlyKind.FOLDER):
            self.unreadable.add(rel)
        self.raw[rel] = normalise(state.text) if state.exists else ""
        self.texts[rel] = {e.text for e in split_entries(self.raw[rel])} if state.exists else set()

    def __call__(self, rel: str, text: str) -> bool:
        if rel not in self.texts:
            self._read(rel)
        return text in self.texts[rel] or contains_entry(self.raw[rel], text)


def resolve(ws: Workspace, record: RunRecord, runs: list[RunRecord] | None = None) -> dict:
    """The record as JSON with a status on every fact it references: current (still in the file),
    removed (a later run removed it: removed_in_run names it; or a person's edit), unavailable."""
    if runs is None:
        runs, _ = list_runs(ws)
    in_file = InFiles(ws)
    mine = run_order(record)
    later = sorted((r for r in runs if run_order(r) > mine and r.id != record.id), key=run_order)
    archived_by_hand = {(a.file, a.text) for a in read_archive(ws).records if a.reason in ("edit", "restore")}
    hist = {e.cursor: e for e in ws.history().entries}
    out = json.loads(json.dumps(record_json(record)))
    for fact in out.get("created", []):
        if fact.get("text") is None:
            fact["status"] = "unavailable"
        elif in_file(fact["file"], fact["text"]):
            fact["status"] = "current"
        else:
            by = next((r.id for r in later for x in r.removed
                       if x.get("file") == fact["file"] and x.get("text") == fact["text"]), None)
            if by:
                fact.update(status="removed", removed_in_run=by)
            elif (fact["file"], fact["text"]) in archived_by_hand:
                fact.update(status="removed", removed_in_run=None, removed_by="edit")
            else:
                fact["status"] = "unavailable"
        fact["source_entries"] = [
            {"cursor": c, "status": "current", "timestamp": hist[c].timestamp, "content": hist[c].content}
            if c in hist else {"cursor": c, "status": "unavailable", "timestamp": None, "content": None}
            for c in fact.get("sources", [])]
    for fact in out.get("removed", []):
        if fact.get("text") is None:
            fact["status"] = "unavailable"       # its text was deleted from the archive by the user
        else:
            fact["status"] = "current" if in_file(fact["file"], fact["text"]) else "removed"
    return out


_SLIM = ("id", "started", "finished", "trigger", "status", "outcome", "batch", "passes", "tokens", "model",
         "run_number", "cursor", "sizes", "writes", "refused", "review")     # numbers and ids, no fact text


def prune(ws: Workspace, now: datetime, days: int = RETENTION_DAYS) -> list[str]:
    """The retention of Honcho's dream history: past `days`, a record keeps only the facts it
    created that are still in their files, its counts and its numbers (pruned_at set), and a
    record with nothing left (none of its created facts is in its file any more) is deleted. A
    record pruned before is checked again: what it kept may be gone since. A record naming a
    file that cannot be read now is left for a later run. Returns the ids slimmed or deleted.
    Called only by a write job holding the workspace's job lock (a Dream run's end), never on
    a read: opening a workspace writes nothing."""
    runs, _ = list_runs(ws)
    now = now if now.tzinfo is not None else now.astimezone()        # (a naive time is this machine's)
    cutoff = now - timedelta(days=days)
    in_file = InFiles(ws)
    touched = []
    for rec in runs:
        started = from_iso(rec.started)
        if started is None or started >= cutoff:      # (a record with no time is never dated past it)
            continue
        created = [f for f in rec.created if isinstance(f.get("text"), str)]
        left = [f for f in created if in_file(f.get("file", ""), f["text"])]
        if any(f.get("file") in in_file.unreadable for f in created):
            continue
        if not left:
            (ws.dreams_dir / f"{rec.id}.json").unlink(missing_ok=True)
        elif not rec.pruned_at or len(left) < len(rec.created):
            save_record(ws, _slimmed(rec, left, now))
        else:
            continue
        touched.append(rec.id)
    return touched


def _slimmed(rec: RunRecord, left: list[dict], now: datetime) -> dict:
    """The record past the retention window: its numbers and counts, the created facts still
    there; the text of what it removed (the archive keeps that) and the peer card go."""
    keep = [{k: f[k] for k in ("file", "text", "kind", "confidence", "sources", "pass") if k in f} for f in left]
    full = record_json(rec)
    slim = {k: full[k] for k in _SLIM if k in full}
    if rec.pruned_at:           # counted when it was first slimmed: its lists are already short
        slim.update(created_count=rec.created_count, removed_count=rec.removed_count,
                    peer_card_updated=rec.peer_card_updated, pruned_at=rec.pruned_at)
    else:
        slim.update(created_count=len(rec.created), removed_count=len(rec.removed),
                    peer_card_updated=bool(rec.user_md), pruned_at=now.isoformat(timespec="seconds"))
    slim.update(created=keep, removed=[], user_md=None)
    return slim


def scrub_text(ws: Workspace, text: str, file: str) -> int:
    """Remove a deleted archive entry's text from every run record; its facts become unavailable."""
    runs, _ = list_runs(ws)
    changed = 0
    for rec in runs:
        scrubbed = _scrubbed(record_json(rec), text, file)
        if scrubbed is not None:
            save_record(ws, scrubbed)
            changed += 1
    return changed


def _scrubbed(rec: dict, text: str, file: str) -> dict | None:
    """A copy of the record's JSON without the text (None when it holds none of it). The JSON
    itself is left as it is: it shares what is inside it with list_runs' memo."""
    out: dict | None = None

    def own() -> dict:
        nonlocal out
        if out is None:
            out = copy.deepcopy(rec)
        return out

    for key in ("created", "removed"):
        for i, fact in enumerate(rec.get(key, [])):
            if fact.get("file") == file and fact.get("text") == text:
                own()[key][i].update(text=None, scrubbed=True)
            if fact.get("replaced_by") == text:
                own()[key][i]["replaced_by"] = None
    um = rec.get("user_md")
    if file == "USER.md" and isinstance(um, dict):
        for side in ("before", "after"):
            if isinstance(um.get(side), str) and text in um[side]:
                own()["user_md"][side] = um[side].replace(text, "[deleted]")
    return out


def _line_id(line: bytes) -> str | None:
    if b'"id"' not in line:
        return None
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return obj.get("id") if isinstance(obj, dict) and "text" in obj else None     # tombstones have no text


def delete_archive_entry(ws: Workspace, record_id: str) -> dict[str, Any]:
    """Erase an archived entry (the user's explicit deletion): drop its line from the archive
    file (atomically) and its text from every run record. Snapshots keep old file versions;
    that is said in the result. An entry known only from a commit is refused: git history stays."""
    from ..recovery.prunes import delete_refusal, own_record
    if refusal := delete_refusal(record_id, own_record(ws, record_id)):
        raise WorkspaceError(refusal)
    arc = read_archive(ws)
    rec = arc.get(record_id)
    if rec is None:
        raise WorkspaceError(f"no archive entry with id {record_id}")
    path = ws.root / rec.source
    with FileLock(lock_path(ws.root, "archive"), timeout=30, what="the archive lock"):
        # found again by id under the lock: a line number read before it may be stale. The line
        # becomes a tombstone (id and time, no text) so the id is never handed out again and a
        # run record that names it can never point at another entry.
        lines = path.read_bytes().split(b"\n")
        tomb = json.dumps({"id": record_id, "deleted_at": datetime.now().astimezone().isoformat(timespec="seconds")})
        hits = [i for i, ln in enumerate(lines) if _line_id(ln) == record_id]
        if not hits:
            raise WorkspaceError(f"archive entry {record_id} is no longer in {rec.source}")
        for i in hits:
            lines[i] = tomb.encode("utf-8")
        from ..disk.files import atomic_write_bytes
        atomic_write_bytes(path, b"\n".join(lines))
    n = scrub_text(ws, rec.text, rec.file)
    return {"id": record_id, "records_scrubbed": n,
            "note": "older snapshots still hold the files as they were; restore never needs this entry"}
