"""Uncaught exceptions: a dialog, never a silent crash, and never a lost unsaved edit (the
editor's text is written to a recovery file before the dialog shows). The dialog says what went
wrong in words and where the log file is; its details hold the traceback and the log's last
lines, what a bug report needs (the log file: engine/core/logs.py)."""

from __future__ import annotations

import logging
import sys
import traceback
from pathlib import Path
from typing import Callable

from dreamdesk.engine.core import logs, redact
from dreamdesk.engine.disk.oserrors import explain

from ..qt import QApplication, QMessageBox

log = logging.getLogger(__name__)

_rescuers: list[Callable[[], str | None]] = []


def add_rescuer(fn: Callable[[], str | None]) -> None:
    """fn saves unsaved work somewhere safe and returns where (or None if nothing to save)."""
    _rescuers.append(fn)


def remove_rescuer(fn: Callable[[], str | None]) -> None:
    if fn in _rescuers:
        _rescuers.remove(fn)


def rescue() -> list[str]:
    saved = []
    for fn in list(_rescuers):
        try:
            where = fn()
        except Exception:  # noqa: BLE001 - a rescuer must never make things worse
            continue
        if where:
            saved.append(where)
    return saved


def report_error(title: str, message: str, details: str = "") -> None:
    app = QApplication.instance()
    if app is None or getattr(app, "dreamdesk_quiet_errors", False):
        print(f"{title}: {message}\n{details}", file=sys.stderr)
        return
    box = QMessageBox(QMessageBox.Icon.Warning, title, message)
    if details:
        box.setDetailedText(details)
    box.exec()


def install_excepthook() -> None:
    def hook(etype, value, tb):
        log.error("unexpected error", exc_info=(etype, value, tb))
        saved = rescue()
        note = ("\n\nYour unsaved edits were kept in:\n" + "\n".join(saved)) if saved else ""
        report_error("Dreamdesk hit an unexpected error", f"{redact.scrub(explain(value))}{note}{_where_logged()}",
                     crash_details(etype, value, tb))

    sys.excepthook = hook


def _where_logged() -> str:
    path = logs.current_path()
    return f"\n\nThe log file (attach it to a bug report):\n{path}" if path else ""


def crash_details(etype, value, tb) -> str:
    """A bug's details for the dialog: its traceback, then the log's last lines (secrets masked)."""
    trace = redact.scrub("".join(traceback.format_exception(etype, value, tb)))
    tail = logs.log_tail()
    return trace + (f"\nThe log's last lines:\n{tail}" if tail else "")


def recovery_dir() -> Path:
    from dreamdesk.engine.desktop.installation import data_dir
    d = data_dir() / "recovered"
    d.mkdir(parents=True, exist_ok=True)
    return d
