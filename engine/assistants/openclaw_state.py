"""OpenClaw's machine state for one workspace, read from its SQLite database without writing a byte.

For the caller: call `read_state(db, workspace, also=…)` once per read of a home (the adapter
knows the database, `<state folder>/state/openclaw.sqlite`, and the workspace; `also` takes the
other names the workspace had, such as the absolute path openclaw.json records) and hand the
`OpenClawState` to openclaw_runs, openclaw_archive and openclaw_next. Its `problems` say in words
what could not be read; its `notes` how the workspace's rows were found.

What is read (OpenClaw 2026.9.6, `dreaming-state-*.mjs`, `event-store-*.mjs`, the cron store
`row-codec-*.mjs`): table `plugin_state_entries`, memory-core's rows, each keyed
`sha256(workspace path) + ":" + sha256(key)` with `{version, workspaceKey, workspaceDir, key,
value}`: the MEMORY.md pre-images (`dreaming-memory-backups`), the recall store
(`short-term-recall`, `short-term-meta`), the phase signals (`short-term-phase-signals`), the
workspace lock (`short-term-locks`, keyed by the workspace key alone), and the memory host events
(`memory-host.events`, keyed `sha256(path)[:24]:event:…`); table `cron_jobs` (every job; the
dreaming job among them).

Never written: a database with no write-ahead log beside it is opened `mode=ro&immutable=1`
(plain `mode=ro` creates `-wal`/`-shm` beside a WAL database); one whose `-wal` holds pages
OpenClaw has not checkpointed yet is copied with its log into a private temporary folder and the
copy is read, so what OpenClaw wrote last is seen and nothing appears beside the original.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

import msgspec

from ..disk.sqlite_read import Locked, Unreadable, read_sqlite
from ..disk.stat_memo import gc_paused
from .openclaw_lease import left_behind
from .openclaw_recall import Recall, recall_of

PLUGIN = "memory-core"
BACKUPS, RECALL, META, PHASE, LOCKS = ("dreaming-memory-backups", "short-term-recall", "short-term-meta",
                                       "short-term-phase-signals", "short-term-locks")
EVENTS = "memory-host.events"
KEYED = (BACKUPS, RECALL, META, PHASE)          # rows keyed by the workspace key + ":" + sha256(key)
EVENT_PREFIX = 24                               # event rows are keyed by sha256(path)[:24]


@dataclass(frozen=True, slots=True)
class PreImage:
    """A MEMORY.md OpenClaw saved before a consolidating sweep rewrote it."""
    key: str                   # "<createdAt>:<contentHash[:12]>"
    created_at: str            # ISO time: the sweep's own time
    content: str
    content_hash: str
    hash_ok: bool              # sha256(content) is the hash OpenClaw recorded

    def to_json(self) -> dict:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class HostEvent:
    """One of memory-core's events: recall recorded/skipped, promotion applied, dream phase completed."""
    sequence: int
    type: str
    timestamp: str
    data: dict

    def to_json(self) -> dict:
        return {"sequence": self.sequence, "type": self.type, "timestamp": self.timestamp, "data": self.data}


@dataclass(frozen=True, slots=True)
class CronJob:
    id: str
    name: str
    enabled: bool
    declaration_key: str | None
    description: str | None
    schedule: dict             # {"kind": "cron", "expr", "tz"?} | {"kind": "every", …} | {"kind": "at", …}
    payload: dict
    state: dict                # the scheduler's own: nextRunAtMs, lastRunAtMs, lastRunStatus …

    def to_json(self) -> dict:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class WorkspaceLock:
    """memory-core's lock on the workspace's memory: a row while a writer holds it (or left it)."""
    owner: str                 # "<pid>:<uuid>"
    acquired_at_ms: int
    owner_start: int | None = None     # the owner process's start time as the lock recorded it

    def stale(self, now_ms: int) -> bool:
        """Left behind, as OpenClaw judges it before taking it over (openclaw_lease)."""
        return left_behind(self.owner, self.acquired_at_ms, self.owner_start, now_ms)

    def to_json(self) -> dict:
        return {"owner": self.owner, "acquired_at_ms": self.acquired_at_ms, "owner_start": self.owner_start}


@dataclass(frozen=True, slots=True)
class OpenClawState:
    db: Path
    found: bool                          # the database exists and could be read
    workspace_key: str | None            # sha256 of the workspace path its rows carry
    recorded_workspace: str | None       # the path those rows name (another one when the home moved)
    preimages: tuple[PreImage, ...] = ()          # oldest first
    recalls: tuple[Recall, ...] = ()              # the recall store's entries (the fields ranking reads)
    recall_updated_at: str | None = None
    phase_signals: tuple[dict, ...] = ()
    lock: WorkspaceLock | None = None
    events: tuple[HostEvent, ...] = ()            # oldest first
    cron_jobs: tuple[CronJob, ...] = ()
    notes: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()

    def to_json(self) -> dict:
        return {"db": str(self.db), "found": self.found, "workspace_key": self.workspace_key,
                "recorded_workspace": self.recorded_workspace,
                "preimages": [p.to_json() for p in self.preimages], "recalls": [r.to_json() for r in self.recalls],
                "recall_updated_at": self.recall_updated_at, "phase_signals": list(self.phase_signals),
                "lock": self.lock.to_json() if self.lock else None,
                "events": [e.to_json() for e in self.events], "cron_jobs": [j.to_json() for j in self.cron_jobs],
                "notes": list(self.notes), "problems": list(self.problems)}


def workspace_key(path: Path | str) -> str:
    """memoryCoreWorkspaceStateKey: sha256 of the absolute path (path.resolve: no symlink followed;
    forward slashes, and lower case on Windows)."""
    resolved = os.path.abspath(str(path)).replace("\\", "/")
    return hashlib.sha256((resolved.lower() if os.name == "nt" else resolved).encode()).hexdigest()


def read_state(db: Path, workspace: Path, also: Sequence[Path | str] = (),
               siblings: Sequence[Path | str] = ()) -> OpenClawState:
    """What the state database holds for `workspace` (see the module docstring). `siblings`: the
    workspaces of the home's other agents, whose rows are never read as this one's. A missing,
    unreadable or broken database is a problem in words and an empty state."""
    db = Path(db)
    if not db.is_file():
        return OpenClawState(db, False, None, None, notes=(
            f"no state database at {db}: OpenClaw 2026.6.5 and later keep their dreaming state there; "
            "this home has none yet (no recall, no sweep)",))
    try:
        rows, jobs = _read_rows(db)
    except (Unreadable, sqlite3.Error, OSError) as e:
        return OpenClawState(db, False, None, None, problems=(_in_words(db, e),))
    return _build(db, rows, jobs, [workspace, *also], siblings)


def _in_words(db: Path, e: Exception) -> str:
    text = str(e) or type(e).__name__
    if isinstance(e, sqlite3.DatabaseError) and ("not a database" in text or "malformed" in text):
        return (f"{db.name} is not a readable SQLite database ({text}): OpenClaw's recall store, pre-images "
                "and dreaming job are not shown")
    if isinstance(e, Unreadable) and text.startswith("it is"):     # not SQLite, or damaged
        return (f"{db.name} is not a readable SQLite database ({text}): OpenClaw's recall store, pre-images "
                "and dreaming job are not shown")
    if isinstance(e, sqlite3.OperationalError) and "locked" in text:
        return f"{db.name} is locked by another program ({text}): read it again in a moment"
    return f"{db.name} could not be read ({text}): OpenClaw's dreaming state is not shown"


def held_lock(db: Path, workspace: Path, now_ms: int) -> WorkspaceLock | None:
    """memory-core's lock on this workspace while a live writer holds it (a stale one, which
    OpenClaw itself takes over, is None): one row read, nothing written. A database another
    program holds locked past the wait raises Locked: whether the lock is held cannot be told
    then. Any other unreadable one (damaged, another program's, a schema without the row's
    columns) holds no lock Dreamdesk can see: OpenClaw cannot take its lock there either."""
    key = workspace_key(workspace)

    def query(con: sqlite3.Connection):
        return con.execute("SELECT value_json FROM plugin_state_entries WHERE plugin_id = ? AND namespace = ? "
                           "AND entry_key = ?", (PLUGIN, LOCKS, key)).fetchone()
    try:
        row = read_sqlite(db, query) if Path(db).is_file() else None
        value = _json(row[0]) if row else None
    except Locked:
        raise
    except (Unreadable, sqlite3.Error, OSError, ValueError, msgspec.DecodeError):
        return None
    if not isinstance(value, dict) or not isinstance(value.get("owner"), str) or type(value.get("acquiredAt")) is not int:
        return None
    lock = _lock_of(value)
    return None if lock.stale(now_ms) else lock


# -- reading without writing (engine/disk/sqlite_read.py: immutable, or a private copy while a
# -wal holds rows a running Gateway has not checkpointed) ------------------------------------------
def _read_rows(db: Path) -> tuple[list[tuple], list[tuple]]:
    got = read_sqlite(db, _query)
    return got if got is not None else ([], [])


def _query(con: sqlite3.Connection) -> tuple[list[tuple], list[tuple]]:
    rows = con.execute(
        "SELECT namespace, entry_key, value_json FROM plugin_state_entries WHERE plugin_id = ? "
        f"AND namespace IN ({','.join('?' * (len(KEYED) + 2))}) ORDER BY namespace, entry_key",
        (PLUGIN, *KEYED, LOCKS, EVENTS)).fetchall()
    has_cron = con.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'cron_jobs'").fetchone()
    jobs = con.execute("SELECT job_id, name, enabled, declaration_key, description, job_json, state_json "
                       "FROM cron_jobs ORDER BY sort_order, job_id").fetchall() if has_cron else []
    return rows, jobs


# -- whose rows ------------------------------------------------------------------------------------
def _build(db: Path, rows: list[tuple], jobs: list[tuple], names: list[Path | str],
           siblings: Sequence[Path | str] = ()) -> OpenClawState:
    keyed, problems = _decode(rows)
    present = {}
    for ns in KEYED:
        present.update(_owners(keyed[ns]))
    wanted = _candidates(names)
    others = set(_candidates(siblings)) - set(wanted)
    present = {k: v for k, v in present.items() if k not in others}
    key, notes = _choose(present, wanted, problems)
    if key is not None and notes and _nearer_a_sibling(present[key], names[0], siblings):
        key, notes = None, []        # a moved roster home: those rows look like another agent's
    recorded = present.get(key) if key else None
    mine = {ns: _of(keyed[ns], key) for ns in KEYED} if key else {}
    prefixes = {k[:EVENT_PREFIX] for k in wanted} | ({workspace_key(recorded)[:EVENT_PREFIX]} if recorded else set())
    return OpenClawState(
        db, True, key, recorded, _preimages(mine.get(BACKUPS, []), problems),
        tuple(v.value for v in mine.get(RECALL, []) if v.value is not None),
        _meta(mine.get(META, []), "recall"),
        tuple(v["value"] for v in mine.get(PHASE, []) if isinstance(v.get("value"), dict)),
        _lock(keyed, key), _events(keyed[EVENTS], prefixes, problems), _jobs(jobs, problems),
        tuple(notes), tuple(problems))


def _decode(rows: list[tuple]) -> tuple[dict[str, list], list[str]]:
    """Each namespace's values (the lock and event rows with their entry key under "_key").
    The collector is paused meanwhile: 10,000 recalls are 10,000 new objects kept, which it would
    walk again and again while they are made (measured: half the time of the decode), as msgspec's
    documentation advises for large decodes."""
    with gc_paused():
        return _decode_rows(rows)


class RecallRow(msgspec.Struct, rename="camel", gc=False):
    """A short-term-recall row: whose it is and the entry (None: the row holds no entry object)."""
    workspace_key: Any = None
    workspace_dir: Any = None
    value: Recall | None = None


_RECALL_ROW = msgspec.json.Decoder(RecallRow)


def _decode_rows(rows: list[tuple]) -> tuple[dict[str, list], list[str]]:
    """Each namespace's values: dicts, and RecallRow structs for the recall store."""
    out: dict[str, list] = {ns: [] for ns in (*KEYED, LOCKS, EVENTS)}
    bad = 0
    for ns, entry_key, raw in rows:
        try:
            value = _recall_row(raw) if ns == RECALL else _json(raw)
        except (TypeError, ValueError, msgspec.DecodeError):
            value = None
        if isinstance(value, dict) and ns in (LOCKS, EVENTS):
            value = {**value, "_key": entry_key}
        elif not isinstance(value, (dict, RecallRow)):
            bad += 1
            continue
        out[ns].append(value)
    problems = [f"{bad} of memory-core's rows hold no JSON object; they are skipped"] if bad else []
    return out, problems


def _json(raw):
    """A row's JSON (msgspec: several times json.loads' speed on a store of 10,000 recalls)."""
    return msgspec.json.decode(raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw)


def _recall_row(raw) -> RecallRow | None:
    """A recall row, typed as it is decoded; one whose shape is odd (its entry no object) is read
    loosely, as every other row is."""
    try:
        return _RECALL_ROW.decode(raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw)
    except msgspec.ValidationError:
        loose = _json(raw)
    if not isinstance(loose, dict):
        return None
    entry = loose.get("value")
    return RecallRow(loose.get("workspaceKey"), loose.get("workspaceDir"),
                     recall_of(entry) if isinstance(entry, dict) else None)


def _owners(values: list) -> dict:
    """workspace key -> the path it names, of rows that carry a key."""
    if values and isinstance(values[0], RecallRow):
        return {v.workspace_key: v.workspace_dir for v in values if v.workspace_key is not None}
    return {v["workspaceKey"]: v.get("workspaceDir") for v in values if "workspaceKey" in v}


def _of(values: list, key: str) -> list:
    if values and isinstance(values[0], RecallRow):
        return [v for v in values if v.workspace_key == key]
    return [v for v in values if v.get("workspaceKey") == key]


def _candidates(names: Iterable[Path | str]) -> dict[str, str]:
    """workspace key -> the name it is the key of: each name as given and with symlinks resolved."""
    out: dict[str, str] = {}
    for n in names:
        for form in (os.path.abspath(str(n)), os.path.realpath(str(n))):
            out.setdefault(workspace_key(form), form)
    return out


def _choose(present: dict[str, str | None], wanted: dict[str, str], problems: list[str]) -> tuple[str | None, list[str]]:
    hit = next((k for k in wanted if k in present), None)
    if hit is not None or not present:
        return hit, []
    if len(present) == 1:
        key, recorded = next(iter(present.items()))
        return key, [f"the state database names this workspace {recorded}, not where it is now: the home was moved "
                     "or copied, and the only workspace's rows in it are read as this one's"]
    problems.append(f"the state database holds the rows of {len(present)} workspaces ("
                    + ", ".join(sorted(str(p) for p in present.values())) + "), none of them this one; none is read")
    return None, []


def _nearer_a_sibling(recorded: str | None, here: Path | str, siblings: Sequence[Path | str]) -> bool:
    """Whether the path the rows name ends more like another agent's workspace than this one's
    (the same trailing folder names: `workspace` vs `workspace-work`)."""
    def tail(a, b) -> int:
        n, x, y = 0, Path(str(a)).parts[::-1], Path(str(b)).parts[::-1]
        while n < min(len(x), len(y)) and x[n] == y[n]:
            n += 1
        return n
    if not recorded:
        return False
    mine = tail(recorded, here)
    return any(tail(recorded, s) >= mine for s in siblings)


def _meta(values: list[dict], kind: str) -> str | None:
    for v in values:
        if v.get("key") == kind and isinstance(v.get("value"), dict):
            at = v["value"].get("updatedAt")
            return at if isinstance(at, str) else None
    return None


def _preimages(values: list[dict], problems: list[str]) -> tuple[PreImage, ...]:
    out = []
    for v in values:
        val = _dict(v.get("value"))
        content, created = val.get("content"), val.get("createdAt")
        if not isinstance(content, str) or not isinstance(created, str):
            problems.append(f"a MEMORY.md pre-image ({v.get('key')}) has no content or time; skipped")
            continue
        recorded = str(val.get("contentHash") or "")
        ok = hashlib.sha256(content.encode("utf-8", "surrogatepass")).hexdigest() == recorded
        out.append(PreImage(str(v.get("key") or created), created, content, recorded, ok))
    return tuple(sorted(out, key=lambda p: p.created_at))


def _lock_of(value: dict) -> WorkspaceLock:
    start = value.get("ownerStartTime")
    return WorkspaceLock(value["owner"], value["acquiredAt"], start if type(start) is int else None)


def _lock(keyed: dict[str, list], key: str | None) -> WorkspaceLock | None:
    for v in keyed[LOCKS]:
        if key and v.get("_key") == key and isinstance(v.get("owner"), str) and isinstance(v.get("acquiredAt"), int):
            return _lock_of(v)
    return None


def _events(values: list[dict], prefixes: set[str], problems: list[str]) -> tuple[HostEvent, ...]:
    ours = [v for v in values if str(v.get("_key", "")).split(":", 1)[0] in prefixes]
    if not ours:
        others = {str(v.get("_key", "")).split(":", 1)[0] for v in values}
        ours = values if len(others) == 1 else []
    out = []
    for v in ours:
        ev = v.get("event")
        if v.get("kind") != "event" or not isinstance(ev, dict) or not isinstance(ev.get("type"), str):
            continue
        seq = v.get("sequence")
        out.append(HostEvent(seq if isinstance(seq, int) else 0, ev["type"], str(ev.get("timestamp") or ""), ev))
    return tuple(sorted(out, key=lambda e: e.sequence))


def _jobs(rows: list[tuple], problems: list[str]) -> tuple[CronJob, ...]:
    out = []
    for job_id, name, enabled, declaration, description, job_json, state_json in rows:
        job, state = _obj(job_json), _obj(state_json)
        if job is None:
            problems.append(f"the cron job {job_id} ({name}) holds no readable JSON; skipped")
            continue
        out.append(CronJob(str(job_id), str(name), bool(enabled), declaration, description,
                           _dict(job.get("schedule")), _dict(job.get("payload")),
                           state or _dict(job.get("state"))))
    return tuple(out)


def _obj(raw) -> dict | None:
    try:
        value = json.loads(raw) if isinstance(raw, str) else None
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _dict(value) -> dict:
    return value if isinstance(value, dict) else {}
