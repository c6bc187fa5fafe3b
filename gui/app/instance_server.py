"""The running app's side of gui/app/single_instance.py: a QLocalServer that takes a second start's
request and does it in this process's windows (open a workspace, or a new window, then raise it)."""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtNetwork import QLocalServer, QLocalSocket

from . import settings_store
from ..qt import QApplication, QObject, Qt, QTimer, isValid
from .single_instance import BAD, MAX_REQUEST, OK, address, is_live, parse

log = logging.getLogger(__name__)


class InstanceServer(QObject):
    def __init__(self, first_window, parent: QObject | None = None):
        super().__init__(parent)
        self.windows = [first_window]            # this process's main windows, oldest first
        self.server = QLocalServer(self)
        self.server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)   # this user only
        self.server.newConnection.connect(self._accept)

    def listen(self) -> bool:
        """Listen at this user's address, unless a live app answers there (two starts at the same
        moment: this one then runs without taking requests). A socket a crashed app left is
        removed first. (Qt, asked for user-only access, would rename its socket over any file
        there, a live app's too: hence the look first.)"""
        name = address()
        if is_live(name):
            log.warning("another Dreamdesk listens at %s: second starts go to it", name)
            return False
        QLocalServer.removeServer(name)
        if self.server.listen(name):
            return True
        log.warning("second starts will open their own window: cannot listen at %s (%s)", name,
                    self.server.errorString())
        return False

    def close(self) -> None:
        self.server.close()

    # -- one request per connection ---------------------------------------------------------
    def _accept(self) -> None:
        while self.server.hasPendingConnections():
            sock = self.server.nextPendingConnection()
            buf = bytearray()
            sock.readyRead.connect(lambda s=sock, b=buf: self._read(s, b))
            sock.disconnected.connect(sock.deleteLater)
            if sock.bytesAvailable():
                self._read(sock, buf)

    def _read(self, sock: QLocalSocket, buf: bytearray) -> None:
        buf += bytes(sock.readAll().data())
        end = buf.find(b"\n")
        if end < 0 and len(buf) <= MAX_REQUEST:
            return                                   # the rest of the line is still coming
        asked = parse(bytes(buf[:end])) if 0 <= end <= MAX_REQUEST else None
        # answered before it is done: opening may first ask about an unsaved edit, and the
        # second start must not wait for that
        sock.write(OK if asked is not None else BAD)
        sock.flush()
        sock.disconnectFromServer()
        buf.clear()
        if asked is None:
            log.warning("a second start sent something that is no request; ignored")
            return
        QTimer.singleShot(0, lambda: self.handle(*asked))

    # -- what a request does ---------------------------------------------------------------
    def handle(self, path: str | None, new_window: bool):
        """Open `path` (None: nothing new) in the window in front, or in a new window when asked
        or when none is left open; bring that window to the front. Returns it."""
        log.info("a second start asks to open %s%s", path or "nothing new", " in a new window" if new_window else "")
        win = self.target()
        if win is None or new_window:
            win, opened = self.new_window(path)
        else:
            opened = path is not None and win.open_workspace(path)
        if opened:          # why the window changed under the user's eyes
            win.show_message(f"Opened {path}, as `dreamdesk open` asked")
        bring_to_front(win)
        return win

    def target(self):
        """The window a request goes to: the active one, else the newest still open."""
        self.windows = [w for w in self.windows if isValid(w)]
        active = QApplication.activeWindow()
        if active in self.windows and active.isVisible():
            return active
        return next((w for w in reversed(self.windows) if w.isVisible()), None)

    def new_window(self, path: str | None):
        """A second main window in this process, on `path` (None: the last workspace, else the
        demo), and whether `path` opened."""
        from ..window.main_window import MainWindow
        win = MainWindow()
        win.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.windows.append(win)
        win.show()
        target = path or settings_store.last_workspace()
        if target is None or not Path(target).exists():
            win.open_demo()
            return win, False
        return win, win.open_workspace(target) and path is not None


def bring_to_front(win) -> None:
    if win.isMinimized():
        win.setWindowState((win.windowState() & ~Qt.WindowState.WindowMinimized) | Qt.WindowState.WindowActive)
    win.show()
    win.raise_()
    win.activateWindow()


def start(app: QApplication, win) -> InstanceServer:
    """Listen for second starts for as long as the app runs (the socket goes when it quits)."""
    server = InstanceServer(win, app)
    if server.listen():
        app.aboutToQuit.connect(server.close)
    app.dreamdesk_instance = server
    return server
