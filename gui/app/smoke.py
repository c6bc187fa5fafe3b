"""A start that checks itself and quits: DREAMDESK_SMOKE (hidden; README "Packaging"). The bundle
and the wheel are smoke-started with it in CI, where nothing can drive the frozen app from inside.

With DREAMDESK_SMOKE=1 the app starts as always; once the window has read its workspace, built
every tab and drawn the Charts tab (QtCharts: the Qt module a slimmed bundle could lose), it prints
one JSON line of what it shows and quits with 0. Set to a path ending in .png, it also saves the window there.
It quits with 1, saying why on stderr, when an error is logged (an unexpected error prints
instead of opening its dialog, which nobody would close) or when the start is not done within
TIMEOUT_S."""

from __future__ import annotations

import json
import logging
import os
import sys
import time
import traceback
from typing import Callable

from ..qt import QApplication, QTimer

ENV = "DREAMDESK_SMOKE"
TIMEOUT_S = 90.0          # a first start copies the demo with git: seconds on a loaded CI machine
POLL_MS = 50


def requested() -> str | None:
    return os.environ.get(ENV) or None


def watch(app: QApplication, win, setting: str, *, timeout_s: float = TIMEOUT_S,
          done: Callable[[int, str], None] | None = None) -> None:
    """Poll `win` until it has read its workspace and drawn its charts; then done(0, the JSON
    line), or done(1, why not). By default done prints and quits."""
    quit_with = done or (lambda code, text: _quit(app, win, code, text))
    deadline = time.monotonic() + timeout_s
    errors = _ErrorsSeen()
    app.dreamdesk_quiet_errors = True          # gui/app/errors.py: to stderr, never a modal dialog

    def done(code: int, text: str) -> None:
        logging.getLogger("dreamdesk").removeHandler(errors)
        quit_with(code, text)

    def step() -> None:
        try:
            waiting = None if errors.first else _waiting_for(win)
        except Exception:  # noqa: BLE001 - e.g. a view the bundle lacks: the smoke start's failure
            waiting, errors.first = None, "it raised: " + traceback.format_exc()
        if errors.first:
            done(1, f"dreamdesk: smoke start failed: {errors.first}")
        elif waiting is None:
            if setting.lower().endswith(".png"):
                win.grab().save(setting)
            done(0, json.dumps(_report(app, win)))
        elif time.monotonic() > deadline:
            done(1, f"dreamdesk: smoke start failed: {waiting} within {timeout_s:g} s")
        else:
            QTimer.singleShot(POLL_MS, step)

    QTimer.singleShot(0, step)


class _ErrorsSeen(logging.Handler):
    """The first error Dreamdesk logs (an unexpected error, a failed job), with its traceback."""

    def __init__(self):
        super().__init__(logging.ERROR)
        self.first: str | None = None
        logging.getLogger("dreamdesk").addHandler(self)

    def emit(self, record: logging.LogRecord) -> None:
        if self.first is None:
            self.first = "an error was logged: " + record.getMessage() + (
                "\n" + "".join(traceback.format_exception(*record.exc_info)) if record.exc_info else "")


def _waiting_for(win) -> str | None:
    """What the start has not done yet, in words (None: everything)."""
    if win.state is None:
        return "the window did not read a workspace"
    if win.tabs.currentWidget() is not win.charts:
        # every tab built and read once (a view the install lacks a module for fails here), the
        # Charts tab last: its read is queued behind theirs
        for i in range(win.tabs.count()):
            win.tabs.setCurrentIndex(i)
        win.tabs.setCurrentWidget(win.charts)
    if win.charts.data is None:
        return "the Charts tab did not draw"
    return None


def _report(app: QApplication, win) -> dict:
    from dreamdesk.engine.core.resources import resources_dir
    return {"workspace": str(win.ws.root), "shown": win.isVisible(), "gauges": len(win.dashboard.gauges),
            "charts": len(win.charts.chart.series()), "icon": not app.windowIcon().isNull(),
            "resources": str(resources_dir()), "frozen": bool(getattr(sys, "frozen", False))}


def _quit(app: QApplication, win, code: int, text: str) -> None:
    print(text, file=sys.stdout if code == 0 else sys.stderr, flush=True)
    win.close()           # the usual way out: settings saved, jobs and the watcher stopped
    app.exit(code)        # last: closing the last window quits with 0 of its own
