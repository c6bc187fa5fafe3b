"""The Lint tab on an OpenClaw home (issue 29 item 5), driven as a person would: the junk OpenClaw's
dreaming promoted is listed with its one-click fix and the lines that go with it (its marker), a
directive left active and the prompt cut are for review; Fix leaves MEMORY.md as OpenClaw reads its
markers (the entry and its own marker gone, the next entry's lineage and marker kept), and
Edit → Undo Last Restore puts the bytes back."""

from __future__ import annotations

import tempfile
from pathlib import Path

from conftest import open_window
from dreamdesk.engine.assistants.openclaw_provenance import parse_provenance
from dreamdesk.gui.qt import Qt
from dreamdesk.gui.views.lint_view import REVIEW_BUTTON
from helpers.archive_table import Dialogs
from helpers.openclaw_homes import COMMAND, COMMAND_MARKER, LAUNCH, LAUNCH_MARKERS, copy_home, grab_sizes, \
    with_promoted_junk
from helpers.openclaw_homes import no_openclaw_of_this_machine  # noqa: F401  (autouse)

SHOTS = Path(tempfile.gettempdir()) / "shots-i29-lint"


def _lint_tab(qtbot, win):
    view = win.lint
    win.tabs.setCurrentWidget(view)
    qtbot.waitUntil(lambda: view.loaded, timeout=10000)
    return view


def _rows(view):
    m = view.model
    return [(m.data(m.index(r, 0)), m.data(m.index(r, 1)), m.data(m.index(r, 3))) for r in range(m.rowCount())]


def test_the_lint_tab_fixes_a_promoted_command_with_its_marker_and_undoes_it(gui_env, qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("DREAMDESK_TODAY", "2026-12-07")
    home = with_promoted_junk(copy_home("dreamed", tmp_path))
    user = home / "workspace" / "USER.md"
    user.write_text(user.read_text().replace("2026-11-30 | status: superseded", "2026-11-30 | status: active"))
    memory = home / "workspace" / "MEMORY.md"
    before = memory.read_bytes()
    win = open_window(qtbot, home)
    view = _lint_tab(qtbot, win)
    assert _rows(view) == [("superseded-active", "review", "7"), ("score-metadata", "rewrite", "13"),
                           ("shell-command", "remove", "22"), ("score-metadata", "rewrite", "25"),
                           ("raw-candidate", "remove", "30")]
    assert view.summary.text() == ("5 findings: 1 superseded-active, 2 score-metadata, 1 shell-command, 1 raw-candidate"
                                   " (1 for review, with no one-click fix)")
    view.select_id("superseded-active:USER.md:7")
    assert not view.fix_button.isEnabled() and view.fix_button.text() == REVIEW_BUTTON
    assert "right 92% of the time on the labelled set" in view.detail.toPlainText()
    view.select_id("shell-command:MEMORY.md:22")
    assert view.fix_button.isEnabled()
    assert view.fix_button.text() == "Remove it from MEMORY.md, with its OpenClaw promotion marker"
    detail = view.detail.toPlainText()
    assert "It changes these lines of MEMORY.md:" in detail and COMMAND_MARKER in detail and COMMAND in detail
    grab_sizes(win, SHOTS, "openclaw-lint")
    said: list[str] = []
    view.status.connect(said.append)

    qtbot.mouseClick(view.fix_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: "shell-command" not in [r[0] for r in _rows(view)] and bool(said), timeout=15000)
    after = memory.read_text(encoding="utf-8")
    assert COMMAND not in after and COMMAND_MARKER not in after
    assert f"{LAUNCH_MARKERS[0]}\n{LAUNCH_MARKERS[1]}\n{LAUNCH}" in after
    assert not [p for p in parse_provenance(after).problems if "marker" in p]      # none left without its entry
    assert said[0].startswith("Fixed: Remove it from MEMORY.md, with its OpenClaw promotion marker; 1 archived.")

    win.undo_asks = Dialogs(True)
    win.act_undo_restore.trigger()                   # Edit → Undo Last Restore (Ctrl+Alt+Z)
    qtbot.waitUntil(lambda: memory.read_bytes() == before, timeout=10000)
    assert win.undo_asks.asked[0][0] == "Undo last restore?"
    qtbot.waitUntil(lambda: "shell-command" in [r[0] for r in _rows(view)], timeout=10000)
    win.close()
