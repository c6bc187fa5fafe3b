"""Help → About Dreamdesk: what runs (Dreamdesk, Python, Qt, PySide6) and where Dreamdesk keeps
its own things on this machine. Every value can be selected, and Copy puts all of it on the
clipboard as text: what a bug report wants."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Callable

from dreamdesk.engine.desktop import installation

from ..app import settings_store
from ..qt import (QApplication, QDialog, QDialogButtonBox, QFormLayout, QLabel, QSettings, Qt, QtCore,
                 QVBoxLayout, QWidget)

DESCRIPTION = ("Dreamdesk shows, audits and repairs what an AI assistant remembers: its memory files against "
               "their budgets, the compacted history, Dream runs, snapshots and the archive.")
COMMAND_LINE = "The same workspace from a terminal: dreamdesk --help lists the commands."
SELECTABLE = Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.TextSelectableByKeyboard


def versions() -> list[tuple[str, str]]:
    import PySide6
    return [("Dreamdesk", installation.version_text()), ("Python", installation.python_text()),
            ("Qt", QtCore.qVersion()), ("PySide6", PySide6.__version__)]


def places() -> list[tuple[str, str, str]]:
    """(what, where, note) for each place, Dreamdesk's settings file second (after the log)."""
    rows = [(p.what, str(p.path), p.note) for p in installation.places(settings_store.demo_home())]
    rows.insert(1, ("Settings", *_settings_file()))
    return rows


def _settings_file() -> tuple[str, str]:
    s = settings_store.settings()
    if sys.platform == "win32" and s.format() == QSettings.Format.NativeFormat:
        return s.fileName(), ""                     # a registry key: no file to look for
    return s.fileName(), "" if Path(s.fileName()).exists() else "not created yet"


def report(version_rows: list[tuple[str, str]], place_rows: list[tuple[str, str, str]]) -> str:
    """All of it as plain text, one "what: value" a line."""
    lines = [f"{what}: {value}" for what, value in version_rows]
    lines += [f"{what}: {where}" + (f" ({note})" if note else "") for what, where, note in place_rows]
    return "\n".join(lines) + "\n"


class AboutDialog(QDialog):
    def __init__(self, parent: QWidget | None, shortcuts: Callable[[QWidget], QDialog]):
        """`shortcuts(parent)` builds the Keyboard Shortcuts dialog its button opens."""
        super().__init__(parent)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.setWindowTitle("About Dreamdesk")
        self.version_rows, self.place_rows = versions(), places()
        lay = QVBoxLayout(self)
        title = QLabel(f"<h2>Dreamdesk {self.version_rows[0][1]}</h2>")
        title.setTextInteractionFlags(SELECTABLE)
        lay.addWidget(title)
        lay.addWidget(_wrapped(DESCRIPTION))
        lay.addSpacing(6)
        form = QFormLayout()                 # one form: the values of both parts line up
        self._rows(form, self.version_rows)
        heading = QLabel("<b>Where Dreamdesk keeps its things</b>")
        heading.setContentsMargins(0, 8, 0, 0)
        form.addRow(heading)
        self._rows(form, [(what, where + (f"  ({note})" if note else "")) for what, where, note in self.place_rows])
        lay.addLayout(form)
        lay.addSpacing(6)
        lay.addWidget(_wrapped(COMMAND_LINE))
        lay.addWidget(self._buttons(shortcuts))

    @staticmethod
    def _rows(form: QFormLayout, rows: list[tuple[str, str]]) -> None:
        for what, value in rows:
            label = QLabel(value)
            label.setObjectName(what)
            label.setTextFormat(Qt.TextFormat.PlainText)     # a path is shown as it is, never as markup
            label.setTextInteractionFlags(SELECTABLE)
            form.addRow(f"{what}:", label)

    def _buttons(self, shortcuts: Callable[[QWidget], QDialog]) -> QDialogButtonBox:
        box = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        box.button(QDialogButtonBox.StandardButton.Close).setDefault(True)
        self.copy_button = box.addButton("Copy", QDialogButtonBox.ButtonRole.ActionRole)
        self.copy_button.setToolTip("Put the versions and places above on the clipboard as text (for a bug report)")
        self.copy_button.clicked.connect(self.copy)
        self.shortcuts_button = box.addButton("Keyboard Shortcuts…", QDialogButtonBox.ButtonRole.HelpRole)
        self.shortcuts_button.clicked.connect(lambda: shortcuts(self).open())
        box.rejected.connect(self.reject)
        return box

    def text(self) -> str:
        return report(self.version_rows, self.place_rows)

    def copy(self) -> None:
        QApplication.clipboard().setText(self.text())


def _wrapped(text: str) -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    return label
