"""Editing an OpenClaw home in the window (issue 29 items 1, 3): MEMORY.md is saved from the Files
view with what it removed archived and a snapshot before it, both in Dreamdesk's state folder; the
dream diary opens read-only with OpenClaw's reason; the workspace's own .git is never touched."""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

from conftest import open_window, tree_state
from dreamdesk.engine.recovery.archive import read_archive
from helpers.openclaw_homes import copy_home, grab_sizes
from helpers.openclaw_homes import no_openclaw_of_this_machine  # noqa: F401  (autouse)

GONE = "- Deploys happen on Tuesdays only."
SHOTS = Path(tempfile.gettempdir()) / "shots-i29-edit"


def _open(win, qtbot, rel: str) -> None:
    win.tabs.setCurrentWidget(win.files)
    win.files.open_path(rel)
    qtbot.waitUntil(lambda: win.files.loaded is not None and win.files.loaded.path == rel, timeout=5000)


def test_memory_md_is_saved_from_the_files_view_and_the_diary_stays_read_only(gui_env, qtbot, tmp_path):
    home = copy_home("dreamed", tmp_path)
    subprocess.run(["git", "init", "-q", str(home / "workspace")], check=True)
    users_git = tree_state(home / "workspace" / ".git")
    win = open_window(qtbot, home)
    _open(win, qtbot, "DREAMS.md")
    assert win.files.editor.isReadOnly() and win.files.read_only_note.isVisible()
    assert "the dream diary is OpenClaw's own" in win.files.read_only_note.text()
    _open(win, qtbot, "MEMORY.md")
    ed = win.files.editor
    assert not ed.isReadOnly() and GONE in ed.toPlainText()
    ed.setPlainText(ed.toPlainText().replace(GONE + "\n", ""))
    win.files.save()
    qtbot.waitUntil(lambda: not win.files.dirty, timeout=5000)
    on_disk = (home / "workspace" / "MEMORY.md").read_text(encoding="utf-8")
    assert GONE not in on_disk and "<!-- openclaw-memory-promotion:memory:memory/2026-12-06.md:1:4 -->" in on_disk
    assert [(r.file, r.text, r.reason) for r in read_archive(win.ws).records] == [("MEMORY.md", GONE, "edit")]
    assert tree_state(home / "workspace" / ".git") == users_git
    assert not [p for p in os.listdir(home / "workspace" / "memory") if "archive" in p or "dreams" == p]
    # the promoted entries beside the editor come back, read from the saved file
    qtbot.waitUntil(lambda: win.files.promoted.isVisibleTo(win.files), timeout=5000)
    assert win.files.promoted.model.rowCount() == 3
    # the save's change record names MEMORY.md (the layout's, not the contract's memory/MEMORY.md): the
    # views that show the memory files read it again, once
    from helpers.gui_waits import jobs_done
    jobs_done(qtbot, win.engine)
    grab_sizes(win, SHOTS, "openclaw-edit")
    win.close()


def test_with_the_watch_on_what_openclaw_removes_is_archived_with_a_snapshot(gui_env, qtbot, tmp_path):
    """Issue 29 item 3 in the window: the watch box is on for an OpenClaw home (it writes only
    Dreamdesk's own history, kept apart); another writer's removal from MEMORY.md is archived,
    naming the snapshot that holds the file as it was left."""
    from dreamdesk.engine.versions.snapshots import SnapshotStore
    home = copy_home("dreamed", tmp_path)
    win = open_window(qtbot, home)
    win.tabs.setCurrentWidget(win.settings)
    box = win.settings.watch_here
    qtbot.waitUntil(box.isEnabled, timeout=5000)
    box.click()
    qtbot.waitUntil(lambda: win.ctx.upkeep.watching and win.engine.idle, timeout=10000)
    memory = home / "workspace" / "MEMORY.md"
    memory.write_text(memory.read_text(encoding="utf-8").replace(GONE + "\n", ""), encoding="utf-8")
    qtbot.waitUntil(lambda: [r.text for r in read_archive(win.ws).records if r.reason == "outside"] == [GONE],
                    timeout=15000)
    [rec] = read_archive(win.ws).records
    assert rec.commit == SnapshotStore(win.ws).list()[0].sha
    win.close()


class _Says:
    def __init__(self, answer):
        self.answer, self.asked = answer, []

    def text(self, parent, title, label):
        self.asked.append(title)
        return self.answer


def test_a_directive_is_superseded_from_the_editors_menu(gui_env, qtbot, tmp_path):
    from PySide6.QtGui import QTextCursor

    from dreamdesk.engine.assistants.openclaw_directives import read_directives
    home = copy_home("dreamed", tmp_path)
    win = open_window(qtbot, home)
    _open(win, qtbot, "USER.md")
    files = win.files
    user = home / "workspace" / "USER.md"
    second = read_directives(user).directives[1]
    cursor = files.editor.textCursor()
    cursor.movePosition(QTextCursor.MoveOperation.Start)
    cursor.movePosition(QTextCursor.MoveOperation.Down, n=second.start + 2)       # on its directive line
    files.editor.setTextCursor(cursor)
    menu = files.context_menu()
    items = {a.objectName(): a for a in menu.actions()}
    assert items["add_directive"].isEnabled() and items["retire_directive"].isEnabled()
    files.entry_asks = _Says("Prefer rooibos after noon.")
    items["supersede_directive"].trigger()
    qtbot.waitUntil(lambda: "Prefer rooibos after noon." in files.editor.toPlainText() and win.engine.idle,
                    timeout=10000)
    found = read_directives(user).directives
    assert files.entry_asks.asked == ["Supersede this directive"]
    assert (found[1].status, found[1].replaced_by, found[2].text) == ("superseded", 2, "- Prefer rooibos after noon.")
    # the line under the editor follows the file as it is now (the cursor's directive is superseded)
    qtbot.waitUntil(lambda: "superseded → replaced by line" in files.blame.text(), timeout=5000)
    grab_sizes(win, SHOTS, "openclaw-directive")
    win.close()
