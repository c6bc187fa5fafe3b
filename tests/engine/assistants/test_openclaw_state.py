"""OpenClaw's SQLite state read for one workspace without writing anything (issue 28 items 5-6):
the fixture home the real OpenClaw 2026.9.6 built, and databases built by hand for what no build
makes (a database in use with its write-ahead log, a broken one, several workspaces)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from conftest import tree_state
from dreamdesk.engine.assistants.openclaw_recall import listed
from dreamdesk.engine.assistants.openclaw_state import read_state, workspace_key
from helpers.openclaw_state_db import copy_home, event_row, keyed_row, make_db, manifest

RECORDED = manifest("dreamed")["original_home"] + "/workspace"


def test_the_dreamed_home_read_where_it_was_moved_leaves_every_byte_and_mtime_and_says_how_it_matched(tmp_path):
    home = copy_home("dreamed", tmp_path)
    before = tree_state(home)
    s = read_state(home / "state" / "openclaw.sqlite", home / "workspace")
    assert tree_state(home) == before                   # no -wal, -shm or journal appeared either
    assert s.found and s.problems == ()
    assert s.workspace_key == hashlib.sha256(RECORDED.encode()).hexdigest() and s.recorded_workspace == RECORDED
    assert len(s.notes) == 1 and RECORDED in s.notes[0] and "moved" in s.notes[0]
    assert [p.created_at for p in s.preimages] == ["2026-12-06T23:19:35.817Z", "2026-12-06T23:20:57.068Z"]
    assert all(p.hash_ok for p in s.preimages)
    assert len(s.recalls) == 10 and s.recall_updated_at == "2026-12-06T23:21:40.726Z"
    assert len(s.phase_signals) == 9 and len(s.events) == 34
    assert [e.sequence for e in s.events] == list(range(1, 35))
    dreaming = [j for j in s.cron_jobs if j.declaration_key == "memory-core:memory-dreaming-promotion"]
    assert dreaming and dreaming[0].schedule == {"kind": "cron", "expr": "0 3 * * *"}
    assert dreaming[0].state["nextRunAtMs"] == 1796612400000
    assert s.lock is not None and not s.lock.stale(s.lock.acquired_at_ms)       # (openclaw_lease: when it is)


def test_the_path_the_config_records_matches_the_rows_directly(tmp_path):
    home = copy_home("dreamed", tmp_path)
    s = read_state(home / "state" / "openclaw.sqlite", home / "workspace", also=[RECORDED])
    assert s.notes == () and s.workspace_key == workspace_key(RECORDED) and len(s.preimages) == 2


def test_no_database_is_said_and_reads_as_no_state(tmp_path):
    s = read_state(tmp_path / "state" / "openclaw.sqlite", tmp_path / "workspace")
    assert not s.found and s.problems == () and s.preimages == () and s.cron_jobs == ()
    assert "no state database" in s.notes[0]
    assert not (tmp_path / "state").exists()


def test_a_broken_database_is_a_problem_in_words_and_stays_as_it_was(tmp_path):
    db = tmp_path / "openclaw.sqlite"
    db.write_bytes(b"this is not SQLite at all" * 40)
    before = tree_state(tmp_path)
    s = read_state(db, tmp_path / "workspace")
    assert not s.found and len(s.problems) == 1 and "not a readable SQLite database" in s.problems[0]
    assert tree_state(tmp_path) == before


def test_rows_of_other_workspaces_only_are_not_taken_for_this_one(tmp_path):
    db = tmp_path / "state" / "openclaw.sqlite"
    make_db(db, [keyed_row("/a/workspace", "short-term-recall", "k1", {"key": "k1"}),
                 keyed_row("/b/workspace", "short-term-recall", "k2", {"key": "k2"})])
    s = read_state(db, tmp_path / "workspace")
    assert s.workspace_key is None and s.recalls == ()
    assert "2 workspaces" in s.problems[0] and "/a/workspace" in s.problems[0]
    mine = read_state(db, tmp_path / "workspace", also=["/b/workspace"])
    assert mine.problems == () and [r.key for r in mine.recalls] == ["k2"]


def test_a_recall_row_of_odd_shape_is_read_as_openclaw_would_and_one_with_no_entry_is_skipped(tmp_path):
    db = tmp_path / "state" / "openclaw.sqlite"
    ws = str(tmp_path / "workspace")
    make_db(db, [keyed_row(ws, "short-term-recall", "k1", [1, 2]),
                 keyed_row(ws, "short-term-recall", "k2", {"key": "k2", "startLine": "1", "provenance": "x",
                                                           "queryHashes": "abc", "extra": {"kept": False}})])
    s = read_state(db, tmp_path / "workspace")
    assert s.problems == () and s.workspace_key is not None
    [entry] = s.recalls
    assert (entry.key, entry.start_line, entry.provenance, listed(entry.query_hashes_json)) == ("k2", "1", "x", "abc")


def test_a_database_in_use_is_read_with_its_write_ahead_log_and_nothing_beside_it_changes(tmp_path):
    """OpenClaw keeps the database open in WAL mode: rows it wrote last may be only in -wal.
    They are read (from a private copy), and the files beside it keep their bytes and mtimes."""
    ws = str(tmp_path / "workspace")
    db = tmp_path / "state" / "openclaw.sqlite"
    pre = {"createdAt": "2026-12-06T03:00:00.000Z", "content": "# Memory\n", "contentHash": hashlib.sha256(b"# Memory\n").hexdigest()}
    con = make_db(db, [keyed_row(ws, "dreaming-memory-backups", "2026-12-06T03:00:00.000Z:x", pre),
                       event_row(ws, 1, {"type": "memory.dream.completed", "timestamp": "2026-12-06T03:00:00.000Z",
                                         "phase": "light", "lineCount": 0, "storageMode": "separate"})], wal=True)
    try:
        assert (tmp_path / "state" / "openclaw.sqlite-wal").stat().st_size > 0
        before = tree_state(tmp_path / "state")
        s = read_state(db, Path(ws))
        assert tree_state(tmp_path / "state") == before
    finally:
        con.close()
    assert s.notes == () and [p.content for p in s.preimages] == ["# Memory\n"] and len(s.events) == 1


def test_a_pre_image_whose_content_does_not_match_its_hash_is_marked(tmp_path):
    ws = str(tmp_path / "workspace")
    db = tmp_path / "openclaw.sqlite"
    make_db(db, [keyed_row(ws, "dreaming-memory-backups", "t:x", {"createdAt": "t", "content": "a\n", "contentHash": "0" * 64}),
                 keyed_row(ws, "dreaming-memory-backups", "u:x", {"createdAt": "u"})])
    s = read_state(db, Path(ws))
    assert [p.hash_ok for p in s.preimages] == [False]
    assert "no content or time" in s.problems[0]
