"""The window on an OpenClaw home, what issue 28 still missed there (items 1, 4, 5): a chooser
for a home with several agents, remembered per home; the daily notes in the Files view's list with
their day, slug or time and size, the /new prelude's marked; OpenClaw's saved MEMORY.md versions
in the Dream runs tab, each shown against the current file. Screenshots go to
/tmp/shots-i28-oc-ui to be looked at."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from PySide6.QtCore import Qt

from conftest import open_window, tree_state
from helpers.gui_waits import jobs_done
from helpers.openclaw_homes import copy_home, grab_sizes
from helpers.openclaw_homes import no_openclaw_of_this_machine  # noqa: F401  (autouse)

SWEEP2 = "openclaw-sweep-2026-12-06T23:20:57.068Z"
SHOTS = Path(os.environ.get("DREAMDESK_OPENCLAW_SHOTS") or Path(tempfile.gettempdir()) / "shots-i28-oc-ui")


def grab(win, name: str) -> None:
    grab_sizes(win, SHOTS, name)


def two_agents(tmp_path: Path) -> Path:
    """The dreamed home with a second agent, "work", keeping its own workspace (none marked the default)."""
    home = copy_home("dreamed", tmp_path)
    work = tmp_path / "work-claw"
    work.mkdir()
    (work / "MEMORY.md").write_text("# Memory\n\n- The work agent keeps the release calendar.\n", encoding="utf-8")
    config = json.loads((home / "openclaw.json").read_text(encoding="utf-8"))
    config["agents"]["entries"]["work"] = {"workspace": str(work)}
    (home / "openclaw.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
    return home


def test_the_dashboard_switches_between_a_homes_agents_and_remembers_the_choice(gui_env, qtbot, tmp_path):
    home = two_agents(tmp_path)
    before = tree_state(home)
    win = open_window(qtbot, home)
    d = win.dashboard
    assert win.ws.root == home / "workspace" and win.ws.layout.agent == "main"
    combo = d.agent_choice
    assert combo.isVisible() and [combo.itemText(i) for i in range(combo.count())] == ["main", "work"]
    assert combo.currentText() == "main"
    combo.activated.emit(1)                       # what choosing "work" in the combo sends
    qtbot.waitUntil(lambda: win.ws.root == tmp_path / "work-claw" and win.state is not None
                    and win.state.status.assistant.agent == "work", timeout=10000)
    assert combo.currentText() == "work" and "agent work; the home&#x27;s other agents: main" in d.assistant.text()
    assert win.state.status.whats_next["candidates"] == []          # main's recall store is main's
    assert "0 of 0 recalled candidate(s)" in d.last_run.text() and "• memory/" not in d.last_run.text()
    assert win.ws.home == home
    jobs_done(qtbot, win.engine)
    grab(win, "agent-chooser")
    win.close()
    # opened again as the home (the recent list's path): the agent chosen last
    win = open_window(qtbot, home)
    assert win.ws.root == tmp_path / "work-claw" and win.dashboard.agent_choice.currentText() == "work"
    # an agent's own workspace folder opens that agent, whatever was chosen for the home
    assert win.open_workspace(str(home / "workspace"))
    qtbot.waitUntil(lambda: win.ws.root == home / "workspace", timeout=5000)
    jobs_done(qtbot, win.engine)
    win.close()
    assert tree_state(home) == before


def test_a_home_with_one_agent_shows_no_chooser(gui_env, qtbot, tmp_path):
    win = open_window(qtbot, copy_home("dreamed", tmp_path))
    assert not win.dashboard.agent_choice.isVisible() and not win.dashboard.agent_label.isVisible()
    win.close()


def test_the_files_view_lists_daily_notes_by_day_slug_and_size_the_prelude_marked(gui_env, qtbot, tmp_path):
    import time

    from dreamdesk.engine.assistants.openclaw_prelude import day_stamps
    from dreamdesk.gui.widgets.file_list import NOTES_HEADING, PRELUDE_MARK, path_of
    home = copy_home("dreamed", tmp_path)
    zone = json.loads((home / "openclaw.json").read_text(encoding="utf-8"))["agents"]["defaults"].get("userTimezone")
    stamps = day_stamps(time.time() * 1000, zone, 2)           # today and yesterday, as OpenClaw's /new counts them
    today = stamps[0]
    (home / "workspace" / "memory" / f"{today}-1432.md").write_text("# Session\n\n- Talked about the trip.\n",
                                                                  encoding="utf-8")
    before = tree_state(home)
    win = open_window(qtbot, home)
    view = win._go("files")
    lst = view.list
    qtbot.waitUntil(lambda: bool(lst.findItems(NOTES_HEADING, Qt.MatchFlag.MatchExactly)), timeout=5000)
    rows = [(lst.item(i).text(), path_of(lst.item(i))) for i in range(lst.count())]
    at = rows.index((NOTES_HEADING, ""))
    # the memory files first, by path; then the notes apart, newest day first, by day, slug or time, size
    assert [p for _t, p in rows[:at]] == ["AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md", "MEMORY.md", "DREAMS.md"][:at]
    assert rows[at + 1] == (f"{PRELUDE_MARK}{today} · 14:32 · 36 B", f"memory/{today}-1432.md")
    # (a /new quotes today's and yesterday's notes: which of the fixture's, depends on the day the test runs)
    mark = {day: PRELUDE_MARK if day in stamps else "" for day in ("2026-12-06", "2026-12-05", "2026-12-04")}
    assert rows[at + 2:] == [(f"{mark['2026-12-06']}2026-12-06 · the day's note · 74 B", "memory/2026-12-06.md"),
                             (f"{mark['2026-12-06']}2026-12-06 · standup · 47 B", "memory/2026-12-06-standup.md"),
                             (f"{mark['2026-12-05']}2026-12-05 · the day's note · 86 B", "memory/2026-12-05.md"),
                             (f"{mark['2026-12-05']}2026-12-05 · retro · 82 B", "memory/2026-12-05-retro.md"),
                             (f"{mark['2026-12-04']}2026-12-04 · the day's note · 117 B", "memory/2026-12-04.md")]
    assert "/new: quoted whole" in lst.item(at + 1).toolTip()
    # a note is opened by its path, as any file; the heading is never chosen
    lst.setCurrentRow(at + 3)
    qtbot.waitUntil(lambda: view.loaded is not None and view.loaded.path == "memory/2026-12-06-standup.md",
                    timeout=5000)
    assert not lst.item(at).flags() & Qt.ItemFlag.ItemIsSelectable
    view.open_path("MEMORY.md")
    qtbot.waitUntil(lambda: view.loaded.path == "MEMORY.md", timeout=5000)
    jobs_done(qtbot, win.engine)
    grab(win, "files-daily-notes")
    win.close()
    assert tree_state(home) == before



def test_the_runs_tab_lists_openclaws_saved_versions_and_shows_one_against_the_file_now(gui_env, qtbot, tmp_path):
    from PySide6.QtCore import QUrl
    home = copy_home("dreamed", tmp_path)
    before = tree_state(home)
    win = open_window(qtbot, home)
    view = win._go("runs")
    qtbot.waitUntil(lambda: view.loaded and view.shown is not None, timeout=10000)
    assert view.select_run(SWEEP2)
    qtbot.waitUntil(lambda: view.shown.get("id") == SWEEP2, timeout=5000)
    text = view.detail.toPlainText()
    assert "Saved version\nMEMORY.md before it: 2026-12-06T23:20:57.068Z · 235a7a3c" in text
    assert "Restore points (2): MEMORY.md as OpenClaw saved it\nRestoring one puts MEMORY.md back as it was " \
           "saved" in text
    assert "2026-12-06T23:19:35.817Z · 5bf8ca01 · " in text
    key = view._points()[0]["key"]
    assert f"point:{key}" in view.detail.toHtml()
    view.detail.anchorClicked.emit(QUrl(f"point:{key}"))        # what clicking the link sends
    qtbot.waitUntil(lambda: "→ the file now" in view.detail.toPlainText(), timeout=5000)
    shown = view.detail.toPlainText()
    assert shown.startswith("← back to the run\nMEMORY.md saved 2026-12-06T23:20:57.068Z · 235a7a3c → the file now")
    # the entry the sweep merged away was in the saved version and is not in the file now
    assert "\n-- The user prefers green tea in the afternoon.\n" in shown
    assert "\n+<!-- openclaw-memory-promotion:memory:memory/2026-12-06-standup.md:1:2 -->\n" in shown
    assert "Restore this version…" in shown
    grab(win, "runs-saved-version")
    view.detail.anchorClicked.emit(QUrl(f"back:{SWEEP2}"))
    assert view.detail.toPlainText().startswith("sweep · by OpenClaw · ok")
    view.detail.anchorClicked.emit(QUrl(f"point:{key}"))
    qtbot.waitUntil(lambda: "→ the file now" in view.detail.toPlainText(), timeout=5000)
    jobs_done(qtbot, win.engine)
    win.close()
    assert tree_state(home) == before                       # looking wrote nothing


def test_a_saved_version_is_restored_from_the_runs_tab_and_undone(gui_env, qtbot, tmp_path):
    from PySide6.QtCore import QUrl

    from helpers.archive_table import Dialogs
    home = copy_home("dreamed", tmp_path)
    memory = home / "workspace" / "MEMORY.md"
    raw = memory.read_bytes()
    win = open_window(qtbot, home)
    view = win._go("runs")
    qtbot.waitUntil(lambda: view.loaded and view.shown is not None, timeout=10000)
    point = view._points()[0]
    view.detail.anchorClicked.emit(QUrl(f"point:{point['key']}"))
    qtbot.waitUntil(lambda: "Restore this version…" in view.detail.toPlainText(), timeout=5000)
    view.dialogs = Dialogs(True)
    view.detail.anchorClicked.emit(QUrl(f"restore-point:{point['key']}"))
    qtbot.waitUntil(lambda: memory.read_text(encoding="utf-8") == point["content"] and win.engine.idle
                    and "byte for byte" in view.detail.toPlainText(), timeout=10000)
    assert view.dialogs.asked[0][0] == "Restore a saved version"
    grab(win, "runs-saved-version-restored")
    win.undo_asks = Dialogs(True)
    win.undo_last_restore()
    qtbot.waitUntil(lambda: memory.read_bytes() == raw and win.engine.idle, timeout=10000)
    win.close()
