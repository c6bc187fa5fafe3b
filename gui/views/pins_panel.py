"""The Dashboard's pins: an alert for each pinned entry no longer in its file (Restore / Unpin,
nothing put back on its own) and the list of pins that are where they belong."""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from dreamdesk.engine.core import clock

from ..qt import QFrame, QGroupBox, QHBoxLayout, QLabel, QPushButton, Qt, QVBoxLayout, QWidget, Signal

if TYPE_CHECKING:      # (engine.pins loads markdown-it and the snapshot store)
    from dreamdesk.engine.recovery.pins import PinState

ALERT_COLOUR = "#d64541"


def _entry_html(text: str, limit: int = 300) -> str:
    short = text if len(text) <= limit else text[:limit - 1] + "…"
    return f"<code>{escape(short).replace(chr(10), '<br>')}</code>"


class _PinRows(QGroupBox):
    """A box of one row per pin; rows are rebuilt on every state (pins are few)."""
    restoreRequested = Signal(str)     # pin id
    unpinRequested = Signal(str)       # pin id

    def __init__(self, title: str, parent: QWidget | None = None):
        super().__init__(title, parent)
        self._lay = QVBoxLayout(self)
        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.setStyleSheet(f"color: {ALERT_COLOUR};")
        self.error.hide()
        self._lay.addWidget(self.error)
        self.rows: list[QWidget] = []
        self.buttons: dict[tuple[str, str], QPushButton] = {}    # (pin id, "restore" | "unpin")
        self.hide()

    def show_error(self, message: str) -> None:
        self.error.setText(message)
        self.error.setVisible(bool(message))

    def _clear(self) -> None:
        for w in self.rows:
            self._lay.removeWidget(w)
            w.deleteLater()
        self.rows, self.buttons = [], {}

    def _row(self, html: str, pin_id: str, actions: list[tuple[str, str, str]]) -> None:
        row = QFrame()
        rl = QHBoxLayout(row)
        rl.setContentsMargins(0, 2, 0, 2)
        label = QLabel(html)
        label.setWordWrap(True)
        label.setTextFormat(Qt.TextFormat.RichText)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        rl.addWidget(label, 1)
        for kind, text, tip in actions:
            b = QPushButton(text)
            b.setToolTip(tip)
            signal = self.restoreRequested if kind == "restore" else self.unpinRequested
            b.clicked.connect(lambda _=False, s=signal, i=pin_id: s.emit(i))
            rl.addWidget(b, 0, Qt.AlignmentFlag.AlignTop)
            self.buttons[(pin_id, kind)] = b
        self._lay.addWidget(row)
        self.rows.append(row)

    def set_busy(self, busy: bool) -> None:
        for b in self.buttons.values():
            b.setEnabled(not busy)


class PinAlertBox(_PinRows):
    """Pinned entries another writer removed or changed: stays until Restore or Unpin."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__("Pinned entries changed", parent)
        self.setStyleSheet(f"QGroupBox {{ color: {ALERT_COLOUR}; font-weight: bold; }}")
        self.setAccessibleName("Pin alerts")

    def set_pins(self, states: list[PinState], error: str | None = None) -> None:
        self._clear()
        missing = [s for s in states if not s.present]
        for s in missing:
            p = s.pin
            under = f" under <b>{escape(p.heading)}</b>" if p.heading else ""
            what = "was changed" if s.replaced_by else "is gone"
            where = "" if s.file_exists else f" ({escape(p.file)} no longer exists)"
            now = (f"<br>Now: {_entry_html(s.replaced_by)}" if s.replaced_by else "<br>Nothing took its place.")
            html = (f"<span style='font-weight:normal'>A pinned entry of <b>{escape(p.file)}</b>{under} {what}"
                    f"{where}. Pinned {escape(clock.show_iso(p.pinned_at))}:<br>{_entry_html(p.text)}{now}</span>")
            self._row(html, p.id, [
                ("restore", "Restore", f"Put it back under its heading in {p.file} (a snapshot is taken first; "
                                       "undo from Snapshots)"),
                ("unpin", "Unpin", "Accept the change and stop watching this entry")])
        self.setTitle(f"Pinned {'entry' if len(missing) == 1 else 'entries'} changed ({len(missing)})")
        self.show_error(error or "")
        self.setVisible(bool(missing) or bool(error))


class PinListBox(_PinRows):
    """The pins that are where they belong, each with Unpin."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__("Pinned entries", parent)
        self.setAccessibleName("Pinned entries")

    def set_pins(self, states: list[PinState]) -> None:
        self._clear()
        present = [s for s in states if s.present]
        for s in present:
            p = s.pin
            html = (f"<b>{escape(p.file)}</b>{' · ' + escape(p.heading) if p.heading else ''}: "
                    f"{_entry_html(p.text, 160)}")
            self._row(html, p.id, [("unpin", "Unpin", "Stop keeping this entry as it is")])
        self.setTitle(f"Pinned entries ({len(present)})")
        self.setVisible(bool(present))
