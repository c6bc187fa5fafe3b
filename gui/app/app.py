"""QApplication setup, the first-start demo copy, and run()."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from . import qt_messages, settings_store
from ..qt import QApplication

from dreamdesk.engine.desktop.demo_copy import build_demo_copy, demo_source  # noqa: F401  (the start's names)

def ensure_demo_copy(data_dir: Path | None = None) -> Path:
    """A private copy of the demo home in the user data dir (the shipped copy is never modified)."""
    dest = build_demo_copy(data_dir)
    settings_store.set_demo_home(str(dest))
    return dest


def make_app(argv: list[str] | None = None) -> QApplication:
    app = QApplication.instance() or QApplication(argv or sys.argv[:1])
    app.setOrganizationName("Dreamdesk")
    app.setApplicationName("Dreamdesk")
    app.setApplicationDisplayName("Dreamdesk")
    # the desktop entry install-desktop installs (dreamdesk.desktop): Wayland matches windows to
    # their entry, and so to its icon, by this name (else by the program file's: python3)
    app.setDesktopFileName("dreamdesk")
    return app


def set_icon(app: QApplication) -> None:
    """The app's icon (window, taskbar, tray): set after the first paint (finding the resources
    imports importlib.resources, ~14 ms), a moment before the desktop shows it anywhere."""
    from dreamdesk.engine.core.resources import resource
    icon = resource("icons", "dreamdesk.png")
    if icon.is_file():
        from ..qt import QtGui
        app.setWindowIcon(QtGui.QIcon(str(icon)))


def run(path: str | None = None) -> int:
    """The window's frame is painted first, saying what it opens; the engine, the log file and
    the rest of the window load right after that paint, then the workspace is read off the GUI
    thread (the demo copy, on a first start, is built off it too)."""
    app = make_app()
    from ..window.main_window import MainWindow
    target = path or settings_store.last_workspace()
    # only when nobody named a path (the launcher checked it)
    demo = path is None and (target is None or not Path(target).exists())
    win = MainWindow(frame_only=True)
    win.opening.setText("Preparing the demo workspace…" if demo else f"Opening {target}…")
    win.show()
    win.after_first_paint(lambda: _start(app, win, None if demo else target))
    from . import smoke
    if smoke.requested():                 # CI's smoke start of the bundle and the wheel (gui/app/smoke.py)
        smoke.watch(app, win, smoke.requested())
    return app.exec()


def _start(app: QApplication, win, target: str | None) -> None:
    """After the first paint: logging, the icon, the rest of the window, then the workspace (None: the demo)."""
    from dreamdesk.engine.core import logs
    from .errors import install_excepthook
    log_file = logs.setup()
    qt_messages.install()        # (a message Qt gave before this went to stderr, as Qt prints them)
    install_excepthook()
    set_icon(app)
    logging.getLogger(__name__).info("Dreamdesk started (log file %s)", log_file)
    settings_store.move_key_to_keyring()     # once: a key an older Dreamdesk kept in plain text
    win.fill()
    if target is None:
        win.open_demo()
    else:
        win.open_workspace(target)
    from . import smoke
    if not smoke.requested():     # (a smoke start checks itself: it never takes another start's request)
        from . import instance_server
        instance_server.start(app, win)
