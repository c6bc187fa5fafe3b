"""Logging in the app: Qt's messages reach the log file, the crash dialog carries the traceback
and the log's last lines and says where the file is, and a job's failure is shown by its kind
(an expected one in the status bar, a bug in a dialog with its traceback)."""

from __future__ import annotations

import logging
import sys

import pytest

from dreamdesk.engine.core import redact
from dreamdesk.engine.core.problems import ConflictError, WorkspaceError

KEY = "sk-live-GUILOG-9876543210fedcba"


@pytest.fixture
def boxes(gui_env, qapp, monkeypatch):
    """Every message box shown, as shown: (title, text, details). Nothing blocks."""
    from dreamdesk.gui.qt import QMessageBox
    shown: list[tuple[str, str, str]] = []

    def exec_(box):
        shown.append((box.windowTitle(), box.text(), box.detailedText()))
        box.grab().save(str(gui_env / "box.png"))
        return int(QMessageBox.StandardButton.Ok)

    monkeypatch.setattr(QMessageBox, "exec", exec_)
    monkeypatch.setattr(qapp, "dreamdesk_quiet_errors", False)
    return shown


@pytest.mark.qt_log_ignore("dreamdesk-qt-probe")
def test_a_qt_warning_lands_in_the_log_file(qapp, log_file):
    from dreamdesk.gui.app import qt_messages
    from dreamdesk.gui.qt import QtCore
    previous = qt_messages.install()
    try:
        QtCore.qWarning("dreamdesk-qt-probe: a widget complained")
    finally:
        qt_messages.uninstall(previous)
    text = log_file.read_text(encoding="utf-8")
    assert "WARNING dreamdesk.gui.qt" in text and "dreamdesk-qt-probe: a widget complained" in text


def _crash(exc: BaseException) -> None:
    from dreamdesk.gui.app.errors import install_excepthook
    old = sys.excepthook
    install_excepthook()
    try:
        try:
            raise exc
        except type(exc):
            sys.excepthook(*sys.exc_info())
    finally:
        sys.excepthook = old


def test_the_crash_dialog_has_the_traceback_the_log_tail_and_where_the_log_is(boxes, log_file):
    redact.register(KEY)
    logging.getLogger("dreamdesk.gui.context.worker").info("dream: started")
    _crash(KeyError(f"no field 'model' (key {KEY})"))
    (title, text, details), = boxes
    assert title == "Dreamdesk hit an unexpected error"
    assert f"The log file (attach it to a bug report):\n{log_file}" in text
    assert details.startswith("Traceback (most recent call last)") and "KeyError" in details
    tail = details.split("The log's last lines:\n", 1)[1]
    assert "dream: started" in tail and "ERROR dreamdesk.gui.app.errors" in tail
    assert KEY not in text + details and KEY not in log_file.read_text(encoding="utf-8")


def _fail_in_window(win, qtbot, exc: BaseException) -> None:
    def job(ctx):
        raise exc
    done = []
    win.engine.jobFinished.connect(done.append)
    win.engine.write("tidy up", job, lambda r: None)      # no failure callback: the default path
    qtbot.waitUntil(lambda: "tidy up" in done, timeout=5000)


@pytest.mark.parametrize("exc", [WorkspaceError("USER.md is over its budget; nothing was written"),
                                 ConflictError("USER.md", "a", "b")])
def test_an_expected_failure_goes_to_the_status_bar_not_a_dialog(main_window, qtbot, boxes, exc):
    _fail_in_window(main_window, qtbot, exc)
    qtbot.waitUntil(lambda: str(exc) in main_window.statusBar().currentMessage(), timeout=5000)
    assert main_window.statusBar().currentMessage().startswith("tidy up: ")
    assert boxes == []


def test_a_bug_in_a_job_shows_a_dialog_with_its_traceback(main_window, qtbot, boxes, caplog):
    caplog.set_level(logging.ERROR)
    _fail_in_window(main_window, qtbot, ZeroDivisionError("division by zero"))
    qtbot.waitUntil(lambda: bool(boxes), timeout=5000)
    (title, text, details), = boxes
    assert title == "tidy up failed" and text == "division by zero"
    assert "Traceback" in details and "ZeroDivisionError" in details
    assert any("tidy up: failed after" in r.getMessage() and r.exc_info for r in caplog.records)


def test_a_session_is_told_in_the_log_opened_job_and_dream_outcome(gui_env, qtbot, demo_home, log_file):
    from conftest import open_window
    win = open_window(qtbot, demo_home)
    win.panel.run_dream()                      # the demo's recorded run
    qtbot.waitUntil(lambda: win.panel.outcome.text().startswith("Dream completed"), timeout=15000)
    win.close()
    from dreamdesk.engine.core import logs
    lines = logs.log_tail(400).splitlines()
    ws = win.ws.root

    def has(logger: str, text: str) -> bool:
        return any(f"INFO {logger}" in ln and text in ln for ln in lines)
    assert has("dreamdesk.gui.context.app_context", f"workspace opened: {ws}")
    assert has("dreamdesk.gui.context.worker [dreamdesk-writer]:", "dream: started") and has("dreamdesk.gui.context.worker", "dream: done in")
    assert has("dreamdesk.gui.views.engine_panel", f"Dream (manual) of {ws} with ") and has("dreamdesk.gui.views.engine_panel",
                                                                                "Dream completed")
