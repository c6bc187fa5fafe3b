"""Help: `dreamdesk --help` and `--version`, Help → About Dreamdesk (versions and where Dreamdesk
keeps its things) and Help → Keyboard Shortcuts (every key of the window, from its own actions)."""

import os
import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication, QDialog

from helpers.screens import grab

REPO = Path(__file__).resolve().parents[2]


def _dreamdesk(*args: str) -> subprocess.CompletedProcess:
    """The console entry point in a subprocess (no display needed: these never open a window)."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop("QT_QPA_PLATFORM", None)
    return subprocess.run([sys.executable, "-m", "dreamdesk.gui.app.launcher", *args], capture_output=True, text=True,
                          timeout=60, env=env, cwd=REPO)


def test_help_says_what_no_arguments_and_open_do_and_lists_the_commands():
    proc = _dreamdesk("--help")
    assert proc.returncode == 0 and proc.stderr == ""
    out = " ".join(proc.stdout.split())          # as read, whatever the terminal's width
    assert out.startswith("usage: dreamdesk [open PATH] [--new-window] dreamdesk COMMAND PATH [options] "
                          "dreamdesk --version")
    assert ("While Dreamdesk runs, these bring its window to the front (opening PATH there) and end; with "
            "--new-window it opens a new window instead." in out)
    assert ("dreamdesk open the window on the last workspace (a private copy of the demo on a first start)"
            in out)
    assert "dreamdesk open PATH open the window on PATH: an assistant's home folder or its workspace folder" in out
    assert "the command line (no window; dreamdesk COMMAND --help for one)" in out
    for command in ("status", "history", "dream", "restore", "serve"):
        assert f" {command} " in out
    # a command's own help still names itself
    assert _dreamdesk("status", "--help").stdout.startswith("usage: dreamdesk status [-h] [--json] [--agent ID] PATH")


def test_version_is_the_installed_one_or_says_it_is_not_installed(capsys, monkeypatch):
    from dreamdesk.gui.app.launcher import main
    proc = _dreamdesk("--version")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, f"dreamdesk {metadata.version('dreamdesk')}\n", "")

    def not_installed(name):
        raise metadata.PackageNotFoundError(name)
    monkeypatch.setattr(metadata, "version", not_installed)
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out == f"dreamdesk 0.1.0, not installed as a package (running from {REPO})\n"


def _labels(dialog) -> dict[str, str]:
    """What the About dialog shows, by the name on each row's left."""
    from PySide6.QtWidgets import QFormLayout, QLabel
    shown = {}
    for form in dialog.findChildren(QFormLayout):
        for r in range(form.rowCount()):
            if form.itemAt(r, QFormLayout.ItemRole.LabelRole) is None:
                continue                                        # a heading across the form
            name = form.itemAt(r, QFormLayout.ItemRole.LabelRole).widget().text()
            value = form.itemAt(r, QFormLayout.ItemRole.FieldRole).widget()
            assert isinstance(value, QLabel)
            shown[name] = value
    return shown


def test_about_shows_versions_and_where_things_live_selectable_and_copyable(main_window, qtbot, private_state):
    import PySide6
    from PySide6.QtCore import QSettings, Qt, qVersion

    from dreamdesk.engine.core import logs
    from dreamdesk.gui.app import settings_store
    dialog = main_window.about_dialog()
    dialog.show()
    qtbot.waitExposed(dialog)
    labels = _labels(dialog)
    shown = {name: label.text() for name, label in labels.items()}
    assert shown["Dreamdesk:"] == metadata.version("dreamdesk")
    assert shown["Python:"].startswith(f"{platform.python_version()} (CPython, {sys.executable}")
    assert (shown["Qt:"], shown["PySide6:"]) == (qVersion(), PySide6.__version__)
    assert shown["Log file:"].split("  (")[0] == str(logs.current_path() or logs.log_path())
    assert shown["Settings:"].split("  (")[0] == QSettings("Dreamdesk", "Dreamdesk").fileName()
    assert shown["State folder:"] == str(private_state)              # (it exists: no note)
    assert shown["Cache folder:"].split("  (")[0] == os.environ["DREAMDESK_CACHE_DIR"]
    assert shown["Demo copy:"] == settings_store.demo_home()
    for label in labels.values():
        assert label.textInteractionFlags() & Qt.TextInteractionFlag.TextSelectableByMouse
    grab(dialog, "about.png")
    dialog.copy_button.click()
    copied = QApplication.clipboard().text()
    assert f"State folder: {private_state}\n" in copied and f"Demo copy: {settings_store.demo_home()}\n" in copied
    dialog.close()


def test_about_says_when_a_place_does_not_exist_yet(main_window, qtbot, monkeypatch, tmp_path):
    monkeypatch.setenv("DREAMDESK_STATE_DIR", str(tmp_path / "never-made"))
    dialog = main_window.about_dialog()
    assert _labels(dialog)["State folder:"].text() == f"{tmp_path / 'never-made'}  (not created yet)"
    assert f"State folder: {tmp_path / 'never-made'} (not created yet)\n" in dialog.text()
    dialog.close()


def _shortcut_rows(win) -> set[tuple[str, str]]:
    """(what, key) for every window action with a key, as the menus show it."""
    from PySide6.QtGui import QKeySequence
    native = QKeySequence.SequenceFormat.NativeText
    return {(a.text().replace("&", ""), ", ".join(k.toString(native) for k in a.shortcuts()))
            for a in win.actions() if a.shortcuts()}


def test_shortcuts_list_every_action_of_the_window_and_opens_from_its_key(main_window, qtbot):
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    from dreamdesk.gui.window.shortcuts import Row, ShortcutsDialog
    dialog = main_window.shortcuts_dialog()
    dialog.show()
    qtbot.waitExposed(dialog)
    rows = dialog.shown_rows()
    assert Row("Dream menu", "Dream Now", "Ctrl+D") in rows
    assert Row("Help menu", "About Dreamdesk", "F1") in rows and Row("File menu", "Quit", "Ctrl+Q") in rows
    assert Row("Edit menu", "Undo Last Restore", "Ctrl+Alt+Z") in rows
    assert len(_shortcut_rows(main_window)) >= 20
    assert _shortcut_rows(main_window) <= {(r.does, r.key) for r in rows}
    assert "Ctrl+D, Ctrl+K, Ctrl+R, Esc act there" in dialog.note.text()
    assert "Alt and the letter underlined in a button's text press it" in dialog.note.text()
    grab(dialog, "shortcuts.png")
    dialog.close()

    # Help → Keyboard Shortcuts is on a key of its own, and F1 still opens About
    for key, kind in ((Qt.Key.Key_Slash, ShortcutsDialog), (Qt.Key.Key_F1, None)):
        modifier = Qt.KeyboardModifier.ControlModifier if kind else Qt.KeyboardModifier.NoModifier
        main_window.activateWindow()                  # (the closed dialog was the active window)
        qtbot.waitUntil(lambda: QApplication.activeWindow() is main_window, timeout=3000)
        QTest.keyClick(main_window, key, modifier)
        opened = lambda: [w for w in main_window.findChildren(QDialog) if w.isVisible()]   # noqa: E731
        qtbot.waitUntil(lambda: len(opened()) == 1, timeout=3000)
        assert opened()[0].windowTitle() == ("Keyboard Shortcuts" if kind else "About Dreamdesk")
        opened()[0].close()
        qtbot.waitUntil(lambda: not opened(), timeout=3000)


def test_the_about_dialog_leads_to_the_shortcuts(main_window, qtbot):
    about = main_window.about_dialog()
    about.show()
    about.shortcuts_button.click()
    qtbot.waitUntil(lambda: any(d.isVisible() and d.windowTitle() == "Keyboard Shortcuts"
                                for d in about.findChildren(QDialog)), timeout=3000)
    about.close()


def _button_keys(widget) -> set[tuple[str, str]]:
    """(text, key) of the buttons with a key, but for Alt + the letter underlined in their text."""
    from PySide6.QtGui import QKeySequence
    from PySide6.QtWidgets import QAbstractButton
    return {(b.text().replace("&", ""), b.shortcut().toString()) for b in widget.findChildren(QAbstractButton)
            if not b.shortcut().isEmpty() and b.shortcut() != QKeySequence.mnemonic(b.text())}


def test_the_buttons_keys_listed_are_the_buttons_keys_of_every_tab(main_window, gui_engine):
    """The keys that are no action are kept by hand: this keeps them true, both ways."""
    from dreamdesk.gui.window.shortcuts import BUTTON_KEYS
    from dreamdesk.gui.window.tab_views import TABS
    from dreamdesk.gui.views.engine_panel import DryRunDialog
    views = {f"{title} tab": main_window.views.get(name) for name, title, *_ in TABS}
    views["Dry run"] = DryRunDialog("", [], gui_engine)
    views["Dashboard"], views["Engine panel"] = main_window.dashboard, main_window.panel   # (none there)
    listed = {(where, key) for where, _does, key in BUTTON_KEYS}
    present = {(where, key) for where, view in views.items() for _text, key in _button_keys(view)}
    assert present == listed
    assert ("Archive tab", "Shift+Del") in present
    views["Dry run"].close()
