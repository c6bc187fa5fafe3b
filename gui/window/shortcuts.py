"""Help → Keyboard Shortcuts: every key of the window, read from the window's own actions (so the
list cannot drift from the menus), then the keys a tab's buttons own, and what a text field
keeps for itself."""

from __future__ import annotations

import re
from typing import Iterable, NamedTuple

from ..qt import (QAbstractItemView, QAction, QDialog, QDialogButtonBox, QHeaderView, QKeySequence, QLabel, QMenu,
                 Qt, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)

# Keys that are no window action: a button's key acts only while its tab (or dialog) is shown.
# tests/gui/test_gui_help.py checks this list against the buttons of every tab, both ways (a button's
# underlined letter is not listed: the note says it).
BUTTON_KEYS = (("Snapshots tab", "Unified diff", "Alt+U"),
               ("Snapshots tab", "Side by side diff", "Alt+S"),
               ("Snapshots tab", "Restore snapshot…", "Ctrl+Shift+R"),
               ("Snapshots tab", "Restore one file", "Ctrl+Shift+F"),
               ("Archive tab", "Restore selected", "Ctrl+Shift+R"),
               ("Archive tab", "Delete permanently…", "Shift+Del"),
               ("Dry run", "Unified diff", "Alt+U"),
               ("Dry run", "Side by side diff", "Alt+S"))
COLUMNS = ("Where", "Does", "Key")


class Row(NamedTuple):
    where: str
    does: str
    key: str


def plain(text: str) -> str:
    """A menu text as a person reads it: without the '&' that marks its Alt letter ('&&' is one '&')."""
    return re.sub(r"&(.)", r"\1", text)


def native(key: QKeySequence | str) -> str:
    """A key as this platform writes it (Ctrl+D here, ⌘D on macOS)."""
    return QKeySequence(key).toString(QKeySequence.SequenceFormat.NativeText)


def menu_of(action: QAction) -> str:
    menus = [o for o in action.associatedObjects() if isinstance(o, QMenu)]
    return f"{plain(menus[0].title())} menu" if menus else "Window"


def action_rows(actions: Iterable[QAction]) -> list[Row]:
    """One row per action that has a key, in the menus' order."""
    return [Row(menu_of(a), plain(a.text()), ", ".join(native(k) for k in a.shortcuts()))
            for a in actions if a.shortcuts()]


def button_rows() -> list[Row]:
    return [Row(where, does, native(key)) for where, does, key in BUTTON_KEYS]


def note(typing_keys: Iterable[str]) -> str:
    """The keys no row lists: what a text field keeps, and buttons' underlined letters."""
    said = ", ".join(native(k) for k in sorted(typing_keys))
    return (f"While you type in a text field or the editor, {said} act there (as editing keys), not on the "
            "window. Alt and the letter underlined in a button's text press it (where the system uses them).")


class ShortcutsDialog(QDialog):
    def __init__(self, parent: QWidget | None, actions: Iterable[QAction], typing_keys: Iterable[str]):
        super().__init__(parent)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.setWindowTitle("Keyboard Shortcuts")
        self.rows = action_rows(actions) + button_rows()
        lay = QVBoxLayout(self)
        lay.addWidget(self._table(self.rows), 1)
        self.note = QLabel(note(typing_keys))
        self.note.setWordWrap(True)
        lay.addWidget(self.note)
        box = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        box.rejected.connect(self.reject)
        lay.addWidget(box)
        self.resize(560, 720)

    def _table(self, rows: list[Row]) -> QTableWidget:
        self.table = t = QTableWidget(len(rows), len(COLUMNS))
        t.setHorizontalHeaderLabels(COLUMNS)
        t.verticalHeader().hide()
        t.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        t.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        t.setAlternatingRowColors(True)
        for r, row in enumerate(rows):
            for c, value in enumerate(row):
                t.setItem(r, c, QTableWidgetItem(value))
        t.verticalHeader().setDefaultSectionSize(t.fontMetrics().height() + 8)   # a list to read, not a form
        t.setCurrentItem(None)
        header = t.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        return t

    def shown_rows(self) -> list[Row]:
        """The rows as the table shows them (what a person reads)."""
        t = self.table
        return [Row(*(t.item(r, c).text() for c in range(t.columnCount()))) for r in range(t.rowCount())]
