"""Starting the app: the demo copy on first start, the last workspace after, the launcher's
dispatch, drag-and-drop of a folder, and the crash handler keeping an unsaved edit."""

import sys
from pathlib import Path

import pytest

from conftest import DEMO_HOME, tree_state


def test_first_start_copies_the_demo_and_never_touches_the_shipped_one(gui_env, tmp_path):
    from dreamdesk.gui.app import settings_store
    from dreamdesk.gui.app.app import ensure_demo_copy
    shipped = tree_state(DEMO_HOME)
    dest = ensure_demo_copy(tmp_path / "data")
    assert (dest / "workspace" / "USER.md").read_bytes() == (DEMO_HOME / "workspace" / "USER.md").read_bytes()
    assert settings_store.demo_home() == str(dest)
    # the copy comes with its recorded past: snapshots, run records and an archive
    from dreamdesk.engine.recovery.archive import read_archive
    from dreamdesk.engine.dream.records import list_runs
    from dreamdesk.engine.versions.snapshots import SnapshotStore
    from dreamdesk.engine.home.workspace import Workspace
    ws = Workspace.open(dest)
    assert len(SnapshotStore(ws).list()) >= 5 and len(list_runs(ws)[0]) >= 5 and read_archive(ws).records
    (dest / "workspace" / "USER.md").write_text("changed")
    assert ensure_demo_copy(tmp_path / "data") == dest                    # an existing copy is kept
    assert (dest / "workspace" / "USER.md").read_text() == "changed"
    assert tree_state(DEMO_HOME) == shipped


def test_launcher_dispatches_cli_commands_without_qt(capsys):
    from dreamdesk.gui.app.launcher import main
    assert main(["status", str(DEMO_HOME), "--json"]) == 0
    assert '"pending": 25' in capsys.readouterr().out
    assert main(["open"]) == 2 and "usage" in capsys.readouterr().err


def test_a_half_installed_pyside6_gets_a_clear_message_not_a_traceback(tmp_path):
    import os
    import subprocess
    # what a half-uninstalled PySide6 looks like: the package folder without its __init__.py
    # (-S keeps the real site-packages, whose regular package would win, off the path)
    (tmp_path / "PySide6").mkdir()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(Path(__file__).parents[2])]))
    code = "import sys; from dreamdesk.gui.app.launcher import main; sys.exit(main([]))"
    proc = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, timeout=30,
                          env=env)
    assert proc.returncode == 1, proc.stderr
    assert "PySide6 is installed incompletely" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the display check is Linux's (X11/Wayland)")
def test_without_a_display_the_app_says_so_in_one_line():
    import os
    import subprocess
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env["PYTHONPATH"] = str(Path(__file__).parents[2])
    proc = subprocess.run([sys.executable, "-c", "import sys; from dreamdesk.gui.app.launcher import main; sys.exit(main([]))"],
                          capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 1 and proc.stderr.startswith("dreamdesk: no display") and proc.stderr.count("\n") == 1


def test_engine_never_imports_qt():
    import subprocess
    code = ("import sys, dreamdesk.engine.cli, dreamdesk.engine.dream.run, dreamdesk.engine.jobs.service, dreamdesk.engine.jobs.consolidator;"
            "bad = [m for m in sys.modules if m.startswith(('PySide6', 'shiboken6', 'dreamdesk.gui'))];"
            "print(bad); sys.exit(1 if bad else 0)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_reopens_the_last_workspace(main_window, demo_home):
    from dreamdesk.gui.app import settings_store
    assert settings_store.last_workspace() == str(demo_home)
    assert str(demo_home) in settings_store.recent_workspaces()
    texts = [a.text() for a in main_window.recent_menu.actions()]
    assert str(demo_home) in texts


def test_drop_a_folder_opens_it(main_window, tmp_path, make_workspace, qtbot):
    from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
    from PySide6.QtGui import QDropEvent
    other = make_workspace({"SOUL.md": "# other\n"}, root=tmp_path / "other")
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(other))])
    event = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                       Qt.KeyboardModifier.NoModifier)
    main_window.dropEvent(event)
    assert main_window.ws.root == Path(other)
    qtbot.waitUntil(lambda: main_window.state is not None and main_window.state.status.workspace == str(other),
                    timeout=5000)


def test_crash_handler_keeps_the_unsaved_edit(main_window, qtbot, gui_env):
    from dreamdesk.gui.app.errors import install_excepthook
    main_window.tabs.setCurrentWidget(main_window.files)
    main_window.files.open_path("USER.md")
    qtbot.waitUntil(lambda: main_window.files.loaded is not None and main_window.files.loaded.path == "USER.md",
                    timeout=5000)
    main_window.files.editor.setPlainText("my precious unsaved words")
    old = sys.excepthook
    install_excepthook()
    try:
        try:
            raise RuntimeError("boom")
        except RuntimeError:
            sys.excepthook(*sys.exc_info())
    finally:
        sys.excepthook = old
    found = list((gui_env / "xdg-data").rglob("*.recovered.md"))
    assert found and found[0].read_text() == "my precious unsaved words"
    assert main_window.files.editor.toPlainText() == "my precious unsaved words"   # still there too


def _launch(tmp_path: Path, *args: str):
    """The real `dreamdesk` entry point in a subprocess, offscreen, with its own settings and
    data folders (seeded with a last workspace). A window that opens would block: that is a
    timeout, and the test fails."""
    import os
    import subprocess
    conf = tmp_path / "xdg-config" / "Dreamdesk" / "Dreamdesk.conf"
    conf.parent.mkdir(parents=True, exist_ok=True)
    conf.write_text(f"[General]\nlast={DEMO_HOME}\n")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(tmp_path / "xdg-config"),
               XDG_DATA_HOME=str(tmp_path / "xdg-data"), PYTHONPATH=str(Path(__file__).parents[2]))
    code = "import sys; from dreamdesk.gui.app.launcher import main; sys.exit(main(sys.argv[1:]))"
    before = conf.read_bytes()
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=30, env=env)
    assert conf.read_bytes() == before                      # the last workspace is untouched
    assert not (tmp_path / "xdg-data" / "dreamdesk" / "demo").exists()   # and no demo was made
    return proc


@pytest.mark.parametrize("kind", ["missing", "file", "not a workspace"])
def test_open_refuses_a_path_that_is_no_workspace_in_one_line(tmp_path, kind):
    target = tmp_path / "typo"
    if kind == "file":
        target.write_text("x")
    elif kind == "not a workspace":
        target.mkdir()
    proc = _launch(tmp_path, "open", str(target))
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == "" and proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith(f"dreamdesk open: {target}: ")


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_open_help_prints_help_without_a_window(tmp_path, flag):
    proc = _launch(tmp_path, "open", flag)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("usage: dreamdesk open PATH") and proc.stderr == ""


def test_the_open_dialog_refuses_a_folder_that_is_no_workspace(main_window, tmp_path, monkeypatch, demo_home):
    from dreamdesk.gui.window import main_window as mw
    from dreamdesk.gui.app import settings_store
    shown = []
    monkeypatch.setattr(mw, "report_error", lambda title, message, details="": shown.append((title, message, details)))
    picked = tmp_path / "empty"
    picked.mkdir()
    monkeypatch.setattr(mw.QFileDialog, "getExistingDirectory", staticmethod(lambda *a, **k: str(picked)))
    main_window.choose_workspace()
    assert shown == [("Cannot open this folder", f"{picked}: does not look like an assistant workspace "
                      "(no SOUL.md, USER.md, AGENTS.md or memory/ here or in ./workspace)", "")]
    assert main_window.ws.root == demo_home / "workspace" and settings_store.last_workspace() == str(demo_home)
