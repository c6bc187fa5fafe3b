"""Live views follow their file as `tail -f` does (issue 25.4): History scrolled to the bottom stays
at the bottom while lines are appended to memory/history.jsonl (the new rows and the `.cursor`
marker in sight); scrolled elsewhere it stays put and says "N new below", a click on which goes
down. The Engine panel's log keeps its newest line in sight while it was at the bottom."""

from __future__ import annotations

import json

import pytest
from conftest import open_window

from dreamdesk.gui.qt import QPoint, Qt

ENTRIES = 300


def entry(cursor: int) -> str:
    return json.dumps({"cursor": cursor, "timestamp": "2026-11-01 10:00", "content": f"fact number {cursor}",
                       "session_key": "telegram:5512"}) + "\n"


@pytest.fixture
def history_window(gui_env, qtbot, make_workspace, tmp_path):
    """The window on a workspace of ENTRIES history entries, the History tab shown."""
    home = make_workspace({"SOUL.md": "# Soul\n", "USER.md": "# User\n", "memory/MEMORY.md": "# Memory\n",
                           "memory/history.jsonl": "".join(entry(c) for c in range(1, ENTRIES + 1)),
                           "memory/.cursor": str(ENTRIES), "memory/.dream_cursor": "0"}, root=tmp_path / "home")
    win = open_window(qtbot, home)
    win.tabs.setCurrentWidget(win.history)
    qtbot.waitUntil(lambda: win.history.model.entry_count == ENTRIES, timeout=10000)
    yield win, home
    win.close()


def append(home, first: int, count: int) -> None:
    """The assistant appends `count` entries and moves .cursor to the last one, as nanobot does."""
    with open(home / "memory" / "history.jsonl", "a", encoding="utf-8") as f:
        f.write("".join(entry(c) for c in range(first, first + count)))
    (home / "memory" / ".cursor").write_text(str(first + count - 1))


def row_in_sight(view, src_row: int) -> bool:
    rect = view.table.visualRect(view.proxy.mapFromSource(view.model.index(src_row, 0)))
    return rect.isValid() and view.table.viewport().rect().contains(rect)


def test_at_the_bottom_history_follows_appended_lines(history_window, qtbot):
    win, home = history_window
    view = win.history
    bar = view.table.verticalScrollBar()
    view.table.scrollToBottom()
    qtbot.waitUntil(lambda: bar.maximum() > 0 and bar.value() == bar.maximum(), timeout=5000)
    for first in (ENTRIES + 1, ENTRIES + 4):                 # two appends, each seen by the real watcher
        append(home, first, 3)
        qtbot.waitUntil(lambda: view.model.entry_count == first + 2 and view.model.cursor == first + 2,
                        timeout=10000)
        qtbot.waitUntil(lambda: bar.value() == bar.maximum(), timeout=5000)
        last = view.model.row_for_cursor(first + 2)
        cursor_marker = view.model.marker_rows[1]
        assert cursor_marker == view.model.rowCount() - 1            # .cursor after the last entry
        assert row_in_sight(view, last) and row_in_sight(view, cursor_marker)
    assert not view.follow.button.isVisible()


def test_scrolled_up_history_stays_put_and_says_how_many_rows_are_new(history_window, qtbot):
    win, home = history_window
    view = win.history
    bar = view.table.verticalScrollBar()
    view.table.scrollToBottom()
    bar.setValue(bar.maximum() // 2)                      # the person reads somewhere in the middle
    top = view.table.indexAt(QPoint(1, 1)).row()
    view.table.selectRow(top + 2)                          # (the reload keeps this selection)
    append(home, ENTRIES + 1, 3)
    qtbot.waitUntil(lambda: view.follow.button.isVisible(), timeout=10000)
    assert view.follow.button.text() == "3 new below ↓"
    assert view.table.indexAt(QPoint(1, 1)).row() == top                  # the view did not move
    append(home, ENTRIES + 4, 2)
    qtbot.waitUntil(lambda: view.follow.button.text() == "5 new below ↓", timeout=10000)
    assert view.table.indexAt(QPoint(1, 1)).row() == top
    qtbot.mouseClick(view.follow.button, Qt.MouseButton.LeftButton)
    assert bar.value() == bar.maximum() and not view.follow.button.isVisible()
    assert row_in_sight(view, view.model.marker_rows[1])
    append(home, ENTRIES + 6, 1)                          # following again from the bottom
    qtbot.waitUntil(lambda: view.model.entry_count == ENTRIES + 6, timeout=10000)
    qtbot.waitUntil(lambda: row_in_sight(view, view.model.row_for_cursor(ENTRIES + 6)), timeout=5000)
    assert not view.follow.button.isVisible()


def test_scrolling_down_to_the_new_rows_clears_the_count(history_window, qtbot):
    win, home = history_window
    view = win.history
    bar = view.table.verticalScrollBar()
    bar.setValue(0)
    append(home, ENTRIES + 1, 2)
    qtbot.waitUntil(lambda: view.follow.button.text() == "2 new below ↓" and view.follow.button.isVisible(),
                    timeout=10000)
    bar.setValue(bar.maximum())                           # the person scrolls down by hand
    assert not view.follow.button.isVisible()


def test_the_engine_log_keeps_its_newest_line_in_sight(qtbot, qapp, gui_engine, gui_env, make_workspace):
    from conftest import pending_files
    from dreamdesk.engine.home.workspace import Workspace
    from dreamdesk.gui.views.engine_panel import EnginePanel
    panel = EnginePanel(gui_engine)
    panel.set_workspace(Workspace.open(make_workspace(pending_files("Likes tea"))))   # (its log is per workspace)
    qtbot.addWidget(panel)
    panel.resize(330, 500)
    panel.show()
    qtbot.waitExposed(panel)
    bar = panel.log.verticalScrollBar()
    for i in range(80):            # long lines wrap in the narrow dock: laid out after they are added
        panel._on_progress({"pass": "consolidation", "iteration": i, "limit": 80, "tokens": 1000 * i,
                            "tool": "edit_file", "ok": True, "message": f"line {i} " + "word " * 30}, panel.ws)
        qapp.processEvents()       # each progress event arrives on its own turn of the event loop
    qtbot.waitUntil(lambda: bar.maximum() > 0 and bar.value() == bar.maximum(), timeout=5000)
    last = panel.log.document().lastBlock()
    assert panel.log.blockBoundingGeometry(last).translated(panel.log.contentOffset()).bottom() \
        <= panel.log.viewport().height() + 1                         # the newest line is in sight
    held = bar.maximum() // 2
    bar.setValue(held)                                    # scrolled up to read: new lines do not pull it
    before = bar.maximum()
    for i in range(5):
        panel._on_progress({"pass": "deduction", "iteration": i, "limit": 5, "message": f"more {i} " + "word " * 30}, panel.ws)
    qtbot.waitUntil(lambda: bar.maximum() > before, timeout=5000)     # their lines are laid out
    assert bar.value() == held
