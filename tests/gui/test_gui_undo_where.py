"""Undo where the action was (issue 25 item 9): a restore made in the Archive tab is undone from
the Archive tab (its Undo button, Ctrl+Alt+Z), every entry of it, and Edit → Undo Last Restore
undoes the last restore from any tab."""

from PySide6.QtCore import Qt

from helpers.screens import grab
from helpers.archive_table import Dialogs, select_ids

from dreamdesk.engine.recovery.archive import read_archive
from dreamdesk.engine.home.workspace import Workspace


class Asks(Dialogs):
    def error(self, parent, title, text) -> None:
        raise AssertionError(f"{title}: {text}")


def _memory(ws: Workspace) -> dict[str, bytes]:
    return {rel: (ws.root / rel).read_bytes() for rel in ("USER.md", "memory/MEMORY.md")}


def _gone(ws: Workspace, n: int) -> list[str]:
    """Ids of n archived entries of USER.md not in it now (restorable)."""
    user = (ws.root / "USER.md").read_text(encoding="utf-8")
    return [r.id for r in read_archive(ws).records if r.file == "USER.md" and r.text not in user][:n]


def _restore_in_archive(win, qtbot, ids):
    view = win.archive
    win.tabs.setCurrentWidget(view)
    qtbot.waitUntil(lambda: view.loaded and view.model.rowCount() > 0, timeout=10000)
    select_ids(view, ids)
    view.dialogs = Dialogs(True)
    view.restore_selected()
    qtbot.waitUntil(view.undo_button.isEnabled, timeout=10000)
    return view


def test_the_archive_undoes_its_own_restore_with_its_button_every_entry_of_it(past_window, qtbot):
    window = past_window
    ws = window.ws
    before, ids = _memory(ws), _gone(ws, 2)
    view = _restore_in_archive(window, qtbot, ids)
    assert _memory(ws) != before
    bar = window.statusBar()
    assert "Snapshots" not in bar.currentMessage() + bar.toolTip()      # no sending the user elsewhere
    from helpers.gui_waits import jobs_done
    jobs_done(qtbot, window.engine)                  # the state read after the restore has shown its counts
    lab = window.status_label                        # whole beside the message, not "25 pendin"
    qtbot.waitUntil(lambda: "pending" in lab.text() and lab.isVisible(), timeout=5000)
    assert lab.width() >= lab.fontMetrics().horizontalAdvance(lab.text()), (lab.width(), lab.text())
    grab(window, "archive-undo.png")
    view.undo_asks = Asks(True)
    qtbot.mouseClick(view.undo_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: _memory(ws) == before, timeout=10000)
    title, text = view.undo_asks.asked[0]
    assert title == "Undo last restore?" and "undoes the 2 restores made together" in text
    qtbot.waitUntil(lambda: not view.undo_button.isEnabled(), timeout=5000)


def test_ctrl_alt_z_in_the_archive_undoes_the_archives_restore(past_window, qtbot):
    window = past_window
    ws = window.ws
    before, ids = _memory(ws), _gone(ws, 1)
    view = _restore_in_archive(window, qtbot, ids)
    view.undo_asks = Asks(True)
    window.undo_asks = Asks(False)          # the window's own undo (the last restore only) is not the one taken
    view.table.setFocus()
    qtbot.keyClick(view.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: _memory(ws) == before, timeout=10000)
    assert len(view.undo_asks.asked) == 1


def test_edit_undo_last_restore_works_from_any_tab(past_window, qtbot):
    window = past_window
    ws = window.ws
    before, ids = _memory(ws), _gone(ws, 1)
    _restore_in_archive(window, qtbot, ids)
    window.tabs.setCurrentIndex(0)                     # the Dashboard: the restore was not made here
    window.undo_asks = Asks(True)
    edit = window.menus["edit"]
    assert edit.menuAction() in window.menuBar().actions() and edit.title() == "&Edit"
    assert [a.text() for a in edit.actions()] == ["&Undo Last Restore"]
    assert window.act_undo_restore.shortcut().toString() == "Ctrl+Alt+Z"
    window.act_undo_restore.trigger()
    qtbot.waitUntil(lambda: _memory(ws) == before, timeout=10000)
    assert window.undo_asks.asked[0][0] == "Undo last restore?"
