"""nanobot's token-usage store read by Dreamdesk (engine/assistants/nanobot_usage.py) on
stores laid out as nanobot 0.3.5 writes them (table llm_calls, WAL; the interop suite reads
one nanobot's own code wrote): never created or written, one sentence when it cannot be read,
a plain "none" when nanobot recorded nothing for its Dream."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from datetime import datetime, timedelta, timezone

import pytest

from conftest import tree_state
from dreamdesk.engine.assistants.nanobot_dreams import DreamTranscript
from dreamdesk.engine.assistants.nanobot_usage import NONE_MESSAGE, read_dream_usage, usage_by_day, usage_by_run
from dreamdesk.engine.cli import main
from dreamdesk.engine.home.workspace import Workspace

UTC = timezone.utc
# nanobot 0.3.5's llm_calls columns (nanobot/llm_usage/store.py)
TABLE = """CREATE TABLE llm_calls (id INTEGER PRIMARY KEY, started_at_ms INTEGER NOT NULL,
  duration_ms INTEGER NOT NULL, provider TEXT NOT NULL, model TEXT NOT NULL, source TEXT NOT NULL,
  stream INTEGER NOT NULL, finish_reason TEXT NOT NULL, input_tokens INTEGER, output_tokens INTEGER,
  total_tokens INTEGER, cache_read_tokens INTEGER, cache_write_tokens INTEGER, reported_tokens INTEGER,
  estimated_tokens INTEGER, generation_ms INTEGER, measured_output_tokens INTEGER, ttft_ms INTEGER,
  timed_requests INTEGER, error_status_code INTEGER, error_kind TEXT)"""


def _home(tmp_path):
    home = tmp_path / "home"
    (home / "workspace" / "memory").mkdir(parents=True)
    (home / "workspace" / "memory" / "MEMORY.md").write_text("# Memory\n")
    (home / "config.json").write_text(json.dumps({"agents": {"defaults": {}}}))
    return home


def _ms(text: str) -> int:
    return int(datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp() * 1000)


def _store(home, rows, wal=True):
    """Write a store as nanobot does, then close it (nanobot's gateway exited)."""
    con = sqlite3.connect(home / "llm_usage.sqlite3")
    if wal:
        con.execute("PRAGMA journal_mode = WAL")
    con.execute(TABLE)
    con.executemany("INSERT INTO llm_calls (started_at_ms, duration_ms, provider, model, source, stream, "
                    "finish_reason, input_tokens, output_tokens, total_tokens) VALUES (?,?,?,?,?,1,?,?,?,?)",
                    [(_ms(t), 400, "custom", "m", src, fin, i, o, None if i is None else i + o)
                     for t, src, fin, i, o in rows])
    con.commit()
    con.close()


ROWS = [("2026-11-20T01:00:01", "dream", "tool_calls", 1000, 10),
        ("2026-11-20T01:00:03", "dream", "stop", 1100, 20),
        ("2026-11-20T01:30:00", "user", "stop", 5000, 500),          # a chat turn: not Dream's
        ("2026-11-20T23:59:59", "dream", "error", None, None),       # a failed call: no tokens
        ("2026-11-21T03:00:00", "dream", "stop", 700, 7)]


def test_dream_calls_read_without_creating_anything(tmp_path):
    home = _home(tmp_path)
    _store(home, ROWS)
    before = tree_state(home)
    usage = read_dream_usage(Workspace.open(home))
    assert tree_state(home) == before, "the read created or changed a file in the home"
    assert usage.state == "recorded" and usage.error is None
    assert [(c.tokens.input, c.tokens.output, c.tokens.total, c.finish_reason) for c in usage.calls] == [
        (1000, 10, 1010, "tool_calls"), (1100, 20, 1120, "stop"), (0, 0, 0, "error"), (700, 7, 707, "stop")]
    assert usage.total.total == 2837 and "4 call(s)" in usage.message
    days = usage_by_day(usage.calls, zone=UTC)
    assert [(d.day.isoformat(), d.tokens.calls, d.tokens.total) for d in days] == [
        ("2026-11-20", 3, 2130), ("2026-11-21", 1, 707)]
    tokyo = usage_by_day(usage.calls, zone=timezone(timedelta(hours=9)))
    assert [(d.day.isoformat(), d.tokens.calls) for d in tokyo] == [("2026-11-20", 2), ("2026-11-21", 2)]


def test_a_store_left_by_a_killed_writer_is_read_whole_without_touching_it(tmp_path):
    """nanobot's gateway killed (or the home copied while it ran): the -wal (holding the newest
    rows) and -shm are there and no process holds them. SQLite's first reader would rebuild the
    -shm in the home; Dreamdesk reads every row and leaves all three files as they were."""
    home = _home(tmp_path)
    code = ("import os, sqlite3, sys; con = sqlite3.connect(sys.argv[1]); con.execute('PRAGMA journal_mode = WAL');"
            "con.execute('PRAGMA wal_autocheckpoint = 0'); con.execute(sys.argv[2]); con.executemany("
            "'INSERT INTO llm_calls (started_at_ms, duration_ms, provider, model, source, stream, finish_reason,"
            " input_tokens, output_tokens, total_tokens) VALUES (?,400,\\'custom\\',\\'m\\',\\'dream\\',1,\\'stop\\',?,?,?)',"
            " [(1, 10, 1, 11), (2, 20, 2, 22)]); con.commit(); os._exit(0)")
    subprocess.run([sys.executable, "-c", code, str(home / "llm_usage.sqlite3"), TABLE], check=True, timeout=30)
    assert (home / "llm_usage.sqlite3-wal").stat().st_size > 0 and (home / "llm_usage.sqlite3-shm").exists()
    before = tree_state(home)
    usage = read_dream_usage(Workspace.open(home))
    assert tree_state(home) == before, "reading the store changed its files in the home"
    assert [c.tokens.total for c in usage.calls] == [11, 22]


@pytest.mark.parametrize("setup", ["no file", "no table", "no dream rows"])
def test_nothing_recorded_is_said_plainly(tmp_path, setup):
    home = _home(tmp_path)
    if setup == "no table":
        sqlite3.connect(home / "llm_usage.sqlite3").close()
    elif setup == "no dream rows":
        _store(home, [r for r in ROWS if r[1] != "dream"])
    before = tree_state(home)
    usage = read_dream_usage(Workspace.open(home))
    assert (usage.state, usage.message) == ("none", NONE_MESSAGE + ".")
    assert tree_state(home) == before, "the store was created or touched"


def test_a_damaged_store_is_one_sentence(tmp_path, capsys):
    home = _home(tmp_path)
    (home / "llm_usage.sqlite3").write_bytes(b"\x00garbage" * 50)
    usage = read_dream_usage(Workspace.open(home))
    assert usage.state == "error"
    assert usage.message == ("nanobot's token usage (llm_usage.sqlite3) cannot be read: it is not an SQLite "
                             "database (damaged, or another program's file)")
    assert main(["usage", str(home)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and "not an SQLite database" in err


def test_a_store_of_another_layout_is_refused_in_words(tmp_path):
    home = _home(tmp_path)
    con = sqlite3.connect(home / "llm_usage.sqlite3")
    con.execute("CREATE TABLE llm_calls (id INTEGER PRIMARY KEY, source TEXT, tokens INTEGER)")
    con.commit()
    con.close()
    usage = read_dream_usage(Workspace.open(home))
    assert usage.state == "error" and "lacks started_at_ms" in usage.message


def test_a_locked_store_says_so(tmp_path, monkeypatch):
    from dreamdesk.engine.disk import sqlite_read
    monkeypatch.setattr(sqlite_read, "BUSY_SECONDS", 0.05)     # how long a read waits for the lock (0.5 s)
    home = _home(tmp_path)
    _store(home, ROWS, wal=False)                    # a rollback-journal store: a writer locks readers out
    holder = sqlite3.connect(home / "llm_usage.sqlite3", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        usage = read_dream_usage(Workspace.open(home))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert usage.state == "error" and usage.message.endswith("another program holds it locked; try again in a moment")
    assert read_dream_usage(Workspace.open(home)).state == "recorded"


def _transcript(key, start, end):
    return DreamTranscript(key, datetime.fromisoformat(start).replace(tzinfo=UTC),
                           datetime.fromisoformat(end).replace(tzinfo=UTC), "sessions/x", None, (), None)


def _epoch(text):
    return _ms(text) // 1000


def test_calls_group_into_runs_by_transcript_else_by_pause(tmp_path):
    home = _home(tmp_path)
    _store(home, ROWS)
    calls = read_dream_usage(Workspace.open(home)).calls
    commits = [("c-first", _epoch("2026-11-20T01:00:04")), ("c-late", _epoch("2026-11-21T03:00:01"))]
    runs = usage_by_run(calls, commits=commits)
    # no transcripts: the 01:00 pair is one run, the 23:59 failure another, the next day a third
    assert [(r.tokens.calls, r.tokens.total, r.key, r.sha) for r in runs] == [
        (2, 2130, None, "c-first"), (1, 0, None, None), (1, 707, None, "c-late")]
    # transcripts split runs even seconds apart, and name them
    ts = [_transcript("dream:20261120-010001", "2026-11-20T01:00:01", "2026-11-20T01:00:02.5"),
          _transcript("dream:20261120-010003", "2026-11-20T01:00:03", "2026-11-20T01:00:03.9")]
    runs = usage_by_run(calls, ts, commits)
    assert [(r.key, r.tokens.total, r.sha) for r in runs[:2]] == [
        ("dream:20261120-010001", 1010, None), ("dream:20261120-010003", 1120, "c-first")]
