"""Qt's own messages (qWarning from a widget, a plugin that failed to load) routed into Python
logging, logger "dreamdesk.gui.qt", so they land in the log file next to ours. The handler that was there
before keeps getting them (Qt's default prints to stderr; pytest-qt records them)."""

from __future__ import annotations

import logging

from ..qt import QtCore

log = logging.getLogger("dreamdesk.gui.qt")

_LEVELS = {
    QtCore.QtMsgType.QtDebugMsg: logging.DEBUG,
    QtCore.QtMsgType.QtInfoMsg: logging.INFO,
    QtCore.QtMsgType.QtWarningMsg: logging.WARNING,
    QtCore.QtMsgType.QtCriticalMsg: logging.ERROR,
    QtCore.QtMsgType.QtFatalMsg: logging.CRITICAL,
}


def install():
    """Route Qt's messages into logging; returns the handler it replaced (to put back: uninstall)."""
    previous = None

    def handler(kind, context, message):
        where = f" ({context.file}:{context.line})" if context is not None and context.file else ""
        log.log(_LEVELS.get(kind, logging.WARNING), "%s%s", message, where)
        if previous is not None:
            previous(kind, context, message)

    previous = QtCore.qInstallMessageHandler(handler)
    return previous


def uninstall(previous) -> None:
    QtCore.qInstallMessageHandler(previous)
