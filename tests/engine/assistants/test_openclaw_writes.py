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
from helpers.openclaw_state_db import gone_pid, hold_lock, lock_row
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


def test_while_openclaws_dreaming_holds_the_workspace_lock_nothing_is_written(home):
    hold_lock(home, age_ms=2_000)
    ws = open_home(home)
    before = tree_state(home / "workspace")
    state, _ = ws.read_file("MEMORY.md")
    with pytest.raises(WorkspaceError, match=r"^OpenClaw is writing this workspace's memory right now \(memory-core's "
                                             rf"lock, held by process {os.getpid()} since .*nothing was written"):
        save_edit(ws, "MEMORY.md", state.text + "- more\n", state.hash)
    assert tree_state(home / "workspace") == before
    assert not (workspace_state_dir(ws.root) / "snapshots.git").exists()     # refused before the snapshot
    hold_lock(home, age_ms=61_000, pid=gone_pid())      # a lock its process left: OpenClaw takes it over too
    assert save_edit(ws, "MEMORY.md", state.text + "- more\n", state.hash).written


def test_a_version_openclaw_saved_is_restored_whole_and_undone_byte_for_byte(home):
    from dreamdesk.engine.dream.restore_points import find_point, restore_point
    from dreamdesk.engine.recovery.restore import undo_restore
    ws = open_home(home)
    memory = home / "workspace" / "MEMORY.md"
    raw = memory.read_bytes()
    point = find_point(ws, "2026-12-06T23:19")            # the first sweep's pre-image, by the start of its key
    result = restore_point(ws, point["key"])
    assert memory.read_text(encoding="utf-8") == point["content"] and os.stat(memory).st_mode & 0o777 == 0o600
    archived = {r.text for r in result.archived}
    assert "- The user prefers green tea in the afternoon.\n" in point["content"]      # back as written by hand
    assert any(t.startswith("- # 2026-12-06 - Storage driver patch landed;") for t in archived), archived
    assert all(r.file == "MEMORY.md" and r.reason == "restore" for r in result.archived)
    undo_restore(ws, result.id)
    assert memory.read_bytes() == raw
    again = restore_point(ws, point["key"])
    assert restore_point(ws, point["key"]).files == [] and again.files == ["MEMORY.md"]   # nothing to do twice
    with pytest.raises(WorkspaceError, match="no saved version 'nope' here"):
        restore_point(ws, "nope")
    with pytest.raises(WorkspaceError, match="names 2 saved versions"):
        restore_point(ws, "2026-12-06")


def test_the_watch_keeps_openclaws_own_changes_and_a_pinned_entry_it_removed_comes_back(home):
    """Issue 29 items 3 and 6: with the watch on, a change another writer makes (here: a sweep's
    consolidation, written as OpenClaw writes MEMORY.md) is a snapshot of Dreamdesk's and what it
    removed is archived naming it; a pinned entry it removed raises the alert and one click puts it
    back; the workspace and its .git hold nothing of Dreamdesk's."""
    from dreamdesk.engine.recovery import watch
    from dreamdesk.engine.recovery.pins import pin, pin_alerts, restore_pin
    ws = open_home(home)
    memory = home / "workspace" / "MEMORY.md"
    pinned, _ = pin(ws, "MEMORY.md", text="- Deploys happen on Tuesdays only.")
    assert pinned.file == "MEMORY.md" and pin_alerts(ws) == []
    assert watch.observe(ws) == []                        # the first look remembers the files
    git_before, paths_before = users_git(home), outside_git(home)
    text = memory.read_text(encoding="utf-8")
    memory.write_text(text.replace("- Deploys happen on Tuesdays only.\n", ""), encoding="utf-8")   # OpenClaw writes
    [event] = watch.observe(ws)
    store = SnapshotStore(ws)
    snap, first = store.list()
    assert (first.subject, snap.subject) == ("snapshot: as the watch first saw it", "snapshot: changed by another writer")
    assert snap.files == {"MEMORY.md": (0, 1)} and event.commit == snap.sha
    [rec] = [r for r in read_archive(ws).records if r.reason == "outside"]
    assert (rec.file, rec.text, rec.commit) == ("MEMORY.md", "- Deploys happen on Tuesdays only.", snap.sha)
    assert watch.observe(ws) == [] and len(store.list()) == 2      # nothing new: no third snapshot
    [alert] = pin_alerts(ws)
    assert alert.pin.text == "- Deploys happen on Tuesdays only."
    restore_pin(ws, alert.pin.id)
    assert "- Deploys happen on Tuesdays only.\n" in memory.read_text(encoding="utf-8") and pin_alerts(ws) == []
    assert users_git(home) == git_before and outside_git(home) == paths_before


def test_a_sweeps_change_stays_its_own_after_dreamdesk_writes_memory_md(home):
    """The last sweep's change was read against MEMORY.md now; once Dreamdesk writes the file, the
    version its snapshot before that write holds is what the sweep left."""
    from dreamdesk.engine.assistants import assistant_of
    ws = open_home(home)
    who = assistant_of(ws)
    before = who.assistant_runs(ws).runs[0]
    state, _ = ws.read_file("MEMORY.md")
    save_edit(ws, "MEMORY.md", state.text.replace("- Deploys happen on Tuesdays only.\n", "") + "- Added by hand.\n",
              state.hash)
    after = who.assistant_runs(ws).runs[0]
    assert after == before
    assert [r.text for r in read_archive(ws).records] == ["- Deploys happen on Tuesdays only."]
    [theirs] = who.assistant_prunes(ws).records
    assert theirs["text"] == "- The user prefers green tea in the afternoon."



def test_an_update_that_overwrites_soul_md_is_kept_by_the_watch_and_taken_back(home):
    """openclaw/openclaw#70098: an update overwrote SOUL.md and IDENTITY.md. With the watch on,
    the files as they were are in Dreamdesk's history and one restore brings them back."""
    from dreamdesk.engine.jobs.scheduler import Scheduler
    from dreamdesk.engine.jobs.upkeep import Upkeep
    ws = open_home(home)
    soul, identity = home / "workspace" / "SOUL.md", home / "workspace" / "IDENTITY.md"
    mine = soul.read_bytes(), identity.read_bytes()
    from datetime import datetime

    from dreamdesk.engine.jobs.upkeep import OBSERVE
    upkeep = Upkeep(ws, Scheduler(ws), lambda: datetime.now().astimezone())
    assert upkeep.watch_on() is None and upkeep.due() == [OBSERVE]
    upkeep.run(OBSERVE)                                   # the watch's first look: a snapshot of every file
    upkeep.done(OBSERVE)
    seen = SnapshotStore(ws).head()
    soul.write_text("# SOUL.md\n\nThe template again.\n", encoding="utf-8")       # the update
    identity.write_text("# IDENTITY.md\n", encoding="utf-8")
    assert upkeep.outside_change({"SOUL.md", "IDENTITY.md"}) and upkeep.due() == [OBSERVE]   # looked at here too
    upkeep.run(OBSERVE)
    snap = SnapshotStore(ws).list()[0]
    assert snap.subject == "snapshot: changed by another writer" and set(snap.files) == {"SOUL.md", "IDENTITY.md"}
    restore_snapshot(ws, seen)
    assert (soul.read_bytes(), identity.read_bytes()) == mine
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
        lock_row(con, home, age_ms=0)
        assert save_edit(ws, "MEMORY.md", state.text + "- more\n", state.hash).written
    finally:
        con.rollback()
    lock_row(con, home, age_ms=0)
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
        hold_lock(home, age_ms=2_000)
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
