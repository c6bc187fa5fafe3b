"""Writing an OpenClaw home (issue 29 items 1, 3, 4): an edit of MEMORY.md, USER.md or a daily
note lands the OpenClaw way (a regular file, its mode, its line endings and every OpenClaw marker
kept, hash-checked), with a snapshot before it and what it removed archived, and both kept in
Dreamdesk's state folder: the workspace's own .git (OpenClaw runs `git init` and never commits;
it is its user's) is never touched and no file of Dreamdesk's appears in the workspace. DREAMS.md
is never written; a symlinked memory file is refused in words. Undo gives back the bytes."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from conftest import tree_state
from dreamdesk.engine.assistants import open_home
from dreamdesk.engine.core.problems import WorkspaceError
from dreamdesk.engine.core.state import workspace_state_dir
from dreamdesk.engine.recovery.archive import read_archive
from dreamdesk.engine.recovery.edits import save_edit
from dreamdesk.engine.recovery.restore import restore_snapshot
from dreamdesk.engine.versions.snapshots import SnapshotStore
from helpers.openclaw_homes import copy_home
from helpers.openclaw_homes import no_openclaw_of_this_machine  # noqa: F401  (autouse)

MARKER = "<!-- openclaw-memory-promotion:memory:memory/2026-12-06.md:1:4 -->"


@pytest.fixture
def home(tmp_path) -> Path:
    """The dreamed home as OpenClaw leaves it: its workspace a git repository with no commit
    (OpenClaw's `git init`), MEMORY.md written 0600."""
    home = copy_home("dreamed", tmp_path)
    subprocess.run(["git", "init", "-q", str(home / "workspace")], check=True)
    os.chmod(home / "workspace" / "MEMORY.md", 0o600)
    return home


def users_git(home: Path) -> dict:
    return tree_state(home / "workspace" / ".git")


def outside_git(home: Path) -> set[str]:
    return {p for p in tree_state(home / "workspace") if not p.startswith(".git")}


def test_an_edit_of_memory_md_keeps_openclaws_file_and_history_lives_apart(home):
    ws = open_home(home)
    memory = home / "workspace" / "MEMORY.md"
    git_before, paths_before = users_git(home), outside_git(home)
    state, _ = ws.read_file("MEMORY.md")
    assert MARKER in state.text and "- Deploys happen on Tuesdays only.\n" in state.text
    result = save_edit(ws, "MEMORY.md", state.text.replace("- Deploys happen on Tuesdays only.\n", ""), state.hash)
    after = memory.read_text(encoding="utf-8")
    assert "Deploys happen on Tuesdays" not in after and MARKER in after and after.count("<!--") == state.text.count("<!--")
    assert os.stat(memory).st_mode & 0o777 == 0o600 and not memory.is_symlink()
    # the history and the archive are Dreamdesk's, in its state folder
    store = SnapshotStore(ws)
    assert store.git_dir == workspace_state_dir(ws.root) / "snapshots.git" and store.git_dir.is_dir()
    assert [s.subject for s in store.list()] == ["edit: MEMORY.md", "snapshot: before edit MEMORY.md"]
    assert set(store.memory_files_at(result.before)) == {"AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md", "MEMORY.md",
                                                         "memory/2026-12-04.md", "memory/2026-12-05.md",
                                                         "memory/2026-12-05-retro.md", "memory/2026-12-06.md",
                                                         "memory/2026-12-06-standup.md"}   # never DREAMS.md
    [rec] = [r for r in read_archive(ws).records if r.file == "MEMORY.md"]
    assert rec.text == "- Deploys happen on Tuesdays only." and rec.reason == "edit"
    # the user's repository and the workspace hold nothing of Dreamdesk's
    assert users_git(home) == git_before and outside_git(home) == paths_before
    git = subprocess.run(["git", "-C", str(home / "workspace"), "log"], capture_output=True, text=True)
    assert git.returncode != 0 and "does not have any commits" in git.stderr


def test_undo_of_an_edit_gives_back_the_bytes_and_mode(home):
    ws = open_home(home)
    memory = home / "workspace" / "MEMORY.md"
    raw = memory.read_bytes()
    state, _ = ws.read_file("MEMORY.md")
    result = save_edit(ws, "MEMORY.md", state.text + "- A line the person added.\n", state.hash)
    restore_snapshot(ws, result.before, "MEMORY.md")
    assert memory.read_bytes() == raw and os.stat(memory).st_mode & 0o777 == 0o600


def test_daily_notes_and_user_md_are_edited_and_dreams_md_never(home):
    ws = open_home(home)
    for rel in ("memory/2026-12-06.md", "USER.md"):
        state, _ = ws.read_file(rel)
        assert save_edit(ws, rel, state.text + "- Added by hand.\n", state.hash).written
        assert (home / "workspace" / rel).read_text(encoding="utf-8").endswith("- Added by hand.\n")
    dreams = home / "workspace" / "DREAMS.md"
    before = dreams.read_bytes()
    state, _, why = ws.read_for_edit("DREAMS.md")
    assert why is not None and why.detail.startswith("the dream diary is OpenClaw's own")
    with pytest.raises(WorkspaceError, match="not a memory file Dreamdesk edits"):
        save_edit(ws, "DREAMS.md", state.text + "x\n", state.hash)
    assert dreams.read_bytes() == before


def test_a_symlinked_memory_md_is_refused_in_words_and_nothing_is_written(home):
    ws_dir = home / "workspace"
    (ws_dir / "real-memory.md").write_bytes((ws_dir / "MEMORY.md").read_bytes())
    (ws_dir / "MEMORY.md").unlink()
    (ws_dir / "MEMORY.md").symlink_to("real-memory.md")
    ws = open_home(home)
    before = tree_state(ws_dir)
    state, _, why = ws.read_for_edit("MEMORY.md")
    assert why is not None and "OpenClaw reads only regular memory files" in why.detail
    with pytest.raises(WorkspaceError, match="MEMORY.md is a symlink: OpenClaw reads only regular memory files"):
        save_edit(ws, "MEMORY.md", state.text + "- more\n", state.hash)
    assert tree_state(ws_dir) == before
    assert not (workspace_state_dir(ws.root) / "snapshots.git").exists()


def _lock_row(con, home: Path, age_ms: int) -> None:
    """memory-core's workspace lock as OpenClaw's writer holds it (a row of its state database)."""
    import json
    import time
    from dreamdesk.engine.assistants.openclaw_state import workspace_key
    con.execute("INSERT OR REPLACE INTO plugin_state_entries (plugin_id, namespace, entry_key, value_json, "
                "created_at, expires_at) VALUES ('memory-core', 'short-term-locks', ?, ?, 0, NULL)",
                (workspace_key(home / "workspace"), json.dumps({"owner": "4242:0c3f", "acquiredAt":
                                                                int(time.time() * 1000) - age_ms})))


def _lock(home: Path, age_ms: int) -> None:
    import sqlite3
    con = sqlite3.connect(home / "state" / "openclaw.sqlite")
    with con:
        _lock_row(con, home, age_ms)
    con.close()


def test_while_openclaws_dreaming_holds_the_workspace_lock_nothing_is_written(home):
    _lock(home, age_ms=2_000)
    ws = open_home(home)
    before = tree_state(home / "workspace")
    state, _ = ws.read_file("MEMORY.md")
    with pytest.raises(WorkspaceError, match=r"^OpenClaw is writing this workspace's memory right now \(memory-core's "
                                             r"lock, held by process 4242 since .*nothing was written"):
        save_edit(ws, "MEMORY.md", state.text + "- more\n", state.hash)
    assert tree_state(home / "workspace") == before
    assert not (workspace_state_dir(ws.root) / "snapshots.git").exists()     # refused before the snapshot
    _lock(home, age_ms=61_000)            # a lock its process left: OpenClaw itself takes it over
    assert save_edit(ws, "MEMORY.md", state.text + "- more\n", state.hash).written


def _exclusive(db: Path, journal: str):
    """Another program's connection holding `BEGIN EXCLUSIVE` on the state database, in `journal` mode."""
    import sqlite3
    con = sqlite3.connect(db, isolation_level=None)
    con.execute(f"PRAGMA journal_mode={journal}")
    con.execute("BEGIN EXCLUSIVE")
    return con


def test_a_state_database_another_program_holds_locked_refuses_the_write_in_words(home, monkeypatch):
    """A rollback-journal database under another writer's lock cannot be read: whether OpenClaw's
    dreaming holds the workspace cannot be told, so nothing is written (the read waits 0.5 s)."""
    from dreamdesk.engine.disk import sqlite_read
    monkeypatch.setattr(sqlite_read, "BUSY_SECONDS", 0.05)
    ws = open_home(home)
    state, _ = ws.read_file("MEMORY.md")
    con = _exclusive(home / "state" / "openclaw.sqlite", "DELETE")
    try:
        before = tree_state(home / "workspace")
        with pytest.raises(WorkspaceError, match=r"^OpenClaw's state database \(openclaw.sqlite\) is locked by another "
                                                 r"program right now.*nothing was written: try again in a moment$"):
            save_edit(ws, "MEMORY.md", state.text + "- more\n", state.hash)
        assert tree_state(home / "workspace") == before
        assert not (workspace_state_dir(ws.root) / "snapshots.git").exists()
    finally:
        con.rollback()
        con.close()
    assert save_edit(ws, "MEMORY.md", state.text + "- more\n", state.hash).written     # once it is let go


def test_openclaws_wal_database_stays_readable_under_another_connections_exclusive_transaction(home):
    """OpenClaw's database is WAL: a writer's transaction never blocks the read, and what it has
    not committed (a lock row being taken) is not seen; a committed lock row is."""
    db = home / "state" / "openclaw.sqlite"
    ws = open_home(home)
    state, _ = ws.read_file("MEMORY.md")
    con = _exclusive(db, "WAL")
    try:
        _lock_row(con, home, age_ms=0)
        assert save_edit(ws, "MEMORY.md", state.text + "- more\n", state.hash).written
    finally:
        con.rollback()
    _lock_row(con, home, age_ms=0)
    con.execute("BEGIN EXCLUSIVE")
    try:
        state, _ = ws.read_file("MEMORY.md")
        with pytest.raises(WorkspaceError, match=r"^OpenClaw is writing this workspace's memory right now"):
            save_edit(ws, "MEMORY.md", state.text + "- again\n", state.hash)
    finally:
        con.rollback()
        con.close()


def _link_memory(home: Path, target: Path) -> None:
    """MEMORY.md made a symlink to `target`, which gets its bytes."""
    memory = home / "workspace" / "MEMORY.md"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(memory.read_bytes())
    memory.unlink()
    memory.symlink_to(target)


@pytest.mark.parametrize("why", ["symlink", "lock"])
def test_an_archive_restore_refused_takes_no_snapshot(home, why):
    """The entry OpenClaw's sweep merged away, restored from the Archive while MEMORY.md is a
    symlink or OpenClaw holds its lock: refused in words before the snapshot, as an edit is."""
    from dreamdesk.engine.recovery.prunes import all_prunes, restore_prune
    ws = open_home(home)
    [entry] = [e for e in all_prunes(ws)[2] if e.latest.origin == "assistant"]
    if why == "symlink":
        _link_memory(home, home / "workspace" / "memory" / "kept-here.md")
    else:
        _lock(home, age_ms=2_000)
    before = tree_state(home / "workspace")
    words = "MEMORY.md is a symlink: OpenClaw reads only" if why == "symlink" else "OpenClaw is writing this workspace"
    with pytest.raises(WorkspaceError, match=f"^{words}"):
        restore_prune(ws, entry.latest.id)
    assert tree_state(home / "workspace") == before
    assert not (workspace_state_dir(ws.root) / "snapshots.git").exists()


def test_a_snapshot_restore_over_a_memory_md_linked_elsewhere_says_openclaws_reason(home, tmp_path):
    ws = open_home(home)
    state, _ = ws.read_file("MEMORY.md")
    before = save_edit(ws, "MEMORY.md", state.text + "- A line the person added.\n", state.hash).before
    _link_memory(home, tmp_path / "synced" / "MEMORY.md")          # outside the workspace
    with pytest.raises(WorkspaceError, match="^MEMORY.md is a symlink: OpenClaw reads only regular memory files"):
        restore_snapshot(ws, before, "MEMORY.md")
    assert (tmp_path / "synced" / "MEMORY.md").read_text(encoding="utf-8").endswith("- A line the person added.\n")
