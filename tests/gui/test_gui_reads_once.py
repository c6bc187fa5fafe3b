"""Each write read once (issue 27), counted in the real window, never timed: Dreamdesk's own
writes come back as their job's change record, not through the file watcher too. Opening reads
the workspace once; a Dream run reads it once after it; a restore or an undo refreshes
Snapshots once; another writer's change with the watch on rebuilds the Dashboard once; and
another writer's change right after one of ours is still read."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import open_window
from dreamdesk.engine.recovery import watch as watch_mod
from dreamdesk.engine.disk.files import atomic_write_text
from dreamdesk.gui.qt import QTimer, Qt

FENCES = (".fence", "memory/.fence", "skills/.fence")    # one in each folder the watch covers
SUNDAY = "- Sunday afternoon is family board-game time (current favourite: Dixit)."


def counting(monkeypatch, cls, name: str) -> list:
    """Every call of cls.name from now on, in a list."""
    calls, real = [], getattr(cls, name)

    def counted(self, *args, **kwargs):
        calls.append(args)
        return real(self, *args, **kwargs)
    monkeypatch.setattr(cls, name, counted)
    return calls


def settle(qtbot, win) -> None:
    """Wait until everything before now has been seen through, by conditions: the watch runs;
    the jobs are done; a write of our own in each watched folder has come back through the
    watcher (its events come in order, so every event before it has been judged too); then a
    read put on the reader lane after all that runs after every state read it asked for."""
    qtbot.waitUntil(lambda: win.watcher.looked and not win.engine.busy, timeout=10000)
    seen: set[str] = set()
    win.watcher.settled.connect(lambda reported, ours: seen.update(reported | ours))
    for rel in FENCES:
        atomic_write_text(win.ws.root / rel, "fence\n")
    qtbot.waitUntil(lambda: set(FENCES) <= seen, timeout=10000)
    qtbot.waitUntil(lambda: not win.engine.busy, timeout=10000)      # a job an event started (the watch's)
    done: list = []
    QTimer.singleShot(0, lambda: win.engine.read("the last read", lambda ctx: None, done.append))
    qtbot.waitUntil(lambda: bool(done), timeout=10000)


def gauge_shows(win, rel: str) -> bool:
    text = (win.ws.root / rel).read_text(encoding="utf-8")
    return win.dashboard.gauges[rel].chars == len(text)


@pytest.fixture
def state_reads(monkeypatch):
    from dreamdesk.gui.context.workspace_state import StateReader
    return counting(monkeypatch, StateReader, "read")


def test_opening_reads_the_workspace_once(gui_env, qtbot, demo_home, state_reads):
    """Not again for the watch's first look, nor for remembering the versions looked at."""
    win = open_window(qtbot, demo_home)
    settle(qtbot, win)
    assert watch_mod.since_last_looked(win.ws) is not None      # (the versions were remembered)
    assert len(state_reads) == 1
    assert gauge_shows(win, "USER.md")
    win.close()


def test_a_dream_run_reads_the_workspace_once_after_it(gui_env, qtbot, demo_home, state_reads):
    win = open_window(qtbot, demo_home)
    settle(qtbot, win)
    before = (win.ws.root / "USER.md").read_text(encoding="utf-8")
    state_reads.clear()
    reported: list[set] = []
    win.watcher.changed.connect(reported.append)
    win.panel.run_dream()                                   # the demo's replayed run: about 19 writes
    qtbot.waitUntil(lambda: not win.panel.running, timeout=30000)
    settle(qtbot, win)
    assert (win.ws.root / "USER.md").read_text(encoding="utf-8") != before     # it did write
    assert len(state_reads) == 1, [r[0].describe() for r in state_reads]
    assert not [p for s in reported for p in s if not p.startswith("..git.")], reported   # (git's temp folder)
    assert gauge_shows(win, "USER.md") and gauge_shows(win, "memory/MEMORY.md")
    win.close()


def other_process_writes(path: Path, text: str) -> None:
    """Another program writes the file in place (same inode), as an editor or the assistant may."""
    code = "import sys; open(sys.argv[1], 'w', encoding='utf-8').write(sys.argv[2])"
    subprocess.run([sys.executable, "-c", code, str(path), text], check=True, timeout=30)


def test_another_writers_change_during_a_run_is_read_at_once_and_the_run_once_after(
        gui_env, qtbot, demo_home, state_reads, monkeypatch):
    """One read per real outside change, while the run goes on (not held until it ends)."""
    import threading

    from dreamdesk.engine.dream import run as run_mod
    from dreamdesk.gui.context.workspace_state import StateReader
    win = open_window(qtbot, demo_home)
    settle(qtbot, win)
    state_reads.clear()
    soul = win.ws.root / "SOUL.md"
    theirs = soul.read_text(encoding="utf-8") + "- written by the assistant during the run\n"
    read_started, counted, real_run = threading.Event(), StateReader.read, run_mod.run_dream
    monkeypatch.setattr(StateReader, "read", lambda self, *a, **k: read_started.set() or counted(self, *a, **k))

    def run_dream(ws, *args, **kwargs):            # the run, with another writer at work first
        other_process_writes(soul, theirs)
        assert read_started.wait(10)               # the window reads it while the run holds the writer
        return real_run(ws, *args, **kwargs)
    monkeypatch.setattr(run_mod, "run_dream", run_dream)
    win.panel.run_dream()
    qtbot.waitUntil(lambda: not win.panel.running, timeout=30000)
    settle(qtbot, win)
    assert win.panel.last_status != "failed", win.panel.last_outcome
    assert len(state_reads) == 2 and gauge_shows(win, "SOUL.md") and gauge_shows(win, "USER.md")
    win.close()


def test_another_writers_change_right_after_ours_is_still_read(gui_env, qtbot, demo_home, state_reads):
    """Their bytes differ from ours but not in size, written in place on the file ours made:
    only the mtime and the bytes tell them apart, and the watcher still reports them."""
    win = open_window(qtbot, demo_home)
    settle(qtbot, win)
    path = win.ws.root / "USER.md"
    ours = path.read_text(encoding="utf-8") + "- added by Dreamdesk\n"
    theirs = ours.replace("- added by Dreamdesk", "- added by the other")
    assert len(theirs) == len(ours) and theirs != ours
    reported: list[set] = []
    win.watcher.changed.connect(reported.append)

    def job(ctx):
        atomic_write_text(path, ours)
        other_process_writes(path, theirs)       # lands before the watcher has looked at our write
    win.engine.write("a write of ours", job, lambda _r: None)
    settle(qtbot, win)
    assert any("USER.md" in s for s in reported)
    assert path.read_text(encoding="utf-8") == theirs and gauge_shows(win, "USER.md")
    # and once our write's record has been read: another writer's change is read again
    reported.clear()
    state_reads.clear()
    again = theirs.replace("- added by the other", "- added by the third")
    other_process_writes(path, again)
    qtbot.waitUntil(lambda: win.dashboard.gauges["USER.md"].chars == len(again), timeout=10000)
    settle(qtbot, win)
    assert len(state_reads) == 1 and any("USER.md" in s for s in reported)
    win.close()


def test_an_outside_write_with_the_watch_on_rebuilds_the_dashboard_once(gui_env, qtbot, demo_home, monkeypatch):
    from dreamdesk.gui.views.dashboard import Dashboard
    rebuilds = counting(monkeypatch, Dashboard, "set_state")
    win = open_window(qtbot, demo_home)
    win.tabs.setCurrentWidget(win.settings)
    win.settings.watch_here.setChecked(True)
    qtbot.waitUntil(lambda: watch_mod.watching(win.ws), timeout=10000)
    win.tabs.setCurrentWidget(win.dashboard)
    settle(qtbot, win)
    rebuilds.clear()
    path = win.ws.root / "USER.md"
    other_process_writes(path, path.read_text(encoding="utf-8").replace(SUNDAY + "\n", ""))
    qtbot.waitUntil(lambda: win.watch_note.isVisible(), timeout=10000)     # the watch archived it
    settle(qtbot, win)
    assert "Another writer removed 1 entry from USER.md" in win.watch_note.text()
    assert len(rebuilds) == 1 and gauge_shows(win, "USER.md")
    win.close()


class Answers:
    """Yes to every restore question (the cursor stays where it is)."""

    def confirm(self, parent, title, text):
        return True

    def move_cursor_back(self, parent, text):
        return False

    def error(self, parent, title, text):
        raise AssertionError(f"{title}: {text}")


def test_a_restore_and_its_undo_refresh_snapshots_once_each(gui_env, qtbot, history_home, tmp_path, monkeypatch):
    import shutil

    from dreamdesk.gui.views.snapshots_view import SnapshotsView
    home = tmp_path / "past"
    shutil.copytree(history_home, home, symlinks=True)
    refreshes = counting(monkeypatch, SnapshotsView, "refresh")
    win = open_window(qtbot, home)
    view = win.snapshots
    win.tabs.setCurrentWidget(view)
    view.dialogs = Answers()
    qtbot.waitUntil(lambda: view.model.rowCount() >= 2, timeout=10000)
    oldest = view.model.snapshots[-1].sha
    view.select_shas([oldest])
    settle(qtbot, win)
    qtbot.waitUntil(lambda: view.shown is not None and view.shown.shas == (oldest,) and view._current_shown()
                    and view.restore_button.isEnabled(), timeout=10000)
    rows = view.model.rowCount()
    refreshes.clear()
    with qtbot.waitSignal(view.restored, timeout=10000):
        qtbot.mouseClick(view.restore_button, Qt.MouseButton.LeftButton)
    settle(qtbot, win)
    qtbot.waitUntil(lambda: view.model.rowCount() > rows and view.undo_button.isEnabled(), timeout=10000)
    assert len(refreshes) == 1
    refreshes.clear()
    with qtbot.waitSignal(view.restored, timeout=10000):
        qtbot.mouseClick(view.undo_button, Qt.MouseButton.LeftButton)
    settle(qtbot, win)
    assert "Undid the last restore" in win.statusBar().currentMessage()
    assert len(refreshes) == 1
    win.close()


def test_the_watchs_first_look_reports_only_what_changed_before_it_ran(qtbot, tmp_path):
    """Not the whole workspace (that was a second full read at every open): what changed between
    the watcher's start (before the open's read) and the moment the watch really runs."""
    from dreamdesk.gui.context.watcher import WorkspaceWatcher
    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    (ws / "memory" / "MEMORY.md").write_text("# M\n")
    (ws / "USER.md").write_text("# U\n")
    watcher = WorkspaceWatcher(ws)
    seen: list[set] = []
    watcher.changed.connect(seen.append)
    try:
        with watcher._sync_lock:                  # the watch cannot run yet
            watcher.start()
            (ws / "USER.md").write_text("# U\n- written before the watch ran\n")
        qtbot.waitUntil(lambda: watcher.looked and bool(seen), timeout=5000)
        assert seen == [{"USER.md"}]
    finally:
        watcher.stop()


def test_an_archive_restore_and_a_lint_fix_refresh_their_tab_once(gui_env, qtbot, history_home, tmp_path,
                                                                   monkeypatch):
    """The job's change record refreshes the tab it was started from; the tab does not again."""
    import shutil

    from dreamdesk.engine.core.clock import TODAY_ENV
    from dreamdesk.gui.views.archive_view import ArchiveView
    from dreamdesk.gui.views.lint_view import LintView
    from helpers.archive_table import Dialogs, select_ids
    monkeypatch.setenv(TODAY_ENV, "2026-12-02")
    home = tmp_path / "past"
    shutil.copytree(history_home, home, symlinks=True)
    archive_refreshes, lint_refreshes = counting(monkeypatch, ArchiveView, "refresh"), \
        counting(monkeypatch, LintView, "refresh")
    win = open_window(qtbot, home)
    view = win.archive
    win.tabs.setCurrentWidget(view)
    qtbot.waitUntil(lambda: view.loaded and view.model.rowCount() > 0, timeout=10000)
    user = (win.ws.root / "USER.md").read_text(encoding="utf-8")
    gone = next(view.model.record(r).id for r in range(view.model.rowCount())
                if view.model.record(r).file == "USER.md" and view.model.record(r).text not in user)
    select_ids(view, [gone])
    view.dialogs = Dialogs(True)
    settle(qtbot, win)
    archive_refreshes.clear()
    view.restore_selected()
    qtbot.waitUntil(view.undo_button.isEnabled, timeout=10000)
    settle(qtbot, win)
    assert len(archive_refreshes) == 1
    lint = win.lint
    win.tabs.setCurrentWidget(lint)
    qtbot.waitUntil(lambda: lint.loaded and lint.model.rowCount() > 0, timeout=10000)
    fixable = next(r for r in range(lint.model.rowCount()) if lint.model.finding(r).action == "fix")
    lint.table.selectRow(fixable)
    settle(qtbot, win)
    lint_refreshes.clear()
    lint.fix_selected()
    qtbot.waitUntil(lambda: not lint.fixing, timeout=10000)
    settle(qtbot, win)
    assert len(lint_refreshes) == 1
    win.close()
