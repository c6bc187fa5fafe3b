"""Pins in the window: Pin / Unpin the entry at the cursor in the Files tab (button and context
menu), the Dashboard's pin alert that stays until Restore or Unpin (never restored on its own),
and the Archive's Restore and pin. Real widgets, real files, real watchdog."""

from __future__ import annotations

from conftest import tree_state
from helpers.gui_waits import jobs_done
from helpers.screens import grab

from dreamdesk.engine.recovery import pins
from dreamdesk.engine.recovery.archive import read_archive, write_memory
from dreamdesk.engine.disk.files import current_hash
from dreamdesk.engine.home.workspace import Workspace
from dreamdesk.gui.qt import Qt, QTextCursor
from dreamdesk.gui.views.archive_view import ArchiveView

DUTCH = "- Dutch at B1: evening class on Tuesdays at CVO Gent, 19:00–21:30 (teacher Mieke)."
def workspace(main_window) -> Workspace:
    return main_window.ws


def put_cursor_on(files, text: str) -> None:
    doc = files.editor.document()
    block = doc.find(text.split("\n")[0]).block()
    cursor = QTextCursor(block)
    files.editor.setTextCursor(cursor)


def open_file(qtbot, win, path: str) -> None:
    win.tabs.setCurrentWidget(win.files)
    win.files.open_path(path)
    qtbot.waitUntil(lambda: win.files.loaded is not None and win.files.loaded.path == path, timeout=5000)


def test_pin_and_unpin_the_entry_at_the_cursor_in_the_files_tab(qtbot, main_window):
    win, ws = main_window, workspace(main_window)
    open_file(qtbot, win, "USER.md")
    files = win.files
    before = tree_state(ws.root)
    put_cursor_on(files, DUTCH)
    qtbot.waitUntil(lambda: files.pin_button.isEnabled(), timeout=3000)
    assert files.pin_button.text() == "Pin entry"
    menu = files.context_menu()
    action = next(a for a in menu.actions() if a.objectName() == "pinAction")
    assert action.text() == "Pin entry" and action.isEnabled()
    grab(menu, "files-pin-menu.png")          # rendered, not popped up (offscreen has no popups)
    action.trigger()
    qtbot.waitUntil(lambda: files.pin_button.text() == "Unpin entry", timeout=5000)
    assert [(p.file, p.text, p.heading) for p in pins.list_pins(ws)] == [("USER.md", DUTCH, "## Identity")]
    assert "<b>Pinned</b>" in files.blame.text()
    qtbot.waitUntil(lambda: win.dashboard.pin_list.isVisibleTo(win.dashboard), timeout=5000)
    assert DUTCH.split(":")[0][2:] in win.dashboard.pin_list.rows[0].findChild(type(files.blame)).text()
    assert tree_state(ws.root) == before                       # a pin writes nothing inside the workspace
    grab(win, "files-pinned.png")

    # an unsaved edit: a pin names the entry as it is in the file, so the action waits for a save
    files.editor.moveCursor(QTextCursor.MoveOperation.EndOfBlock)
    qtbot.keyClicks(files.editor, " x")
    qtbot.waitUntil(lambda: not files.pin_button.isEnabled(), timeout=3000)
    assert "Save your edit first" in files.pin_button.toolTip()
    files.editor.undo()
    files.editor.undo()
    qtbot.waitUntil(lambda: not files.dirty and files.pin_button.isEnabled(), timeout=3000)

    qtbot.mouseClick(files.pin_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: files.pin_button.text() == "Pin entry", timeout=5000)
    assert pins.list_pins(ws) == []
    qtbot.waitUntil(lambda: not win.dashboard.pin_list.isVisibleTo(win.dashboard), timeout=5000)


def test_the_pin_alert_stays_until_restore_or_unpin(qtbot, main_window):
    win, ws = main_window, workspace(main_window)
    pins.pin(ws, "USER.md", DUTCH)
    win.refresh()
    dash = win.dashboard
    qtbot.waitUntil(lambda: dash.pin_list.isVisible(), timeout=5000)
    assert not dash.pin_alerts.isVisible()
    user = ws.root / "USER.md"
    original = user.read_bytes()
    changed = original.replace(b"on Tuesdays", b"on Thursdays")        # another writer rewrites it
    user.write_bytes(changed)
    qtbot.waitUntil(lambda: dash.pin_alerts.isVisible(), timeout=10000)  # seen through the watcher
    text = dash.pin_alerts.rows[0].findChild(type(dash.assistant)).text()
    assert "A pinned entry of <b>USER.md</b> under <b>## Identity</b> was changed" in text
    assert "Now: <code>- Dutch at B1: evening class on Thursdays" in text and "Tuesdays" in text
    assert dash.pin_alerts.title() == "Pinned entry changed (1)"
    win.tabs.setCurrentWidget(dash)
    grab(win, "dashboard-pin-alert.png")
    # nothing restores it behind anyone's back: after another read the file is as the writer left it
    before = win.state
    win.refresh()
    qtbot.waitUntil(lambda: win.state is not before, timeout=5000)
    jobs_done(qtbot, win.engine)
    assert user.read_bytes() == changed and dash.pin_alerts.isVisible()

    [pin] = pins.list_pins(ws)
    qtbot.mouseClick(dash.pin_alerts.buttons[(pin.id, "restore")], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dash.pin_alerts.isVisible(), timeout=10000)
    data = user.read_bytes()
    assert DUTCH.encode() in data and b"on Thursdays" in data       # put back; the new text stays too
    assert dash.pin_list.isVisible()

    user.write_bytes(changed)
    qtbot.waitUntil(lambda: dash.pin_alerts.isVisible(), timeout=10000)
    qtbot.mouseClick(dash.pin_alerts.buttons[(pin.id, "unpin")], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dash.pin_alerts.isVisible() and not dash.pin_list.isVisible(), timeout=10000)
    assert pins.list_pins(ws) == [] and user.read_bytes() == changed   # unpinning leaves the file alone


class Yes:
    asked: list = []

    def confirm(self, parent, title, text) -> bool:
        self.asked.append(text)
        return True


def test_restore_and_pin_from_the_archive(qtbot, gui_engine, make_workspace):
    root = make_workspace({"USER.md": "# User\n\n## Health\n- Allergic to penicillin\n- Runs on Sundays\n"})
    ws = Workspace.open(root)
    write_memory(ws, "USER.md", "# User\n\n## Health\n- Runs on Sundays\n", current_hash(root / "USER.md"), "edit")
    [rec] = read_archive(ws).records
    view = ArchiveView(gui_engine)
    qtbot.addWidget(view)
    view.resize(1000, 560)
    view.show()
    view.dialogs = Yes()
    view.set_workspace(ws)
    qtbot.waitUntil(lambda: view.model.rowCount() == 1, timeout=5000)
    changed = []
    view.pinsChanged.connect(lambda: changed.append(True))
    view.select_id(rec.id)
    assert view.pin_button.isVisible() and view.pin_button.isEnabled()
    grab(view, "archive-restore-and-pin.png")
    qtbot.mouseClick(view.pin_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(changed), timeout=10000)
    assert "- Allergic to penicillin" in (root / "USER.md").read_text()
    assert [(p.file, p.text) for p in pins.list_pins(ws)] == [("USER.md", "- Allergic to penicillin")]
    assert view.dialogs.asked[-1].startswith("Restore and pin 1 archived entry?")
