"""OpenClaw fixture homes copied where a test may read them, and state databases built by hand in
the shape OpenClaw 2026.9.6 writes (plugin_state_entries, cron_jobs), for the edge cases no real
build makes."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from pathlib import Path

from .openclaw_homes import FIXTURES, manifest  # noqa: F401  (the fixtures and their manifests: one place)

SCHEMA = """
CREATE TABLE plugin_state_entries (plugin_id TEXT NOT NULL, namespace TEXT NOT NULL, entry_key TEXT NOT NULL,
  value_json TEXT NOT NULL, created_at INTEGER NOT NULL, expires_at INTEGER,
  PRIMARY KEY (plugin_id, namespace, entry_key)) STRICT;
CREATE TABLE cron_jobs (store_key TEXT NOT NULL, job_id TEXT NOT NULL, declaration_key TEXT, owner_agent_id TEXT,
  name TEXT NOT NULL, description TEXT, enabled INTEGER NOT NULL, agent_id TEXT, payload_kind TEXT NOT NULL,
  job_json TEXT NOT NULL, grant_definition_revision TEXT, grant_definition_generation INTEGER,
  grant_definition_updated_at INTEGER, state_json TEXT NOT NULL DEFAULT '{}', runtime_updated_at_ms INTEGER,
  schedule_identity TEXT, sort_order INTEGER NOT NULL DEFAULT 0, updated_at INTEGER NOT NULL,
  PRIMARY KEY (store_key, job_id)) STRICT;
"""


def oracle(name: str, rel: str):
    return json.loads((FIXTURES / name / "oracle" / rel).read_text())


def copy_home(name: str, into: Path) -> Path:
    """The fixture home `name` copied under `into` as it is: its recorded paths stay the build's (a
    moved home, as the state reader must find it; openclaw_homes.copy_home makes them the copy's)."""
    home = into / name / ".openclaw"
    shutil.copytree(FIXTURES / name / "home", home)
    return home


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def keyed_row(workspace: str, namespace: str, key: str, value) -> tuple:
    """A memory-core row as writeMemoryCoreWorkspaceEntries stores it."""
    wk = sha(workspace)
    body = {"version": 1, "workspaceKey": wk, "workspaceDir": workspace, "key": key, "value": value}
    return ("memory-core", namespace, f"{wk}:{sha(key)}", json.dumps(body), 0, None)


def event_row(workspace: str, sequence: int, event: dict) -> tuple:
    value = {"kind": "event", "event": event, "recordedAt": 0, "sequence": sequence}
    return ("memory-core", "memory-host.events", f"{sha(workspace)[:24]}:event:1:{sequence:012d}", json.dumps(value),
            0, None)


def make_db(path: Path, rows: list[tuple] = (), jobs: list[dict] = (), wal: bool = False) -> sqlite3.Connection | None:
    """A state database with these rows and cron jobs ({id, name, job, state}). With `wal`, the
    database is in WAL mode and the open connection is returned with the rows still in the log
    (checkpointing off): the caller closes it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(path)
    con.executescript(SCHEMA)
    if wal:
        con.execute("PRAGMA journal_mode=WAL")
        con.execute("PRAGMA wal_autocheckpoint=0")
    con.executemany("INSERT INTO plugin_state_entries VALUES (?, ?, ?, ?, ?, ?)", list(rows))
    for n, j in enumerate(jobs):
        con.execute("INSERT INTO cron_jobs (store_key, job_id, declaration_key, name, description, enabled, "
                    "payload_kind, job_json, state_json, sort_order, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                    ("/x/cron/jobs.json", j["id"], j.get("declarationKey"), j["name"], j.get("description"),
                     int(j.get("enabled", True)), "agentTurn", json.dumps(j), json.dumps(j.get("state", {})), n, 0))
    con.commit()
    if wal:
        return con
    con.close()
    return None


def grow_recalls(db: Path, count: int) -> None:
    """`count` more short-term-recall rows shaped as the home's own first one (its workspace key
    kept): a store grown to a size only months of use make."""
    con = sqlite3.connect(db)
    try:
        key, value = con.execute("SELECT entry_key, value_json FROM plugin_state_entries "
                                 "WHERE namespace = 'short-term-recall' LIMIT 1").fetchone()
        template, wk = json.loads(value), key.split(":", 1)[0]
        rows = []
        for i in range(count):
            rec = dict(template["value"], key=f"memory:memory/n{i}.md:1:5", recallCount=1 + i % 7,
                       totalScore=0.5 + (i % 100) / 100, snippet=f"note {i}: {template['value']['snippet']}")
            rows.append(("memory-core", "short-term-recall", f"{wk}:bench{i:06d}",
                         json.dumps(dict(template, key=rec["key"], value=rec)), 0, None))
        with con:
            con.executemany("INSERT OR REPLACE INTO plugin_state_entries (plugin_id, namespace, entry_key, "
                            "value_json, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)", rows)
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        con.close()


def gone_pid() -> int:
    """The pid of a process that has ended (a child run and waited for): a lock's owner that is gone."""
    import subprocess
    import sys
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def lock_row(con: sqlite3.Connection, home: Path, age_ms: int, pid: int | None = None) -> None:
    """memory-core's workspace lock as OpenClaw's writer holds it (a row of its state database),
    taken `age_ms` ago by process `pid` (this test's own, alive, unless given), written through `con`."""
    import os
    import time
    from dreamdesk.engine.assistants.openclaw_state import workspace_key
    pid = os.getpid() if pid is None else pid
    con.execute("INSERT OR REPLACE INTO plugin_state_entries (plugin_id, namespace, entry_key, value_json, "
                "created_at, expires_at) VALUES ('memory-core', 'short-term-locks', ?, ?, 0, NULL)",
                (workspace_key(home / "workspace"), json.dumps({"owner": f"{pid}:0c3f", "acquiredAt":
                                                                int(time.time() * 1000) - age_ms})))


def hold_lock(home: Path, age_ms: int, pid: int | None = None) -> None:
    """That lock row, written in a transaction of its own."""
    con = sqlite3.connect(home / "state" / "openclaw.sqlite")
    with con:
        lock_row(con, home, age_ms, pid)
    con.close()
