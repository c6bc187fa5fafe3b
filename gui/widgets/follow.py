"""Views of a file that grows at its end follow it as `tail -f` does (issue 25.4): at the bottom,
they stay at the bottom and show what was appended; scrolled elsewhere, they stay where the
person left them, and a table says how many rows arrived below ("3 new below", a click goes
there)."""

from __future__ import annotations

from typing import NamedTuple

from ..qt import QAbstractScrollArea, QEvent, QObject, QPushButton, QTableView

MARGIN = 8      # the button's distance from the table's lower right corner (clear of its scroll bar)


def at_bottom(area: QAbstractScrollArea) -> bool:
    bar = area.verticalScrollBar()
    return bar.value() >= bar.maximum()


class Place(NamedTuple):
    """Where a view was scrolled before its rows were replaced."""
    bottom: bool
    value: int


class TailFollow(QObject):
    """Keeps `table` at its end across reloads while it was there, else where it was, counting the
    rows that arrived below. Call before() ahead of a reload and after(place, new_rows) once done."""

    def __init__(self, table: QTableView):
        super().__init__(table)
        self.table = table
        self.count = 0
        self._reloading = False
        self.button = QPushButton(table)
        self.button.setObjectName("newBelow")
        self.button.setToolTip("Show the newest rows (the view follows them again from there)")
        self.button.clicked.connect(self.to_bottom)
        self.button.hide()
        table.verticalScrollBar().valueChanged.connect(self._scrolled)
        table.installEventFilter(self)

    def before(self) -> Place:
        bar = self.table.verticalScrollBar()
        self._reloading = True
        return Place(at_bottom(self.table), bar.value())

    def after(self, place: Place, new_rows: int) -> None:
        """The rows are in: back to the bottom, or to where the view was (and say what is new)."""
        try:
            if place.bottom:
                self.table.scrollToBottom()
                self.clear()
            else:
                self.table.verticalScrollBar().setValue(place.value)
                if new_rows > 0:
                    self.count += new_rows
                    self._show()
        finally:
            self._reloading = False

    def to_bottom(self) -> None:
        self.table.scrollToBottom()
        self.clear()

    def clear(self) -> None:
        self.count = 0
        self.button.hide()

    def _show(self) -> None:
        self.button.setText(f"{self.count:,} new below ↓")
        self.button.adjustSize()
        self._place()
        self.button.show()
        self.button.raise_()

    def _place(self) -> None:
        vp = self.table.viewport().geometry()       # in the table's coordinates: left of the scroll bar
        self.button.move(vp.right() - self.button.width() - MARGIN, vp.bottom() - self.button.height() - MARGIN)

    def _scrolled(self, value: int) -> None:
        if not self._reloading and self.count and value >= self.table.verticalScrollBar().maximum():
            self.clear()            # the person scrolled down to the new rows

    def eventFilter(self, obj, event) -> bool:  # noqa: N802
        if obj is self.table and event.type() == QEvent.Type.Resize and self.count:
            self._place()
        return False


class EndFollow(QObject):
    """Keeps a scroll area (a log) at its end while the person leaves it there. Judged from the
    scroll bar's own moves: a wrapped text lays its new lines out later, so whether it was at the
    end cannot be read at the moment a line is appended."""

    def __init__(self, area: QAbstractScrollArea):
        super().__init__(area)
        self.bar = area.verticalScrollBar()
        self.following = True
        self.bar.valueChanged.connect(self._moved)
        self.bar.rangeChanged.connect(self._grew)

    def _moved(self, value: int) -> None:
        self.following = value >= self.bar.maximum()

    def _grew(self, _low: int, high: int) -> None:
        if self.following:
            self.bar.setValue(high)
