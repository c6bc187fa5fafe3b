"""The window fits the screen it opens on (issue 17.7): the first start's size is at most the
screen's available area minus a margin and at least a sensible minimum, and on a 1280×720 screen
every tab leaves the status bar on screen. The offscreen platform's screen is 800×800 here; a
1280×720 one is made for a real start in a subprocess (Qt's offscreen `configfile`)."""

import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import REPO
from helpers.screens import SHOTS


def _inside(outer, inner) -> bool:
    ox, oy, ow, oh = outer
    ix, iy, iw, ih = inner
    return ox <= ix and oy <= iy and ix + iw <= ox + ow and iy + ih <= oy + oh


@pytest.mark.parametrize("screen", [(1280, 720), (1280, 680), (800, 800), (1920, 1080), (2560, 1440), (640, 400)])
def test_the_first_size_fits_the_available_area_and_keeps_a_minimum(screen):
    from dreamdesk.gui.qt import QRect
    from dreamdesk.gui.window.window_fit import MARGIN, MINIMUM, PREFERRED, first_geometry, first_size
    w, h = screen
    available = QRect(0, 24, w, h)                      # (a panel above, as some desktops have)
    size = first_size(available)
    assert size.width() <= w - MARGIN.width() and size.height() <= h - MARGIN.height()
    if w - MARGIN.width() >= MINIMUM.width() and h - MARGIN.height() >= MINIMUM.height():
        assert size.width() >= MINIMUM.width() and size.height() >= MINIMUM.height()
    if w >= 2 * PREFERRED.width():
        assert size == PREFERRED                        # a big screen gets the designed size, not more
    geo = first_geometry(available)
    assert available.contains(geo) and geo.size() == size
    assert abs(geo.center().x() - available.center().x()) <= 1 and abs(geo.center().y() - available.center().y()) <= 1


def test_the_first_start_fits_the_screen_the_window_is_on(gui_env, qtbot, demo_home):
    from dreamdesk.gui.app import settings_store
    from dreamdesk.gui.window.main_window import MainWindow
    from dreamdesk.gui.qt import QRect
    from dreamdesk.gui.window.window_fit import first_size
    settings_store.set_demo_home(str(demo_home))
    win = MainWindow()                  # no saved geometry: a first start (open_window resizes; not here)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    assert win.open_workspace(str(demo_home))
    qtbot.waitUntil(lambda: win.state is not None, timeout=10000)
    available = win.screen().availableGeometry()
    assert win.size() == first_size(available)
    assert available.contains(win.frameGeometry())
    bar = win.statusBar()
    assert bar.isVisible() and available.contains(QRect(bar.mapToGlobal(bar.rect().topLeft()), bar.size()))


# the real start (gui.app.run) on a 1280×720 screen; every tab shown in turn and measured
START = """
import json, os, sys
from PySide6.QtCore import QPoint, QRect, QTimer
from PySide6.QtWidgets import QApplication
app = QApplication(sys.argv[:1])
shots, seen = sys.argv[1], {"tabs": []}

def window():
    return next((w for w in app.topLevelWidgets() if w.objectName() == "DreamdeskMainWindow"), None)

def later(check, then):
    QTimer.singleShot(20, lambda: then() if check() else later(check, then))

def box(r):
    return [r.x(), r.y(), r.width(), r.height()]

def step(i):
    win = window()
    if i == win.tabs.count():
        seen["available"] = box(win.screen().availableGeometry())
        # a window left taller than this screen (saved on a bigger one) comes back on it
        win.setGeometry(100, 100, 1280, 900)
        win._save_settings()
        from dreamdesk.gui.window.main_window import MainWindow
        again = MainWindow()
        again.show()
        QTimer.singleShot(200, lambda: restarted(again))
        return
    win.tabs.setCurrentIndex(i)
    QTimer.singleShot(200, lambda: record(i))

def restarted(win):
    bar = win.statusBar()
    seen["restored"] = {"frame": box(win.frameGeometry()), "visible": bar.isVisible(),
                        "status": box(QRect(bar.mapToGlobal(QPoint(0, 0)), bar.size()))}
    print(json.dumps(seen), flush=True)
    os._exit(0)


def record(i):
    win = window()
    bar = win.statusBar()
    seen["tabs"].append({"tab": win.tabs.tabText(i), "frame": box(win.frameGeometry()),
                         "geometry": box(win.geometry()), "visible": bar.isVisible(),
                         "status": box(QRect(bar.mapToGlobal(QPoint(0, 0)), bar.size())),
                         "min_hint": win.minimumSizeHint().height()})
    if i in (0, 4):
        win.grab().save(os.path.join(shots, f"window-1280x720-{win.tabs.tabText(i).lower()}.png"))
    step(i + 1)

later(lambda: window() is not None and window().state is not None, lambda: step(0))
from dreamdesk.gui.app.app import run
run()
"""


def test_on_a_1280x720_screen_every_tab_keeps_the_status_bar_on_screen(tmp_path, history_home):
    from dreamdesk.gui.window.window_fit import LAPTOP
    home = tmp_path / "xdg-data" / "dreamdesk" / "demo"
    shutil.copytree(history_home, home, symlinks=True)
    conf = tmp_path / "xdg-config" / "Dreamdesk" / "Dreamdesk.conf"
    conf.parent.mkdir(parents=True)
    conf.write_text(f"[General]\nlast={home}\ndemoHome={home}\n")      # not a first-ever start: no demo build
    screen = tmp_path / "screen.json"
    screen.write_text(json.dumps({"windowFrameMargins": True, "screens": [
        {"name": "laptop", "x": 0, "y": 0, "width": LAPTOP.width(), "height": LAPTOP.height(), "logicalDpi": 96,
         "dpr": 1}]}))
    SHOTS.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, QT_QPA_PLATFORM=f"offscreen:configfile={screen}", PYTHONPATH=str(REPO),
               XDG_CONFIG_HOME=str(tmp_path / "xdg-config"), XDG_DATA_HOME=str(tmp_path / "xdg-data"))
    proc = subprocess.run([sys.executable, "-c", START, str(SHOTS)], capture_output=True, text=True,
                          timeout=120, env=env, cwd=str(REPO))
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout)
    available = seen["available"]
    assert available[2:] == [LAPTOP.width(), LAPTOP.height()] == [1280, 720]
    assert len(seen["tabs"]) == 10
    for tab in seen["tabs"]:
        frame_extra = tab["frame"][3] - tab["geometry"][3]
        assert tab["min_hint"] <= available[3] - frame_extra, tab      # nothing forces it taller
        assert _inside(available, tab["frame"]), tab
        assert tab["visible"] and _inside(available, tab["status"]), tab
    # (Qt's restoreGeometry fits it, up to a few pixels of frame: offscreen's frame is 2 px wider
    # than the one Qt allows for, so only the status bar's height is held to the screen here)
    restored = seen["restored"]
    status_top, status_height = restored["status"][1], restored["status"][3]
    assert restored["frame"][3] <= available[3] + 2, restored
    assert restored["visible"], restored
    assert available[1] <= status_top and status_top + status_height <= available[1] + available[3], restored
