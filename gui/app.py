"""QApplication setup, the first-start demo copy, and run()."""

from __future__ import annotations

import logging
import shutil
import sys
from pathlib import Path

from . import qt_messages, settings_store
from .qt import QApplication

# in a PyInstaller bundle the data files sit under sys._MEIPASS
RESOURCES = (Path(getattr(sys, "_MEIPASS", "")) / "resources" if getattr(sys, "frozen", False)
             else Path(__file__).resolve().parent.parent / "resources")


def demo_source() -> Path:
    return RESOURCES / "demo"


def ensure_demo_copy(data_dir: Path | None = None) -> Path:
    """A private copy of the demo home in the user data dir (the shipped copy is never modified)."""
    dest = build_demo_copy(data_dir)
    settings_store.set_demo_home(str(dest))
    return dest


def build_demo_copy(data_dir: Path | None = None) -> Path:
    """The copying and git work of ensure_demo_copy, without Qt (so it can run off the GUI thread)."""
    if data_dir is None:
        from platformdirs import user_data_dir
        data_dir = Path(user_data_dir("dreamdesk", "dreamdesk"))
    dest = data_dir / "demo"
    if not dest.exists():
        data_dir.mkdir(parents=True, exist_ok=True)
        tmp = data_dir / ".demo-copy"
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.copytree(demo_source(), tmp)
        # give the copy its recorded past (snapshots, Dream runs, archive) so every view has
        # something true to show; without git it stays a plain copy
        from dreamdesk.engine.demo_history import build_demo_history
        from dreamdesk.engine.problems import WorkspaceError
        try:
            build_demo_history(tmp, RESOURCES / "demo-history")
        except (WorkspaceError, OSError) as exc:
            logging.getLogger(__name__).warning("the demo copy has no recorded history (%s)", exc)
        tmp.rename(dest)
    return dest


def make_app(argv: list[str] | None = None) -> QApplication:
    app = QApplication.instance() or QApplication(argv or sys.argv[:1])
    app.setOrganizationName("Dreamdesk")
    app.setApplicationName("Dreamdesk")
    app.setApplicationDisplayName("Dreamdesk")
    icon = RESOURCES / "icons" / "dreamdesk.png"
    if icon.is_file():
        from .qt import QtGui
        app.setWindowIcon(QtGui.QIcon(str(icon)))
    return app


def run(path: str | None = None) -> int:
    """The window's frame is painted first, saying what it opens; the engine, the log file and
    the rest of the window load right after that paint, then the workspace is read off the GUI
    thread (the demo copy, on a first start, is built off it too)."""
    app = make_app()
    from .main_window import MainWindow
    target = path or settings_store.last_workspace()
    # only when nobody named a path (the launcher checked it)
    demo = path is None and (target is None or not Path(target).exists())
    win = MainWindow(frame_only=True)
    win.opening.setText("Preparing the demo workspace…" if demo else f"Opening {target}…")
    win.show()
    win.after_first_paint(lambda: _start(win, None if demo else target))
    return app.exec()


def _start(win, target: str | None) -> None:
    """After the first paint: logging, the rest of the window, then the workspace (None: the demo)."""
    from dreamdesk.engine import logs
    from .errors import install_excepthook
    log_file = logs.setup()
    qt_messages.install()        # (a message Qt gave before this went to stderr, as Qt prints them)
    install_excepthook()
    logging.getLogger(__name__).info("Dreamdesk started (log file %s)", log_file)
    settings_store.move_key_to_keyring()     # once: a key an older Dreamdesk kept in plain text
    win.fill()
    if target is None:
        win.open_demo()
    else:
        win.open_workspace(target)
