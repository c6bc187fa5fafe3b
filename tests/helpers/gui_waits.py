"""What a GUI test waits for instead of a sleep: every job has answered; the watcher has said
every write made before now."""

from __future__ import annotations

import itertools
from pathlib import Path

_markers = itertools.count(1)


def jobs_done(qtbot, engine, timeout: int = 10000) -> None:
    """Every job queued so far, and what their answers queued in turn, has run and answered."""
    qtbot.waitUntil(lambda: engine.idle, timeout=timeout)


def watcher_caught_up(qtbot, watcher, root: Path, timeout: int = 10000) -> None:
    """The watcher has said every write made before this call: a file written now is said after
    them (its events queue behind theirs). The file is in the workspace's root, where it names
    nothing a view reads, and is removed again."""
    marker = Path(root) / f"test-marker-{next(_markers)}.txt"
    with qtbot.waitSignal(watcher.changed, timeout=timeout, check_params_cb=lambda paths: marker.name in paths):
        marker.write_text("marker\n", encoding="utf-8")
    marker.unlink()


def settled(qtbot, win, timeout: int = 10000) -> None:
    """The window has seen every outside write made so far and shown what it read for them."""
    watcher_caught_up(qtbot, win.watcher, win.ws.root, timeout)
    jobs_done(qtbot, win.engine, timeout)


def first_paint(widget) -> None:
    """Paint once and hand Qt what that paint posts (a chart lays out its axes then, and deletes
    the ones it replaced later), so a screenshot taken next shows the finished layout."""
    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QApplication
    widget.grab()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    QApplication.processEvents()


def counters_shown(qtbot, win, timeout: int = 5000) -> None:
    """The status bar's counters ("25 pending · 5 problem(s) · read …") laid out whole, as a
    screenshot should show them after a read or a resize."""
    label = win.status_label
    qtbot.waitUntil(lambda: "pending" in label.text() and label.width() >= label.sizeHint().width(), timeout=timeout)
