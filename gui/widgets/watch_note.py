"""The watch's last word in the status bar ("Another writer removed 1 entry from USER.md"), a link
to the entries it archived, said too as a desktop notification where there is a tray."""

from __future__ import annotations

from html import escape

from ..qt import QLabel, QSystemTrayIcon, Qt, QWidget, Signal


class WatchNote(QLabel):
    clicked = Signal()          # the person asks to see the change (the link, or the notification)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("watchNote")
        self.setTextFormat(Qt.TextFormat.RichText)
        self.linkActivated.connect(lambda _link: self.clicked.emit())
        self._tray: QSystemTrayIcon | None = None
        self.hide()

    def say(self, message: str) -> None:
        self.setText(f"<a href='change'>{escape(message)}</a>")
        self.setToolTip("Archived with reason “outside”; click to see the entries")
        self.show()
        self._notify(message)

    def _notify(self, text: str) -> None:
        """A desktop notification where there is a tray; the status bar line says it anyway."""
        if not QSystemTrayIcon.isSystemTrayAvailable():
            return
        if self._tray is None:
            self._tray = QSystemTrayIcon(self.window().windowIcon(), self)
            self._tray.messageClicked.connect(self.clicked)
            self._tray.show()
        self._tray.showMessage("Dreamdesk", text)

    def close_tray(self) -> None:
        if self._tray is not None:
            self._tray.hide()
