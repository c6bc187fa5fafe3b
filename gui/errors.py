"""Uncaught exceptions: a dialog, never a silent crash, and never a lost unsaved edit (the
editor's text is written to a recovery file before the dialog shows). Dialogs say what went
wrong in words; tracebacks go to the log (Python logging; a file once `setup_log` ran)."""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Callable

from engine.oserrors import explain

from .qt import QApplication, QMessageBox

log = logging.getLogger("dreamdesk")
_log_file: Path | None = None

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
        details = f"The technical details (for a bug report) are in {_log_file}." if _log_file else ""
        report_error("Dreamdesk hit an unexpected error", f"{explain(value)}{note}", details)

    sys.excepthook = hook


def setup_log() -> Path | None:
    """Dreamdesk's log file (warnings and the tracebacks dialogs leave out), in the user log dir."""
    global _log_file
    from platformdirs import user_log_path
    path = user_log_path("dreamdesk", "dreamdesk") / "dreamdesk.log"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handler = logging.FileHandler(path, encoding="utf-8", delay=True)
    except OSError:
        return None   # no log file: logging falls back to stderr
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    log.addHandler(handler)
    log.setLevel(logging.WARNING)
    _log_file = path
    return path


def recovery_dir() -> Path:
    from platformdirs import user_data_dir
    d = Path(user_data_dir("dreamdesk", "dreamdesk")) / "recovered"
    d.mkdir(parents=True, exist_ok=True)
    return d
