"""Run records in memory/dreams/<run id>.json: what each Dream run changed, with provenance,
fact status across runs, 30-day retention, and scrubbing of deleted archive text."""

from __future__ import annotations

import copy
import json
import re
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from ..archive import read_archive
from ..entries import contains_entry, split_entries
from ..files import FileLock, atomic_write_text, read_bytes
from ..problems import Problem, WorkspaceError
from ..workspace import Workspace
from ..state import lock_path
from ..stat_memo import MemoShelf
from ..textform import normalise

RETENTION_DAYS = 30
_RUN_FILE = re.compile(r"^r-\d{8}-\d{6}(-\d+)?\.json$")


def dreams_dir(ws: Workspace) -> Path:
    return ws.memory_dir / "dreams"


def new_run_id(ws: Workspace, now: datetime) -> str:
    base = "r-" + now.strftime("%Y%m%d-%H%M%S")
    rid, n = base, 1
    while (dreams_dir(ws) / f"{rid}.json").exists():
        n += 1
        rid = f"{base}-{n}"
    return rid


_ID = re.compile(r"^r-\d{8}-\d{6}(-\d+)?$")


def run_order(rec: dict) -> tuple:
    """The real sequence of runs: start time to the second, then the run number Dream counts,
    then the same-second suffix of the id (r-…-2 after r-…), never the text of the id alone."""
    rid = rec.get("id") or ""
    m = re.search(r"-(\d+)$", rid[len("r-00000000-000000"):]) if len(rid) > 17 else None
    number = rec.get("run_number")
    return (rec.get("started") or "", number if isinstance(number, int) and not isinstance(number, bool) else 0,
            int(m.group(1)) if m else 1, rid)
_LIST_KEYS = ("created", "removed", "writes", "refused", "passes")


def save_record(ws: Workspace, record: dict) -> None:
    rid = record.get("id")
    if not isinstance(rid, str) or not _ID.match(rid):
        raise WorkspaceError(f"refusing to write a run record with the id {rid!r}")
    from ..redact import scrub
    atomic_write_text(dreams_dir(ws) / f"{rid}.json", scrub(json.dumps(record, indent=2, ensure_ascii=False)) + "\n")


def _valid(rec, stem: str) -> str | None:
    """Why a run record cannot be used (None when it can). The id must be the file's own name,
    so nothing read from a record can steer a later write elsewhere."""
    if not isinstance(rec, dict):
        return "not a JSON object"
    if rec.get("id") != stem:
        return f"its id {rec.get('id')!r} is not its file name"
    for key in _LIST_KEYS:
        v = rec.get(key, [])
        if not (isinstance(v, list) and set(map(type, v)) <= _DICT):
            return f"{key} must be a list of objects"
    for key in ("started", "finished", "status", "trigger", "outcome"):
        if rec.get(key) is not None and not isinstance(rec.get(key), str):
            return f"{key} must be a string"
    for key in ("tokens", "batch", "user_md", "sizes", "review", "cursor"):
        if rec.get(key) is not None and not isinstance(rec.get(key), dict):
            return f"{key} must be an object"
    for key in _ITEM_FIELDS:
        items = rec.get(key) or []
        if not _items_fit(key, items):
            return _first_misfit(key, items)
    for key, fields in _OBJECT_FIELDS.items():
        obj = rec.get(key)
        if isinstance(obj, dict):
            for name, kinds in fields.items():
                if obj.get(name) is not None and not _is(obj[name], kinds):
                    return f"{key}.{name} is not {_KIND_WORDS[kinds]}"
    for name, size in (rec.get("sizes") or {}).items():
        if not (isinstance(size, dict) and all(_is(size.get(k), "int") for k in ("before", "after"))
                and (size.get("budget") is None or _is(size["budget"], "int"))):
            return f"sizes[{name!r}] must hold whole-number before and after sizes"
    return None


def _items_fit(key: str, items: list[dict]) -> bool:
    """Whether every entry of the list holds its fields as _ITEM_FIELDS says: the types of each
    field over the whole list as one set (a record holds thousands of entries and cursors)."""
    for name, allowed in _ALLOWED[key]:
        if not {type(item.get(name, _ABSENT)) for item in items} <= allowed:
            return False
    return key != "created" or {type(c) for item in items for c in item.get("sources", ())} <= _INT


def _first_misfit(key: str, items: list[dict]) -> str:
    """What is wrong with the first entry that does not fit, in words."""
    for i, item in enumerate(items):
        for name, (kinds, required) in _ITEM_FIELDS[key].items():
            if name not in item:
                if required:
                    return f"{key}[{i}] lacks {name}"
                continue
            if type(item[name]) not in _TYPES[kinds]:
                return f"{key}[{i}].{name} is not {_KIND_WORDS[kinds]}"
        if key == "created" and not set(map(type, item.get("sources", ()))) <= _INT:
            return f"{key}[{i}].sources must be history cursors (whole numbers)"
    return f"{key} holds an entry of another shape"        # (_items_fit and this read alike)


# What the views read from each list entry and object of a record: (kind, required). Checked so a
# record edited by hand or half written reads as invalid, in words, never as a crash later. A
# created fact's text is null once its archive entry was deleted (scrub_text): the run stays listed.
_ITEM_FIELDS = {
    "created": {"file": ("str", True), "text": ("str?", True), "sources": ("list", False),
                "kind": ("str?", False), "confidence": ("str?", False)},
    "removed": {"file": ("str", True), "text": ("str?", False), "archive_id": ("str?", False),
                "replaced_by": ("str?", False)},
    "refused": {"file": ("str", True), "size": ("int", True), "budget": ("int?", False), "kind": ("str?", False)},
    "passes": {"name": ("str", True), "iterations": ("int", False), "ended": ("str?", False)},
    "writes": {"file": ("str", False)},
}
_OBJECT_FIELDS = {
    "batch": {"first": "int", "last": "int", "count": "int"},
    "user_md": {"before": "str", "after": "str"},
    "cursor": {"before": "int", "after": "int"},
}
_KIND_WORDS = {"str": "text", "str?": "text or null", "int": "a whole number", "int?": "a whole number or null",
               "list": "a list"}


# A record is read by json.loads, so each value is exactly one of its types (a bool is no int).
_TYPES = {"str": frozenset({str}), "str?": frozenset({str, type(None)}), "int": frozenset({int}),
          "int?": frozenset({int, type(None)}), "list": frozenset({list})}
_DICT, _INT = frozenset({dict}), _TYPES["int"]       # (a set of the items' types: C speed)
_ABSENT = type("Absent", (), {})()                    # a field an entry leaves out
# each list's fields with the types they may have (a field that may be left out: Absent too)
_ALLOWED = {key: tuple((name, _TYPES[kind] | ({type(_ABSENT)} if not required else set()))
                       for name, (kind, required) in fields.items()) for key, fields in _ITEM_FIELDS.items()}


def _is(value, kind: str) -> bool:
    return type(value) in _TYPES[kind]


def _parse_record(path: Path) -> dict | Problem:
    """A run record as listed (its lists filled in), or why it is skipped; an OSError is raised."""
    display = f"memory/dreams/{path.name}"
    try:
        rec = json.loads(read_bytes(path).decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        return Problem(display, f"unreadable run record ({exc}); skipped")
    why = _valid(rec, path.stem)
    if why:
        return Problem(display, f"not a usable run record: {why}; skipped")
    for key in _LIST_KEYS:
        rec[key] = rec.get(key) or []
    return rec


_RECORDS = MemoShelf(_parse_record)


def records_parsed(ws: Workspace) -> int:
    """How many run record files this process has parsed for ws (structural tests count them)."""
    return _RECORDS.memo(dreams_dir(ws)).parsed


def list_runs(ws: Workspace) -> tuple[list[dict], list[Problem]]:
    """All run records, newest first. Only files new or changed since the last listing are parsed
    (engine/stat_memo.py). Each record is a copy of its top level, for the caller to change;
    the lists and objects inside are shared with the memo: copy one before changing it."""
    d = dreams_dir(ws)
    runs, problems = [], []
    if not d.is_dir():
        return runs, problems
    for name, _sig, got in _RECORDS.memo(d).read(d, _RUN_FILE.match):
        if isinstance(got, OSError):
            problems.append(Problem(f"memory/dreams/{name}", f"unreadable run record ({got}); skipped"))
        elif isinstance(got, Problem):
            problems.append(got)
        else:
            runs.append(dict(got))
    runs.sort(key=run_order, reverse=True)
    _interrupted(ws, runs)
    return runs, problems


INTERRUPTED_OUTCOME = ("Interrupted: the process running it ended before it finished (Dreamdesk was closed or "
                       "killed). What it wrote before that is in the snapshots and the archive; the Dream cursor "
                       "did not move, so its entries are dreamed again.")


def _interrupted(ws: Workspace, runs: list[dict]) -> None:
    """A record still "running" while nobody holds the workspace's job lock (every run holds it
    from start to end) was cut short: it reads as interrupted. The file is left as it is."""
    if not any(r.get("status") == "running" for r in runs):
        return
    from ..files import lock_is_held
    from ..state import lock_path
    if lock_is_held(lock_path(ws.root, "job")):
        return
    for r in runs:
        if r.get("status") == "running":
            r.update(status="interrupted", outcome=INTERRUPTED_OUTCOME)


def load_run(ws: Workspace, run_id: str) -> dict:
    if not _ID.match(run_id or ""):
        raise WorkspaceError(f"not a run id: {run_id!r}")
    p = dreams_dir(ws) / f"{run_id}.json"
    try:
        rec = json.loads(read_bytes(p).decode("utf-8"))
    except FileNotFoundError:
        raise WorkspaceError(f"no run {run_id} in this workspace") from None
    except (OSError, ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise WorkspaceError(f"run record {run_id} is unreadable ({exc})") from None
    why = _valid(rec, run_id)
    if why:
        raise WorkspaceError(f"run record {run_id} is not usable: {why}")
    for key in _LIST_KEYS:
        rec[key] = rec.get(key) or []
    _interrupted(ws, [rec])
    return rec


def size_refusals(record: dict) -> list[dict]:
    """The refused writes a size budget or the absolute cap refused (not the review pass's
    shrink-only rule); records from before the kind was kept count as size refusals."""
    return [r for r in record.get("refused") or [] if isinstance(r, dict) and r.get("kind", "budget") in ("budget", "cap")]


def pin_refusals(record: dict) -> list[dict]:
    """The writes refused because they would have removed or rewritten a pinned entry."""
    return [r for r in record.get("refused") or [] if isinstance(r, dict) and r.get("kind") == "pin"]


def counted_refusals(record: dict) -> list[dict]:
    """The refusals a run is counted by (size and pin: a write the model wanted that never
    landed); the review pass's shrink-only rule is its own and is said apart."""
    return size_refusals(record) + pin_refusals(record)


def resolve(ws: Workspace, record: dict, runs: list[dict] | None = None) -> dict:
    """The record with a status on every fact it references: current (still in the file),
    removed (a later run removed it: removed_in_run names it; or a person's edit), unavailable."""
    if runs is None:
        runs, _ = list_runs(ws)
    texts: dict[str, set[str]] = {}
    raw: dict[str, str] = {}

    def entries_of(rel: str) -> set[str]:
        if rel not in texts:
            state, _ = ws.read_file(rel)
            raw[rel] = normalise(state.text) if state.exists else ""
            texts[rel] = {e.text for e in split_entries(raw[rel])} if state.exists else set()
        return texts[rel]

    def in_file(rel: str, text: str) -> bool:
        # an entry, or (a fact recorded as one line before nested items joined their parent)
        # consecutive lines of one
        return text in entries_of(rel) or contains_entry(raw[rel], text)

    mine = run_order(record)
    later = sorted((r for r in runs if run_order(r) > mine and r["id"] != record["id"]), key=run_order)
    archived_by_hand = {(a.file, a.text) for a in read_archive(ws).records if a.reason in ("edit", "restore")}
    hist = {e.cursor: e for e in ws.history().entries}
    out = json.loads(json.dumps(record))
    for fact in out.get("created", []):
        if fact.get("text") is None:
            fact["status"] = "unavailable"
        elif in_file(fact["file"], fact["text"]):
            fact["status"] = "current"
        else:
            by = next((r["id"] for r in later for x in r.get("removed", [])
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


def prune(ws: Workspace, now: datetime, days: int = RETENTION_DAYS) -> list[str]:
    """After `days`, a record keeps only its created facts that still exist, its counts and its
    numbers (pruned_at set); no record is deleted. Returns the ids touched."""
    runs, _ = list_runs(ws)
    cutoff = (now - timedelta(days=days)).isoformat(timespec="seconds")
    touched = []
    for rec in runs:
        if rec.get("pruned_at") or (rec.get("started") or "") >= cutoff:
            continue
        resolved = resolve(ws, rec, runs)
        keep = [{k: f[k] for k in ("file", "text", "kind", "confidence", "sources", "pass") if k in f}
                for f in resolved.get("created", []) if f.get("status") == "current"]
        # Every record stays (slimmed): the run happened, and its counts are part of the history
        # even when none of its facts is left. What goes is the text of facts no longer there.
        counts = {"created_count": len(rec.get("created", [])), "removed_count": len(rec.get("removed", [])),
                  "peer_card_updated": bool(rec.get("user_md"))}
        slim = {k: rec[k] for k in ("id", "started", "finished", "trigger", "status", "outcome", "batch",
                                    "passes", "tokens", "model", "run_number", "cursor", "sizes", "writes",
                                    "refused", "review") if k in rec}   # numbers and ids, no fact text
        slim.update(counts, created=keep, removed=[], user_md=None, pruned_at=now.isoformat(timespec="seconds"))
        save_record(ws, slim)
        touched.append(rec["id"])
    return touched


def scrub_text(ws: Workspace, text: str, file: str) -> int:
    """Remove a deleted archive entry's text from every run record; its facts become unavailable."""
    runs, _ = list_runs(ws)
    changed = 0
    for rec in runs:
        scrubbed = _scrubbed(rec, text, file)
        if scrubbed is not None:
            save_record(ws, scrubbed)
            changed += 1
    return changed


def _scrubbed(rec: dict, text: str, file: str) -> dict | None:
    """A copy of the record without the text (None when it holds none of it). The record itself
    is left as it is: list_runs shares what is inside it with its memo."""
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
    from ..prunes import delete_refusal
    if refusal := delete_refusal(record_id):
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
        from ..files import atomic_write_bytes
        atomic_write_bytes(path, b"\n".join(lines))
    n = scrub_text(ws, rec.text, rec.file)
    return {"id": record_id, "records_scrubbed": n,
            "note": "older snapshots still hold the files as they were; restore never needs this entry"}
