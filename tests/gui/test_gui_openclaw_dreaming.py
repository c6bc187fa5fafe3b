"""The window on the home the real OpenClaw 2026.9.6 dreamed in (issue 28 items 4-6): its sweeps and
`promote --apply` in the Dream runs tab with a sweep's counts, entries, diary, reports and
MEMORY.md diff; what left MEMORY.md in the Archive with its Restore refused in words; the
Dashboard's next sweep and candidates; the Files view's provenance and directives. Reading it all
leaves the home byte- and mtime-identical. Screenshots go to /tmp/shots-i28-oc-wire to be looked at."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from conftest import open_window, tree_state
from dreamdesk.gui.models.runs_model import COL_BY, COL_CREATED, COL_ID, COL_REMOVED, COL_STATUS, COL_TRIGGER
from helpers.openclaw_homes import copy_home, grab_sizes
from helpers.openclaw_homes import no_openclaw_of_this_machine  # noqa: F401  (autouse)

SHOTS = Path(os.environ.get("DREAMDESK_OPENCLAW_SHOTS") or Path(tempfile.gettempdir()) / "shots-i28-oc-wire")
SWEEP2 = "openclaw-sweep-2026-12-06T23:20:57.068Z"


def grab(win, name: str) -> None:
    grab_sizes(win, SHOTS, name)


@pytest.fixture
def dreamed(gui_env, qtbot, tmp_path):
    home = copy_home("dreamed", tmp_path)
    before = tree_state(home)
    win = open_window(qtbot, home)
    yield win
    assert tree_state(home) == before         # every view read, nothing written, the database included


def test_the_runs_tab_lists_openclaws_sweeps_and_shows_a_sweep_in_full(dreamed, qtbot, qtmodeltester):
    win = dreamed
    view = win._go("runs")
    qtbot.waitUntil(lambda: view.loaded and view.shown is not None, timeout=10000)
    m = view.model
    qtmodeltester.check(m)
    rows = [tuple(m.cell_text(r, c) for c in (COL_BY, COL_TRIGGER, COL_STATUS, COL_CREATED, COL_REMOVED, COL_ID))
            for r in range(m.rowCount())]
    assert rows == [("assistant", "sweep", "ok", "+1", "−1", SWEEP2),
                    ("assistant", "promotion", "ok", "+1", "−0", "openclaw-promotion-2026-12-06T23:20:14.734Z"),
                    ("assistant", "sweep", "ok", "+1", "−0", "openclaw-sweep-2026-12-06T23:19:35.817Z")]
    assert "3 Dream runs (3 by the assistant)" in view.summary.text()
    text = view.detail.toPlainText()
    assert text.startswith("sweep · by OpenClaw · ok\nDreaming sweep: added 0, merged 1, superseded 0")
    assert "Counts\nadded 0, merged 1, superseded 0 (its consolidation history)" in text
    assert "Removed entries (1)\n1. MEMORY.md · # Memory · merged\n- The user prefers green tea in the afternoon.\n" \
           "merged into:\n- The user prefers green tea in the afternoon. Source: memory/2026-12-06-standup.md" in text
    assert "Added entries (1)\n1. MEMORY.md · ## Consolidated Memory (2026-12-06) · merged" in text
    assert "Diary entry 3: the notes settled like dust in lamplight." in text
    assert "deep\nmemory/dreaming/deep/2026-12-06.md\ncompleted" in text
    assert "MEMORY.md: before → after\n--- before/MEMORY.md\n+++ after/MEMORY.md" in text
    assert "-- The user prefers green tea in the afternoon." in text
    grab(win, "openclaw-sweep")
    # the first sweep's reports were rewritten by the second sweep that day: said so
    assert view.select_run("openclaw-sweep-2026-12-06T23:19:35.817Z")
    qtbot.waitUntil(lambda: view.shown is not None and view.shown["id"].endswith("19:35.817Z"), timeout=5000)
    assert "rewritten by a later sweep that day" in view.detail.toPlainText()


def test_the_archive_tab_shows_what_left_memory_md_and_refuses_delete_in_words(dreamed, qtbot, qtmodeltester):
    from dreamdesk.gui.models.archive_model import COL_FROM, COL_REASON, COL_REPLACED, COL_RUN, COL_TEXT
    win = dreamed
    view = win._go("archive")
    qtbot.waitUntil(lambda: view.model.rowCount() == 1, timeout=10000)
    qtmodeltester.check(view.model)
    cell = lambda col: view.proxy.index(0, col).data()           # noqa: E731
    assert (cell(COL_TEXT), cell(COL_REASON)) == ("- The user prefers green tea in the afternoon.", "dream")
    assert cell(COL_RUN) == SWEEP2 and cell(COL_FROM).startswith("the assistant · pre-image 2026-12-06T23:20:57")
    assert cell(COL_REPLACED).startswith("- The user prefers green tea in the afternoon. Source: memory/")
    view.table.selectRow(0)
    qtbot.waitUntil(lambda: bool(view.detail.toPlainText()), timeout=5000)
    assert view.restore_button.isEnabled() and view.pin_button.isEnabled() and not view.delete_button.isEnabled()
    assert view.delete_button.toolTip().startswith("Known only from the assistant's own records (OpenClaw's saved")
    grab(win, "openclaw-archive")


def test_an_entry_openclaw_removed_is_restored_from_the_archive_tab(gui_env, qtbot, tmp_path):
    from helpers.archive_table import Dialogs
    home = copy_home("dreamed", tmp_path)
    win = open_window(qtbot, home)
    view = win._go("archive")
    qtbot.waitUntil(lambda: view.model.rowCount() == 1, timeout=10000)
    view.table.selectRow(0)
    view.dialogs = Dialogs(True)
    view.restore_button.click()
    memory = win.ws.root / "MEMORY.md"
    qtbot.waitUntil(lambda: "- The user prefers green tea in the afternoon.\n" in memory.read_text(encoding="utf-8")
                    and win.engine.idle, timeout=10000)
    assert "→ MEMORY.md, at the end of the section “# Memory”" in view.dialogs.asked[0][1]
    win.close()


def test_the_dashboards_dream_box_shows_the_next_sweep_and_the_leading_candidates(dreamed):
    text = dreamed.dashboard.last_run.text()
    if text.startswith("OpenClaw's dreaming sweep is due "):      # run within 15 minutes of 03:00: said first
        text = text.split("\n", 1)[1]
    assert text.startswith("Next sweep ") and "(0 3 * * *); 1 of 7 recalled candidate(s) meet the thresholds" in text
    assert "• memory/2026-12-05-retro.md:1-4  score " in text and "5 recalls, 5 queries — ready" in text
    assert "short: signals 2 < 3, unique queries 2 < 3" in text
    assert "coming step" not in text


def test_the_files_view_tells_where_a_promoted_entry_came_from_and_a_directives_status(dreamed, qtbot):
    win = dreamed
    files = win._go("files")
    files.open_path("MEMORY.md")
    qtbot.waitUntil(lambda: files.loaded is not None and files.loaded.path == "MEMORY.md", timeout=5000)
    files.go_to_line(13)                     # the entry `memory promote --apply` appended
    qtbot.waitUntil(lambda: "promoted 2026-12-06" in files.blame.text(), timeout=5000)
    blame = files.blame.text()
    assert blame.startswith("Line 13: promoted 2026-12-06 · score 0.806 · 3 recalls · from "
                            "<a href='lines:memory/2026-12-06.md:1:4'>memory/2026-12-06.md lines 1–4</a>")
    assert "3 unique queries; promoted 2026-12-06T23:20:14.734Z" in blame
    assert files.blame_line(2).startswith("Line 3: written by hand or by the agent (no promotion marker)")
    grab(win, "openclaw-provenance")
    files._blame_link("lines:memory/2026-12-06.md:1:4")        # the link opens the note, its lines selected
    qtbot.waitUntil(lambda: files.loaded.path == "memory/2026-12-06.md", timeout=5000)
    assert files.editor.textCursor().blockNumber() == 0
    files.open_path("USER.md")
    qtbot.waitUntil(lambda: files.loaded.path == "USER.md", timeout=5000)
    assert files.blame_line(4) == ("Line 5: observed 2026-11-30 · superseded → replaced by line 9 (observed "
                                   "2026-12-04)<br>replaced by: - Prefer green tea; never suggest coffee after noon.")
    assert files.blame_line(8).startswith("Line 9: observed 2026-12-04 · active<br>replaces line 5:")
