"""The main window's menus: every action with its key and its status-bar tip (Help → Keyboard
Shortcuts lists them from the window's actions). Built with the window's frame, before the
engine loads; each action calls the window, which dispatches."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..app import settings_store
from ..qt import QAction, QKeySequence, QMenu, Qt
from .tab_views import TAB_KEYS, TABS

if TYPE_CHECKING:
    from .main_window import MainWindow


def action(win: MainWindow, menu: QMenu, text: str, slot, shortcut=None, tip: str = "") -> QAction:
    a = QAction(text, win)
    if shortcut:
        a.setShortcut(QKeySequence(shortcut))
    if tip:
        a.setStatusTip(tip)
    a.triggered.connect(slot)
    menu.addAction(a)
    win.addAction(a)
    return a


def build_menus(win: MainWindow) -> None:
    # the window holds its menus: a wrapper asked of QAction.menu() later can be a stale one whose
    # address a deleted C++ menu (a context menu) had, and then reads as "already deleted"
    win.menus = {}
    _file_menu(win, _menu(win, "file", "&File"))
    win.act_undo_restore = action(win, _menu(win, "edit", "&Edit"), "&Undo Last Restore", win.undo_last_restore,
                                  "Ctrl+Alt+Z", "Put back the files the last restore wrote (from any tab; asks first)")
    _dream_menu(win, _menu(win, "dream", "&Dream"))
    v = _menu(win, "view", "&View")
    for i, name in enumerate(("Dashboard", *(title for _n, title, *_ in TABS))):   # the tabs' own titles
        action(win, v, name, lambda _=False, i=i: win.tabs.setCurrentIndex(i), TAB_KEYS[i] if i < len(TAB_KEYS) else None)
    action(win, v, "Engine Panel", lambda: win.engine_dock.setVisible(not win.engine_dock.isVisible()), "Ctrl+E")
    h = _menu(win, "help", "&Help")
    action(win, h, "&Keyboard Shortcuts", lambda: win.shortcuts_dialog().open(), "Ctrl+/", "Every key of this window")
    h.addSeparator()
    # F1 is a desktop's Help key: the About dialog is Dreamdesk's help (versions, places, the keys)
    action(win, h, "&About Dreamdesk", lambda: win.about_dialog().open(), "F1")
    fill_recent(win)


def _menu(win: MainWindow, key: str, title: str) -> QMenu:
    menu = win.menus[key] = win.menuBar().addMenu(title)
    return menu


def _file_menu(win: MainWindow, f: QMenu) -> None:
    action(win, f, "&Open Workspace…", win.choose_workspace, QKeySequence.StandardKey.Open,
           "Open an assistant's home or workspace folder")
    win.recent_menu = f.addMenu("Open &Recent")
    action(win, f, "Open the &Demo Workspace", win.open_demo, None, "Open Dreamdesk's private demo copy")
    f.addSeparator()
    win.save_action = action(win, f, "&Save", lambda: win.built("files") and win.files.save(),
                             QKeySequence.StandardKey.Save, "Save the file being edited")
    win.save_action.setEnabled(False)
    action(win, f, "&Reload", win.refresh, "F5", "Read the workspace again")
    f.addSeparator()
    # the platform's Quit key when a keyboard types it, else Ctrl+Q (PySide6 6.10's generic
    # theme binds Quit to Exit, a remote-control key with no modifier)
    quit_keys = [k for k in QKeySequence.keyBindings(QKeySequence.StandardKey.Quit)
                 if k[0].keyboardModifiers() != Qt.KeyboardModifier.NoModifier] or [QKeySequence("Ctrl+Q")]
    action(win, f, "&Quit", win.close, quit_keys[0])


def _dream_menu(win: MainWindow, d: QMenu) -> None:
    win.act_dream = action(win, d, "&Dream Now", lambda: win.panel.run_dream(), "Ctrl+D")
    win.act_dry = action(win, d, "Dr&y Run…", lambda: win.panel.run_dream(dry_run=True), "Ctrl+Shift+D")
    win.act_review = action(win, d, "&Review Now", lambda: win.panel.run_dream(review=True), "Ctrl+R")
    win.act_compact = action(win, d, "&Compact Now", lambda: win.panel.run_compact(), "Ctrl+K")
    win.act_cancel = action(win, d, "C&ancel", lambda: win.panel.cancel(), "Esc")
    d.addSeparator()
    action(win, d, "Edit Dream &Prompts…", win.edit_dream_prompts, None,
           "What Dreamdesk's Dream tells each pass in this workspace")


def fill_recent(win: MainWindow) -> None:
    """File → Open Recent: the workspaces opened last, newest first."""
    win.recent_menu.clear()
    for path in settings_store.recent_workspaces():
        a = win.recent_menu.addAction(path)
        a.triggered.connect(lambda _=False, p=path: win.open_workspace(p))
    win.recent_menu.setEnabled(bool(win.recent_menu.actions()))
