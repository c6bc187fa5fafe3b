"""The watch and "Since you last looked" in the real window (issue 13 §3): the Settings toggle,
the status-bar line and where it leads, the Dashboard list with Restore and Got it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import open_window
from helpers.gui_waits import counters_shown
from dreamdesk.engine.recovery import watch as watch_mod
from dreamdesk.engine.recovery.archive import read_archive
from dreamdesk.engine.text.entries import split_entries
from dreamdesk.engine.home.workspace import Workspace
from helpers.screens import SHOTS

SUNDAY = "- Sunday afternoon is family board-game time (current favourite: Dixit)."


def other_process_removes(root: Path, text: str, add: str = "") -> None:
    """Another program saves USER.md without `text` (and with `add` at the end), atomically."""
    code = ("import os, sys; p = os.path.join(sys.argv[1], 'USER.md'); t = open(p, encoding='utf-8').read()\n"
            "t = t.replace(sys.argv[2] + '\\n', '') + sys.argv[3]\n"
            "open(p + '.new', 'w', encoding='utf-8').write(t); os.replace(p + '.new', p)\n")
    subprocess.run([sys.executable, "-c", code, str(root), text, add], check=True, timeout=30)


def outside(root: Path) -> list:
    return [r for r in read_archive(Workspace.open(root)).records if r.reason == "outside"]


def test_the_watch_toggle_archives_and_the_status_line_leads_to_the_entries(gui_env, qtbot, demo_home):
    win = open_window(qtbot, demo_home)
    root = win.ws.root
    assert not win.settings.watch_here.isChecked()           # off by default
    win.tabs.setCurrentWidget(win.settings)
    win.settings.watch_here.setChecked(True)
    qtbot.waitUntil(lambda: watch_mod.watching(win.ws), timeout=10000)
    other_process_removes(root, SUNDAY)
    qtbot.waitUntil(lambda: win.watch_note.isVisible(), timeout=10000)
    assert "Another writer removed 1 entry from USER.md" in win.watch_note.text()
    (rec,) = outside(root)
    assert rec.text == SUNDAY and rec.heading == "## Preferences"
    win.watch_note.linkActivated.emit("change")               # the person clicks the line
    assert win.tabs.currentWidget() is win.archive
    # the Archive tab, never shown yet, reads when shown: the entry is selected when its rows arrive
    qtbot.waitUntil(lambda: win.archive.selected_ids() == [rec.id], timeout=10000)
    assert win.archive.reason_combo.currentText() == "outside"
    win.resize(1280, 820)
    qtbot.waitUntil(lambda: win.size().toTuple() == (1280, 820), timeout=5000)
    counters_shown(qtbot, win)                                # laid out again at the new size
    SHOTS.mkdir(parents=True, exist_ok=True)
    win.grab().save(str(SHOTS / "watch-status-line.png"))
    win.close()
    # the opt-in is remembered for this workspace
    again = open_window(qtbot, demo_home)
    assert again.settings.watch_here.isChecked() and again.ctx.upkeep.watching
    again.settings.watch_here.setChecked(False)
    qtbot.waitUntil(lambda: not watch_mod.watching(again.ws), timeout=10000)
    again.close()


def test_with_the_watch_off_nothing_is_archived(gui_env, qtbot, demo_home):
    win = open_window(qtbot, demo_home)
    root = win.ws.root
    qtbot.waitUntil(lambda: watch_mod.since_last_looked(win.ws) is not None, timeout=10000)
    other_process_removes(root, SUNDAY)
    # the window saw it (the Dashboard lists it), and archived nothing
    qtbot.waitUntil(lambda: win.dashboard.since_box.isVisible(), timeout=10000)
    assert not outside(root) and not win.watch_note.isVisible()
    win.close()


def test_since_you_last_looked_lists_restores_and_is_dismissed(gui_env, qtbot, demo_home):
    win = open_window(qtbot, demo_home)
    root = win.ws.root
    qtbot.waitUntil(lambda: watch_mod.since_last_looked(win.ws) is not None, timeout=10000)
    assert not win.dashboard.since_box.isVisible()
    win.close()
    # while Dreamdesk is closed the assistant removes one entry and adds another
    other_process_removes(root, SUNDAY, "- Started learning the cello.\n")
    win = open_window(qtbot, demo_home)
    box = win.dashboard.since_box
    qtbot.waitUntil(box.isVisible, timeout=10000)
    assert "1 entry was removed and 1 added" in box.intro.text()
    assert len(box.restore_buttons) == 1
    win.tabs.setCurrentWidget(win.dashboard)
    win.resize(1280, 820)
    qtbot.waitUntil(lambda: win.size().toTuple() == (1280, 820), timeout=5000)
    counters_shown(qtbot, win)                                # laid out again at the new size
    SHOTS.mkdir(parents=True, exist_ok=True)
    win.grab().save(str(SHOTS / "since-you-last-looked.png"))
    box.restore_buttons[0].click()
    qtbot.waitUntil(lambda: SUNDAY.encode() in (root / "USER.md").read_bytes(), timeout=10000)
    back = [e for e in split_entries((root / "USER.md").read_text(encoding="utf-8")) if e.text == SUNDAY]
    assert [e.heading for e in back] == ["## Preferences"]              # under its heading again
    qtbot.waitUntil(lambda: not box.restore_buttons, timeout=10000)      # only the addition is left
    assert "0 entries were removed and 1 added" in box.intro.text()
    box.gotIt.click()
    qtbot.waitUntil(lambda: not box.isVisible(), timeout=10000)
    assert watch_mod.since_last_looked(Workspace.open(root)).empty
    win.close()
