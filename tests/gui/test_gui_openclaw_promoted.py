"""The Files view's panel of promoted entries on the home the real OpenClaw 2026.9.6 dreamed in
(issue 28 item 4): MEMORY.md's promoted entries listed beside the editor with when, score,
recalls and source; choosing one puts the editor's cursor on it; its source link opens the daily
note with those lines selected. No panel for a file or home with no promotion marker. Reading
writes nothing. Screenshots go to /tmp/shots-i28-oc-promoted to be looked at."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from conftest import open_window, tree_state
from dreamdesk.gui.qt import QApplication, Qt
from helpers.gui_waits import jobs_done
from helpers.openclaw_homes import copy_home, grab_sizes
from helpers.openclaw_homes import no_openclaw_of_this_machine  # noqa: F401  (autouse)

SHOTS = Path(os.environ.get("DREAMDESK_OPENCLAW_SHOTS") or Path(tempfile.gettempdir()) / "shots-i28-oc-promoted")
NOTE = "memory/2026-12-06.md"


@pytest.fixture
def memory_open(gui_env, qtbot, tmp_path):
    """The dreamed home's window on the Files view with MEMORY.md open; nothing written by the end."""
    home = copy_home("dreamed", tmp_path)
    before = tree_state(home)
    win = open_window(qtbot, home)
    files = win._go("files")
    files.open_path("MEMORY.md")
    qtbot.waitUntil(lambda: files.loaded is not None and files.loaded.path == "MEMORY.md", timeout=5000)
    yield win, files, home
    jobs_done(qtbot, win.engine)
    win.close()
    assert tree_state(home) == before


def items(panel) -> list[str]:
    m = panel.model
    return [m.index(r).data() for r in range(m.rowCount())]


def click_row(qtbot, view, row: int) -> None:
    rect = view.visualRect(view.model().index(row, 0))
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def test_memory_md_lists_its_promoted_entries_beside_the_editor(memory_open, qtmodeltester):
    win, files, _home = memory_open
    panel = files.promoted
    qtmodeltester.check(panel.model)
    assert panel.isVisible() and panel.title.text() == "<b>Promoted entries (3)</b>"
    assert items(panel) == [
        "Line 8 · consolidated 2026-12-06\nno score in the file · 4 recalls\nfrom memory/2026-12-04.md lines 1–5\n"
        "# 2026-12-04 - Kubernetes cluster upgrade is blocked on the storage driver. - Booked the Lisbon offsite "
        "for May 12.",
        "Line 13 · promoted 2026-12-06\nscore 0.806 · 3 recalls\nfrom memory/2026-12-06.md lines 1–4\n"
        "# 2026-12-06 - Storage driver patch landed; cluster upgrade can proceed.",
        "Line 17 · consolidated 2026-12-06\nno score in the file · 3 recalls\nfrom memory/2026-12-06-standup.md "
        "lines 1–2\nThe user prefers green tea in the afternoon."]
    # beside the editor, right of it, both with room; each item whole in its height
    editor_right = files.editor.mapTo(files, files.editor.rect().topRight()).x()
    assert panel.mapTo(files, panel.rect().topLeft()).x() > editor_right
    assert files.editor.width() >= 300 and panel.width() >= 250
    view = panel.list
    for r in range(3):
        rect = view.visualRect(panel.model.index(r))
        assert rect.height() >= 4 * view.fontMetrics().lineSpacing() and view.viewport().rect().contains(rect)
    tip = panel.model.index(0).data(Qt.ItemDataRole.ToolTipRole)
    assert "importance 8" in tip and "4 unique queries" in tip


def test_choosing_an_entry_puts_the_cursor_on_it_and_its_source_link_opens_the_lines(memory_open, qtbot):
    win, files, home = memory_open
    panel = files.promoted
    click_row(qtbot, panel.list, 1)
    cursor = files.editor.textCursor()
    assert cursor.blockNumber() == 12 and cursor.positionInBlock() == 0 and not cursor.hasSelection()
    assert files.editor.textCursor().block().text().startswith("- # 2026-12-06 - Storage driver patch landed")
    detail = panel.detail.text()
    assert detail.startswith("<b>Line 13</b>: promoted 2026-12-06 · score 0.806 · 3 recalls")
    href = f"lines:{NOTE}:1:4"
    assert f"from <a href='{href}'>{NOTE} lines 1–4</a>" in detail
    qtbot.waitUntil(lambda: files.blame.text().startswith("Line 13: promoted"), timeout=5000)
    [mark] = files.editor.extraSelections()            # the chosen entry shaded in the editor
    assert mark.cursor.selectedText().startswith("- # 2026-12-06 - Storage driver patch landed")
    assert mark.cursor.selectedText().endswith("<!-- importance: 8 -->")
    grab_sizes(win, SHOTS, "promoted-panel")
    panel.detail.linkActivated.emit(href)              # what clicking the link sends
    qtbot.waitUntil(lambda: files.loaded.path == NOTE, timeout=5000)
    cursor = files.editor.textCursor()
    lines = (home / "workspace" / NOTE).read_text(encoding="utf-8").split("\n")
    assert cursor.selectedText().replace("\u2029", "\n") == "\n".join(lines[:4])
    assert cursor.blockNumber() == 0                   # the selection's start in sight
    assert files.list.current_path() == NOTE
    assert not panel.isVisible()                       # a daily note has no promoted entry
    qtbot.waitUntil(lambda: files.blame.text().startswith("Line 1: structure"), timeout=5000)   # the note's own
    assert files.editor.extraSelections() == []
    grab_sizes(win, SHOTS, "promoted-source-opened")


def test_the_blame_lines_link_selects_the_same_lines(memory_open, qtbot):
    _win, files, home = memory_open
    files.go_to_line(13)
    qtbot.waitUntil(lambda: f"href='lines:{NOTE}:1:4'" in files.blame.text(), timeout=5000)
    files._blame_link(f"lines:{NOTE}:1:4")
    qtbot.waitUntil(lambda: files.loaded.path == NOTE, timeout=5000)
    lines = (home / "workspace" / NOTE).read_text(encoding="utf-8").split("\n")
    assert files.editor.textCursor().selectedText().replace("\u2029", "\n") == "\n".join(lines[:4])


def test_the_row_follows_the_editors_cursor(memory_open, qtbot):
    _win, files, _home = memory_open
    panel = files.promoted
    files.go_to_line(17)
    qtbot.waitUntil(lambda: panel.list.currentIndex().row() == 2, timeout=5000)
    assert files.editor.textCursor().blockNumber() == 16       # following moved nothing back
    assert panel.detail.text().startswith("<b>Line 17</b>: consolidated 2026-12-06 · 3 recalls")
    files.go_to_line(3)                                         # a hand-written entry: the row stays
    qtbot.waitUntil(lambda: files.blame.text().startswith("Line 3:"), timeout=5000)
    assert panel.list.currentIndex().row() == 2


def test_no_panel_for_user_md_of_the_same_home(memory_open, qtbot):
    _win, files, _home = memory_open
    files.open_path("USER.md")
    qtbot.waitUntil(lambda: files.loaded.path == "USER.md", timeout=5000)
    assert not files.promoted.isVisible() and files.promoted.model.rowCount() == 0


def test_no_panel_on_a_home_without_promotion_markers(main_window, qtbot):
    files = main_window._go("files")                   # the demo: a Jenny-style home (nanobot's: the same default)
    files.open_path("memory/MEMORY.md")
    qtbot.waitUntil(lambda: files.loaded is not None and files.loaded.path == "memory/MEMORY.md", timeout=5000)
    QApplication.processEvents()
    assert not files.promoted.isVisible() and files.promoted.model.rowCount() == 0
    assert files.editor.width() > files.width() // 2            # the editor has the room
