"""Keys a text field keeps for itself while it has the focus, whatever the window binds them to."""

from __future__ import annotations

from ..qt import QEvent, QKeySequence, QObject, QtWidgets


class TypingKeys(QObject):
    """While a text field or the editor has the focus, its own keys win over window actions:
    Ctrl+K deletes to the end of the line there, Ctrl+D/Ctrl+R must not start a Dream mid-edit,
    and Esc in a search field must not cancel a running job."""

    KEYS = frozenset({"Ctrl+K", "Ctrl+D", "Ctrl+R", "Esc"})

    def eventFilter(self, obj, event) -> bool:  # noqa: N802
        if event.type() == QEvent.Type.ShortcutOverride and isinstance(
                obj, (QtWidgets.QLineEdit, QtWidgets.QPlainTextEdit, QtWidgets.QTextEdit, QtWidgets.QAbstractSpinBox)):
            read_only = getattr(obj, "isReadOnly", lambda: False)()
            if not read_only and QKeySequence(event.keyCombination()).toString() in self.KEYS:
                event.accept()
                return True
        return False
