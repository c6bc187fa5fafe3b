"""The Dream runs table on an OpenClaw home at 1280×720 (issue 28 item 5): every run whole when
there are few, and at least six runs above the detail when there are many — after the window was
resized, and at the next start when the person never moved the splitter (sizes fitted to the
last home's three runs used to be restored as if chosen: two rows and a half). Sizes the person
did choose are still put back. Screenshots go to /tmp/shots-i28-oc-runs to be looked at."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from conftest import open_window
from dreamdesk.gui.qt import QApplication
from helpers.gui_waits import jobs_done
from helpers.openclaw_homes import copy_home, grab_sizes
from helpers.openclaw_homes import no_openclaw_of_this_machine  # noqa: F401  (autouse)
from helpers.table_sight import rows_in_sight

SHOTS = Path(os.environ.get("DREAMDESK_OPENCLAW_SHOTS") or Path(tempfile.gettempdir()) / "shots-i28-oc-runs")
LAPTOP = (1280, 720)


def with_sweeps(home: Path, n: int) -> Path:
    """The home's DREAMS.md with `n` more sweeps in its consolidation history (one a night in
    November, nothing changed), as OpenClaw writes a sweep's block: each is a run."""
    dreams = home / "workspace" / "DREAMS.md"
    blocks = "".join(f"### 2026-11-{day:02d}T03:00:00.000Z\n\n- Added: 0\n- Merged: 0\n- Superseded: 0\n\n"
                     for day in range(1, n + 1))
    text = dreams.read_text(encoding="utf-8")
    dreams.write_text(text.replace("## Deep Sleep", blocks + "## Deep Sleep", 1), encoding="utf-8")
    return home


def runs_shown(win, qtbot):
    view = win._go("runs")
    qtbot.waitUntil(lambda: view.loaded and view.shown is not None, timeout=10000)
    jobs_done(qtbot, win.engine)
    QApplication.processEvents()                # the layout the rows' arrival posts
    return view


def resized(win, *size: int) -> None:
    win.resize(*size)
    QApplication.processEvents()


def test_after_a_resize_to_1280x720_every_run_of_a_short_list_is_whole(gui_env, qtbot, tmp_path):
    win = open_window(qtbot, copy_home("dreamed", tmp_path))
    view = runs_shown(win, qtbot)
    for size in ((1280, 820), LAPTOP):
        resized(win, *size)
        assert rows_in_sight(view.table) == 3, (size, view.splitter.sizes())
    assert view.detail.height() >= view.splitter.height() // 2      # the detail keeps the rest
    win.close()


def test_at_the_next_start_many_runs_get_their_rows_unless_the_person_chose_the_sizes(gui_env, qtbot, tmp_path):
    win = open_window(qtbot, copy_home("dreamed", tmp_path / "short"))
    runs_shown(win, qtbot)
    resized(win, 1280, 820)
    resized(win, *LAPTOP)
    win.close()                                  # the splitter as fitted to three runs, never moved
    win = open_window(qtbot, with_sweeps(copy_home("dreamed", tmp_path / "long"), 27))
    resized(win, *LAPTOP)
    view = runs_shown(win, qtbot)
    assert view.model.rowCount() == 30
    assert rows_in_sight(view.table) >= 6, view.splitter.sizes()
    detail = view.detail.height()
    assert detail >= 250, view.splitter.sizes()                    # the run's detail keeps its room
    grab_sizes(win, SHOTS, "runs-many")
    resized(win, *LAPTOP)
    view.splitter.moveSplitter(view.splitter.sizes()[0] // 2, 1)    # the person drags the handle up
    chosen = view.splitter.sizes()
    win.close()
    win = open_window(qtbot, with_sweeps(copy_home("dreamed", tmp_path / "again"), 27))
    resized(win, *LAPTOP)
    view = runs_shown(win, qtbot)
    assert view.splitter.sizes() == chosen and view.rows.kept
    win.close()
