"""The Files tab and the size views on CRLF and BOM files (issue 11, item 1), driven as a person
would: offscreen, real widgets, real files."""

from __future__ import annotations

import re

import pytest

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QApplication

from conftest import open_window

BOM = "\ufeff".encode("utf-8")
LINES = ["# User", "", "## Identity", "- Inès, 37, data engineer in Ghent.", "- Says\u00a0“merci” with a no-break space.",
         "", "## Preferences", "- Answer first, reasoning after.", "- Metric units."]


def crlf_home(make_workspace, tmp_path, bom=True):
    data = (BOM if bom else b"") + ("\r\n".join(LINES) + "\r\n").encode("utf-8")
    root = make_workspace({"USER.md": data, "SOUL.md": "I am Jenny.\r\n", "memory/MEMORY.md": "# Memory\n"},
                          root=tmp_path / "crlf")
    return root, data


def open_user_md(win, qtbot):
    win.tabs.setCurrentWidget(win.files)
    win.files.open_path("USER.md")
    qtbot.waitUntil(lambda: win.files.loaded is not None and win.files.loaded.path == "USER.md", timeout=5000)


def press_enter_on_every_dialog(qtbot, pressed: list):
    """Answer whatever modal dialog comes up with Enter (its default button), as a hurried person."""
    def answer():
        box = QApplication.activeModalWidget()
        if box is not None:
            pressed.append(box.windowTitle())
            qtbot.keyClick(box, Qt.Key.Key_Return)
    timer = QTimer()
    timer.timeout.connect(answer)
    timer.start(50)
    return timer


@pytest.mark.parametrize("odd", ["", "- A paragraph\u2029separator the editor shows as a line break.\r\n"])
def test_viewing_a_crlf_bom_file_leaves_it_unsaved_free_and_closing_with_enter_keeps_its_bytes(
        gui_env, qtbot, make_workspace, tmp_path, odd):
    root, data = crlf_home(make_workspace, tmp_path)
    data += odd.encode("utf-8")
    (root / "USER.md").write_bytes(data)
    win = open_window(qtbot, root)
    del win.unsaved_choice                      # the real question, as the person sees it
    pressed = []
    timer = press_enter_on_every_dialog(qtbot, pressed)
    try:
        open_user_md(win, qtbot)
        unsaved = win.files.dirty or "unsaved" in win.files.size_line.text() or win.files.save_button.isEnabled()
        win.close()
        qtbot.waitUntil(lambda: not win.isVisible(), timeout=5000)
    finally:
        timer.stop()
        win.unsaved_choice = lambda: "discard"  # a failed run never leaves a question open
    assert (root / "USER.md").read_bytes() == data
    assert not unsaved and pressed == []        # nothing was unsaved, so nothing was asked


def test_editing_one_line_of_a_crlf_file_saves_only_that_line(gui_env, qtbot, make_workspace, tmp_path):
    root, data = crlf_home(make_workspace, tmp_path)
    win = open_window(qtbot, root)
    open_user_md(win, qtbot)
    files, ed = win.files, win.files.editor
    ed.moveCursor(QTextCursor.MoveOperation.End)
    ed.moveCursor(QTextCursor.MoveOperation.Up)                 # the last line: "- Metric units."
    ed.moveCursor(QTextCursor.MoveOperation.EndOfLine)
    qtbot.keyClicks(ed, " Always.")
    assert files.dirty and "unsaved" in files.size_line.text()
    files.save()
    qtbot.waitUntil(lambda: not files.dirty, timeout=5000)
    after = (root / "USER.md").read_bytes()
    before_lines, after_lines = data.splitlines(keepends=True), after.splitlines(keepends=True)
    assert [(a, b) for a, b in zip(before_lines, after_lines) if a != b] == \
        [(b"- Metric units.\r\n", b"- Metric units. Always.\r\n")]
    assert len(after_lines) == len(before_lines) and after.startswith(BOM)
    win.close()


def _number(text: str) -> int:
    return int(re.search(r"([\d,]+) (/ [\d,]+ )?characters", text).group(1).replace(",", ""))


def test_every_view_shows_the_same_size_for_a_crlf_bom_file(gui_env, qtbot, make_workspace, tmp_path):
    root, data = crlf_home(make_workspace, tmp_path)
    injected = len(data.decode("utf-8").replace("\r\n", "\n"))  # nanobot's read_text: BOM kept, \r\n -> \n
    win = open_window(qtbot, root)
    gauge = win.dashboard.gauges["USER.md"]
    settings = int(re.match(r"now ([\d,]+) ", win.settings.budget_now["USER.md"].text()).group(1).replace(",", ""))
    row = next(i for i, p in enumerate(win.prompt.preview.parts) if p.name == "USER.md")
    prompt = int(win.prompt.table.item(row, 1).text().replace(",", ""))
    open_user_md(win, qtbot)
    files = _number(win.files.size_line.text())
    assert (gauge.chars, settings, prompt, files) == (injected,) * 4
    win.close()


def test_an_entry_under_the_first_heading_of_a_bom_file_goes_back_under_it(make_workspace, tmp_path):
    from dreamdesk.engine.recovery.edits import save_edit
    from dreamdesk.engine.disk.files import current_hash
    from dreamdesk.engine.recovery.restore import restore_archive_entry
    from dreamdesk.engine.home.workspace import Workspace
    from dreamdesk.engine.recovery.prune_restores import plan_placements
    data = BOM + b"# User\r\n- Likes tea.\r\n- Metric units.\r\n"
    ws = Workspace.open(make_workspace({"USER.md": data, "SOUL.md": "I am Jenny.\n"}, root=tmp_path / "bom"))
    (rec,) = save_edit(ws, "USER.md", "# User\n- Metric units.\n", current_hash(ws.root / "USER.md")).archived
    assert rec.heading == "# User"
    (placement,) = plan_placements(ws, [rec.id])
    assert placement.describe() == f"{rec.id} → USER.md, at the end of the section “# User”"
    restore_archive_entry(ws, rec.id)
    assert (ws.root / "USER.md").read_bytes() == BOM + b"# User\r\n- Metric units.\r\n- Likes tea.\r\n"
