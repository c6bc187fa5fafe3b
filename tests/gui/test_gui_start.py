"""Starting small (issue 14, design item 4): the tabs after the Dashboard are built when first
shown, their modules imported then; the first-ever start shows the window at once and builds
the demo copy behind it. Counts of modules, never wall time (that is tests/bench/test_bench_start.py)."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO

# what only the tabs after the Dashboard need: none of it is loaded until one of them is shown
UNSHOWN = ("dreamdesk.gui.views.history_view", "dreamdesk.gui.views.files_view", "dreamdesk.gui.views.settings_view", "dreamdesk.gui.views.snapshots_view",
           "dreamdesk.gui.views.archive_view", "dreamdesk.gui.views.runs_view", "dreamdesk.gui.views.lint_view",
           "dreamdesk.engine.lint.memory_lint", "dreamdesk.gui.views.prompt_view", "dreamdesk.gui.views.charts_view",
           "dreamdesk.gui.widgets.diff_view", "dreamdesk.gui.widgets.highlighter", "pygments.lexers.markup", "PySide6.QtCharts",
           "dreamdesk.engine.dream.run")      # (the run state the dashboard shows has its own module)
# what the window's frame paints without (issue 14 row 3): the engine, the Dashboard, the Engine panel,
# the worker lanes, the log file's handlers; loaded right after the first paint
FRAME_WITHOUT = ("dreamdesk.engine.home.workspace", "dreamdesk.engine.home.history", "dreamdesk.engine.home.config", "msgspec", "dreamdesk.gui.views.dashboard",
                 "dreamdesk.gui.views.engine_panel", "dreamdesk.gui.context.worker", "dreamdesk.engine.llm", "logging.handlers")
TAB_VIEWS = ("history", "files", "settings", "snapshots", "archive", "runs", "lint", "prompt", "charts")

# `dreamdesk` as the launcher starts it (gui.app.run), watched from outside: at its first paint,
# then once the workspace has been read, then after the Snapshots tab is shown
START = """
import json, os, sys
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication
app = QApplication(sys.argv[:1])
seen = {}
unshown, tabs, demo = json.loads(sys.argv[1]), json.loads(sys.argv[2]), sys.argv[3]
frame_without = json.loads(sys.argv[4])

def window():
    return next(w for w in app.topLevelWidgets() if w.objectName() == "DreamdeskMainWindow")

def later(check, then):
    QTimer.singleShot(20, lambda: then() if check() else later(check, then))

class FirstPaint(QObject):
    def eventFilter(self, obj, event):
        if "opening" not in seen and event.type() == QEvent.Type.Paint and obj.isWidgetType() \\
                and obj.window().objectName() == "DreamdeskMainWindow":
            win = window()
            seen["demo at first paint"] = os.path.exists(demo)
            seen["filled at first paint"] = win.filled
            seen["keys at first paint"] = [a.text() for a in win.actions() if a.isEnabled()]
            seen["opening"] = win.opening.text()
            seen["loaded at first paint"] = [m for m in frame_without if m in sys.modules]
            seen["tabs at first paint"] = [win.tabs.tabText(i) for i in range(win.tabs.count())]
            later(lambda: win.state is not None, read)
        return False

def read():
    win = window()
    seen["loaded"] = [m for m in unshown if m in sys.modules]
    seen["built"] = [n for n in tabs if win.built(n)]
    seen["notice after"] = win.dashboard.notice.isVisible()
    seen["dashboard shown"] = win.tabs.currentWidget() is win.dashboard and win.tabs.isEnabled()
    seen["keys after"] = [a.text() for a in win.actions() if not a.isEnabled()]
    seen["workspace"] = str(win.ws.root)
    win.tabs.setCurrentIndex(win.tabs.indexOf(win.tabs.findChild(QObject, "unbuilt:snapshots")))
    later(lambda: win.built("snapshots") and win.snapshots.model.rowCount() > 0, shown)

def shown():
    win = window()
    seen["snapshot rows"] = win.snapshots.model.rowCount()
    seen["current is snapshots"] = win.tabs.currentWidget() is win.snapshots
    seen["loaded after"] = [m for m in unshown if m in sys.modules]
    print(json.dumps(seen), flush=True)
    os._exit(0)

probe = FirstPaint()
app.installEventFilter(probe)
from dreamdesk.gui.app.app import run
run()
"""


def _start(tmp_path: Path, last: Path | None) -> dict:
    data = tmp_path / "xdg-data"
    conf = tmp_path / "xdg-config" / "Dreamdesk" / "Dreamdesk.conf"
    conf.parent.mkdir(parents=True)
    conf.write_text(f"[General]\nlast={last}\ndemoHome={last}\n" if last else "")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(tmp_path / "xdg-config"),
               XDG_DATA_HOME=str(data), PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, "-c", START, json.dumps(UNSHOWN), json.dumps(TAB_VIEWS),
                           str(data / "dreamdesk" / "demo"), json.dumps(FRAME_WITHOUT)], capture_output=True, text=True, timeout=120,
                          env=env, cwd=str(REPO))
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.parametrize("first", [True, False], ids=["first-ever start", "demo copy exists"])
def test_the_start_paints_the_frame_first_and_loads_no_tab_until_one_is_shown(tmp_path, history_home, first):
    last = None
    if not first:
        last = tmp_path / "xdg-data" / "dreamdesk" / "demo"
        shutil.copytree(history_home, last, symlinks=True)
    seen = _start(tmp_path, last)
    assert seen["workspace"] == str(tmp_path / "xdg-data" / "dreamdesk" / "demo" / "workspace")
    assert seen["loaded"] == [] and seen["built"] == []
    # the first paint is the window's frame, with every tab's title, saying what it opens; the
    # engine and the rest of the window load after it
    assert seen["filled at first paint"] is False and seen["loaded at first paint"] == []
    # no key or menu reaches the panel or a view before they are there; all do once they are
    assert seen["keys at first paint"] == [] and seen["keys after"] == []
    assert seen["tabs at first paint"] == ["Dashboard", "History", "Files", "Settings → Memory", "Snapshots",
                                           "Archive", "Dream runs", "Lint", "Prompt", "Charts"]
    if first:
        # the window was painted before the copy was there, and said what it was doing
        assert seen["demo at first paint"] is False and seen["opening"] == "Preparing the demo workspace…"
    else:
        assert seen["opening"] == f"Opening {last}…"
    assert seen["notice after"] is False and seen["dashboard shown"]
    # the tab shown is built, its module (and the diff widget's pygments) loaded, and it shows the snapshots
    assert seen["current is snapshots"] and seen["snapshot rows"] >= 5
    assert {"dreamdesk.gui.views.snapshots_view", "dreamdesk.gui.widgets.diff_view"} <= set(seen["loaded after"])
    assert "PySide6.QtCharts" not in seen["loaded after"] and "dreamdesk.gui.views.archive_view" not in seen["loaded after"]
    # the start was logged, in the log folder the environment names (tests/conftest.py)
    log_text = (Path(os.environ["DREAMDESK_LOG_DIR"]) / "dreamdesk.log").read_text(encoding="utf-8")
    assert "INFO dreamdesk.gui.app.app" in log_text and f"workspace opened: {seen['workspace']}" in log_text


def test_a_tab_built_late_gets_the_workspace_it_missed(main_window, qtbot):
    """Refreshes while a tab is unbuilt leave it unbuilt; shown, it has the last state at once."""
    win = main_window
    win.refresh()
    qtbot.waitUntil(lambda: win.status_label.text().startswith(f"{win.state.status.pending} pending"), timeout=5000)
    assert not any(win.built(n) for n in TAB_VIEWS)
    win.tabs.setCurrentIndex(1)                                    # History, as a click does
    assert win.built("history") and win.tabs.currentWidget() is win.history and win.tabs.tabText(1) == "History"
    st = win.state.status
    markers = len(win.history.proxy.sourceModel().marker_rows)       # (the two cursors' rows)
    assert win.history.proxy.rowCount() == len(st.history.entries) + len(st.history.bad_lines) + markers > 100
    files = win.files                                              # asked for by name: built, not shown
    assert win.tabs.currentWidget() is win.history and win.tabs.indexOf(files) == 2
    assert {files.list.item(i).text().split()[0] for i in range(files.list.count())} >= {"USER.md", "SOUL.md"}
    assert win.settings.interval.value() == int(win.state.status.config.dream["intervalH"])
    assert [win.tabs.tabText(i) for i in range(win.tabs.count())] == [
        "Dashboard", "History", "Files", "Settings → Memory", "Snapshots", "Archive", "Dream runs", "Lint", "Prompt", "Charts"]


def test_the_first_start_shows_the_window_then_the_demo(gui_env, qtbot):
    from dreamdesk.gui.app import settings_store
    from dreamdesk.gui.window.main_window import MainWindow
    from helpers.screens import grab
    win = MainWindow()
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    win.open_demo()                                 # what the first start does, behind the shown window
    assert win.dashboard.notice.isVisible() and win.ws is None
    grab(win, "first-start-preparing.png")
    qtbot.waitUntil(lambda: win.state is not None, timeout=20000)
    assert not win.dashboard.notice.isVisible() and win.dashboard.gauges
    assert settings_store.demo_home() == str(win.ws.home) and str(win.ws.home).startswith(str(gui_env / "xdg-data"))
    grab(win, "first-start-demo-open.png")
    win.close()


def test_the_first_start_says_in_the_window_why_there_is_no_demo(gui_env, qtbot, monkeypatch):
    from dreamdesk.gui.window.main_window import MainWindow
    blocked = gui_env / "a file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("XDG_DATA_HOME", str(blocked))        # the data folder cannot be made
    win = MainWindow()
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    win.open_demo()
    assert win.dashboard.notice.isVisible() and win.dashboard.notice.text() == "Preparing the demo workspace…"
    qtbot.waitUntil(lambda: "could not be prepared" in win.dashboard.notice.text(), timeout=10000)
    text = win.dashboard.notice.text()
    assert text.startswith("The demo workspace could not be prepared: ") and "Traceback" not in text
    assert "File → Open Workspace" in text and win.ws is None
    from helpers.screens import grab
    grab(win, "first-start-no-demo.png")
    win.close()


def test_a_window_that_never_paints_still_opens_its_workspace(gui_env, qtbot, demo_home, monkeypatch):
    """The start opens the workspace at the first paint; a window that does not paint (started
    minimised) opens it all the same, a moment later (FIRST_PAINT_WAIT_MS, shortened here)."""
    from dreamdesk.gui.window import main_window as main_window_mod
    from dreamdesk.gui.window.main_window import MainWindow
    monkeypatch.setattr(main_window_mod, "FIRST_PAINT_WAIT_MS", 20)
    win = MainWindow()
    qtbot.addWidget(win)                                 # never shown
    win.after_first_paint(lambda: win.open_workspace(str(demo_home)))
    assert win.ws is None
    qtbot.waitUntil(lambda: win.state is not None, timeout=5000)
    assert win.ws.root == demo_home / "workspace"
    win.close()


def test_dream_turned_off_names_where_to_turn_it_on(gui_env, qtbot, demo_home):
    """The engine says Dream is off in config.json's words; the dashboard adds the window's place."""
    from conftest import open_window
    cfg = json.loads((demo_home / "config.json").read_text(encoding="utf-8"))
    cfg.setdefault("agents", {}).setdefault("defaults", {}).setdefault("dream", {})["enabled"] = False
    (demo_home / "config.json").write_text(json.dumps(cfg), encoding="utf-8")
    win = open_window(qtbot, demo_home)
    text = win.dashboard.schedule.text()
    assert text.startswith("Dream is turned off for this workspace (dream.enabled in config.json).")
    assert text.endswith("Turn it on under Settings → Memory.")
    win.close()
