"""Run by test_bench_start as a subprocess: start Dreamdesk (`dreamdesk`, as gui.app.run does it)
or a bare QMainWindow, and leave at the first paint of the window, so the parent's wall time is
"cold start → first painted window".

    python start_probe.py dreamdesk|dreamdesk-read|bare [IDLE_SECONDS]

dreamdesk-read leaves once the workspace has been read and handed to the window instead.

With IDLE_SECONDS it stays: until the workspace has been read (Dreamdesk), then IDLE_SECONDS
more, and prints `rss <KiB>` (VmRSS) before leaving. It hooks the app from outside, so the same
probe measures any version of Dreamdesk: QMainWindow.show is wrapped to put an event filter on
the window being shown. (Not on the QApplication: a Python filter there makes PySide wrap every
object that receives an event, and creating the Python types and enums of each widget class it
meets costs ~40 ms before the first paint of a window with a menu, tabs and a dock, a cost no
user pays. Measured: 72-76 ms from show to first paint with an application filter, 32-42 ms with
the window's own, for the same window.)
"""

from __future__ import annotations

import os
import sys

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QMainWindow


def rss_kib() -> int:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))


def leave(idle: float, ready) -> None:
    """Print the idle RSS (once `ready()` holds and `idle` seconds passed) and exit at once."""
    if not ready():
        QTimer.singleShot(5, lambda: leave(idle, ready))
        return

    def out() -> None:
        print(f"rss {rss_kib()}", flush=True)
        os._exit(0)
    QTimer.singleShot(int(idle * 1000), out)


class FirstPaint(QObject):
    def __init__(self, idle: float | None, ready):
        super().__init__()
        self.idle, self.ready, self.seen = idle, ready, False

    def eventFilter(self, obj, event) -> bool:  # noqa: N802
        if not self.seen and event.type() == QEvent.Type.Paint:
            self.seen = True
            print("painted", flush=True)
            if self.idle == 0:
                leave(0, self.ready)
            elif self.idle is None:
                os._exit(0)            # no teardown: the measure ends at the paint
            leave(self.idle, self.ready)
        return False


def main(kind: str, idle: float | None) -> None:
    app = QApplication(sys.argv[:1])

    def ready() -> bool:
        if kind == "bare":
            return True
        wins = [w for w in app.topLevelWidgets() if w.objectName() == "DreamdeskMainWindow"]
        return bool(wins) and getattr(wins[0], "state", None) is not None

    probe = FirstPaint(0 if kind == "dreamdesk-read" and idle is None else idle, ready)
    show = QMainWindow.show

    def watched_show(win) -> None:
        win.installEventFilter(probe)
        show(win)
    QMainWindow.show = watched_show
    if kind == "bare":
        win = QMainWindow()
        win.resize(1280, 820)
        win.show()
        app.exec()
    else:
        from dreamdesk.gui.app.app import run
        run()


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else None)
