"""The main window, the application's shell: tabs over the workspace, the engine dock, menus with
shortcuts for every action, the status bar, QSettings for geometry and splitters, drag-and-drop of
a folder, the questions it asks. What it works on (the workspace, the lanes, the state read, the
watch, the scheduler, the routing of changes) is the application context's (gui/context/app_context.py)."""

from __future__ import annotations

import logging
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from . import window_asks, window_layout, window_menus
from ..qt import (QApplication, QFileDialog, QLabel, QMainWindow, QTabWidget, QTimer, Qt, QtWidgets, QWidget)
from ..app.later import LaterModule, later
from .tab_views import TABS, LazyTab, TabViews, swap_tab
from .typing_keys import TypingKeys
from ..widgets.status_line import Clock, Counters
from ..widgets.watch_note import WatchNote
from .window_fit import first_geometry

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from dreamdesk.engine.home.workspace import Workspace
    from ..context.app_context import AppContext
    from ..context.worker import JobLanes
    from ..context.workspace_state import WorkspaceState

# The window's frame (menus, tab titles, status bar) paints before any of the engine or the views
# is imported: what follows is loaded by fill(), right after that paint (gui/app/later.py)
changes_mod, errors = LaterModule("dreamdesk.engine.disk.changes"), LaterModule("dreamdesk.gui.app.errors")
report_error = later("dreamdesk.gui.app.errors", "report_error")
undo_last_restore = later("dreamdesk.gui.operations.undo_restore", "undo_last_restore")
UndoAsks = later("dreamdesk.gui.operations.undo_restore", "UndoAsks")

TAB_NAMES = tuple(t[0] for t in TABS)
FIRST_PAINT_WAIT_MS = 500    # after_first_paint's fallback, for a window that does not paint (started minimised)


class OfContext:
    """`window.ws`, `window.engine` and the like: the application context's, read-only (None
    before fill() made the context)."""

    def __set_name__(self, owner, name: str) -> None:
        self.name = name

    def __get__(self, window, owner=None):
        if window is None:
            return self
        ctx = window.ctx
        return None if ctx is None else getattr(ctx, self.name)

    def __set__(self, window, value) -> None:
        raise AttributeError(f"{self.name} is the application context's (window.ctx)")


class MainWindow(QMainWindow):
    # the tab views, built when first shown or used (gui/window/tab_views.py); built(name) says which are
    history, files, settings, snapshots = LazyTab(), LazyTab(), LazyTab(), LazyTab()
    archive, runs, lint, prompt, charts = LazyTab(), LazyTab(), LazyTab(), LazyTab(), LazyTab()
    # what the context holds, as the window's tests and dialogs read it
    ws, state, engine, reader, watcher = OfContext(), OfContext(), OfContext(), OfContext(), OfContext()
    scheduler = OfContext()

    def __init__(self, engine: JobLanes | None = None, *, frame_only: bool = False):
        """The whole window; with frame_only, only its frame (what the start paints first, before
        the engine is imported): fill() then builds the rest."""
        super().__init__()
        self.setObjectName("DreamdeskMainWindow")
        self.ctx: AppContext | None = None      # made by fill()
        self.filled = False
        self.undo_asks = None                   # an undo's questions (UndoAsks when first asked; tests set theirs)
        self._splitters_restored = False     # (showEvent restores them; a view built later, when built)
        self._after_paint: Callable[[], object] | None = None
        self.setAcceptDrops(True)
        # the first start fits the screen it opens on; a saved geometry replaces this (window_layout)
        self.setGeometry(first_geometry(self.screen().availableGeometry()))
        self._build_frame()
        window_layout.restore_window(self)
        if not frame_only:
            self.fill(engine)

    def _build_frame(self) -> None:
        """The tabs with their titles, the Engine dock, the menus and the status bar, inert until
        fill(): the Dashboard and the Engine panel hold a line saying what is being opened."""
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.opening = QLabel("Opening…")
        self.opening.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.tabs.addTab(self.opening, "Dashboard")
        # every other tab is built (its module imported) when first shown or asked for
        self.views = TabViews(self.tabs, None, self._wire_view)
        self.setCentralWidget(self.tabs)
        dock = QtWidgets.QDockWidget("Engine", self)
        dock.setObjectName("EngineDock")
        dock.setWidget(QWidget())
        dock.setFeatures(QtWidgets.QDockWidget.DockWidgetFeature.DockWidgetMovable |
                         QtWidgets.QDockWidget.DockWidgetFeature.DockWidgetFloatable)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
        self.resizeDocks([dock], [330], Qt.Orientation.Horizontal)   # the views get the width
        self.engine_dock = dock
        self.status_label = Counters()
        # every view shows times on this one clock; it is named once, here (its zone: by fill)
        self.clock_label = Clock()
        for label in (self.status_label, self.clock_label):
            self.statusBar().addPermanentWidget(label)
        window_menus.build_menus(self)
        self._enable(False)    # until fill(): a click or a key must not reach a view or the panel not there yet

    def _enable(self, on: bool) -> None:
        self.tabs.setEnabled(on)
        self.menuBar().setEnabled(on)
        for action in self.actions():
            action.setEnabled(on)

    def fill(self, engine: JobLanes | None = None) -> None:
        """Everything but the frame: the application context (the engine's worker lanes and what
        keeps the workspace), the Dashboard and the Engine panel in their places, the signals.
        Imports the engine (~0.1 s)."""
        if self.filled:
            return
        from ..context.app_context import AppContext
        from ..views.dashboard import Dashboard
        from ..views.engine_panel import EnginePanel
        self.ctx = AppContext(engine, self, shown=lambda view: self.tabs.currentWidget() is view)
        self.views.engine = self.ctx.engine
        self.dashboard = Dashboard()
        swap_tab(self.tabs, self.opening, self.dashboard)
        self.panel = EnginePanel(self.ctx.engine)
        self.engine_dock.widget().deleteLater()
        self.engine_dock.setWidget(self.panel)
        self.ctx.set_runner(self.panel)
        self.clock_label.show_zone()
        # the watch's last word ("The assistant's Dream removed 3 entries from USER.md"): a link to it
        self.watch_note = WatchNote()
        self.watch_note.clicked.connect(self.show_watched_change)
        self.statusBar().addPermanentWidget(self.watch_note)
        self._connect()
        errors.add_rescuer(self._rescue_unsaved)
        self._typing_keys = TypingKeys(self)
        QApplication.instance().installEventFilter(self._typing_keys)
        self._enable(True)
        self.filled = True

    def _connect(self) -> None:
        ctx, dash = self.ctx, self.dashboard
        ctx.message.connect(self.show_message)
        ctx.openFailed.connect(lambda message: report_error("Cannot open this folder", message))
        ctx.workspaceOpened.connect(self._opened)
        ctx.readAsked.connect(self.status_label.reading)
        ctx.stateRead.connect(self._show_state)
        ctx.watched.connect(lambda e: self.watch_note.say(e.message))
        self.panel.status.connect(self.show_message)
        from .dashboard_actions import DashboardActions
        acts = self.dashboard_actions = DashboardActions(self)
        dash.reapplyRequested.connect(acts.reapply_settings)
        dash.forgetRequested.connect(acts.forget_lost_settings)
        for box in (dash.pin_alerts, dash.pin_list):
            box.restoreRequested.connect(acts.restore_pin)
            box.unpinRequested.connect(acts.unpin)
        dash.restoreSinceRequested.connect(acts.restore_since)
        dash.gotItRequested.connect(acts.got_it)
        dash.agentChosen.connect(self.open_agent)
        self.tabs.currentChanged.connect(self._tab_changed)

    # -- the tab views, built when first shown -------------------------------------------------
    def built(self, name: str) -> bool:
        """Whether the tab view `name` ("history", "archive", …) exists yet: code that only
        updates a view skips it until then (it is handed the latest state when built)."""
        return self.views.built(name)

    def _wire_view(self, name: str, view) -> None:
        """A view just built: its signals connected, handed to the context (which gives it the
        open workspace and the last state), its splitter put back as the user left it."""
        if hasattr(view, "status"):
            view.status.connect(self.show_message)
        wire = {"history": self._wire_history, "files": self._wire_files, "settings": self._wire_settings,
                "charts": self._wire_charts, "archive": self._wire_archive, "runs": self._wire_runs}.get(name)
        if wire is not None:
            wire(view)
        self.ctx.add_view(name, view)
        if self._splitters_restored and hasattr(view, "splitter"):
            window_layout.restore(name, view)

    def _wire_history(self, view) -> None:
        view.entryActivated.connect(lambda c: self.show_message(f"History entry {c}"))

    # (what a view's own jobs write comes back as their change record: no refresh is wired here)
    def _wire_files(self, view) -> None:
        view.historyCursorRequested.connect(self.show_history_entry)
        view.unsavedChanged.connect(self.save_action.setEnabled)     # Save only when there is something to save

    def _wire_settings(self, view) -> None:
        view.changed.connect(self._settings_changed)
        view.scheduleToggled.connect(self.ctx.set_scheduling)
        view.watchToggled.connect(lambda on: self.ctx.set_watching(on, by_user=True))
        view.modelChanged.connect(lambda: self.ws and self.panel.set_workspace(self.ws))
        view.pendingBudgets.connect(lambda b: self.built("charts") and self.charts.set_pending(b))

    def _wire_charts(self, view) -> None:
        if self.built("settings"):           # a budget typed before Charts was first shown
            view.set_pending(self.settings.pending_budgets())

    def _wire_archive(self, view) -> None:
        view.runRequested.connect(self.show_run)
        view.snapshotRequested.connect(self.show_snapshot)

    def _wire_runs(self, view) -> None:
        view.historyCursorRequested.connect(self.show_history_entry)
        view.archiveEntryRequested.connect(self.show_archive_entry)
        view.snapshotRequested.connect(self.show_snapshot)

    def _built_views(self, *names: str):
        """(name, view) for those of `names` that are built."""
        return [(n, v) for n in names if (v := self.views.view(n)) is not None]

    def _editing(self) -> bool:
        """An unsaved edit in the Files tab (never one when the tab was never built)."""
        return self.built("files") and self.files.dirty

    # the Help dialogs are imported when first opened: the menus are built before the first paint
    def about_dialog(self) -> QtWidgets.QDialog:
        """Help → About, built (not shown): the caller opens it."""
        from .about import AboutDialog
        return AboutDialog(self, self.shortcuts_dialog)

    def shortcuts_dialog(self, parent: QWidget | None = None) -> QtWidgets.QDialog:
        """Help → Keyboard Shortcuts, built from this window's actions (not shown)."""
        from .shortcuts import ShortcutsDialog
        return ShortcutsDialog(parent or self, self.actions(), TypingKeys.KEYS)

    def edit_dream_prompts(self) -> QtWidgets.QDialog | None:
        """Dream → Edit Dream Prompts… for the open workspace (shown, not modal; None: none open)."""
        if self.ws is None:
            self.show_message("Open a workspace first: Dream's prompts are kept per workspace")
            return None
        from ..views.dream_prompts_dialog import DreamPromptsDialog
        dialog = DreamPromptsDialog(self.engine, self.ws, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        return dialog

    # -- opening ----------------------------------------------------------------------------
    def choose_workspace(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Open an assistant's home or workspace folder")
        if path:
            self.open_workspace(path)

    def open_demo(self) -> None:
        def opened(path: str) -> None:
            self.statusBar().clearMessage()          # ("Preparing…" is done)
            self.open_workspace(path)

        def failed(message: str, tb: str) -> None:
            said = f"The demo workspace could not be prepared: {message}"
            self.show_message(said)
            if self.ws is None:          # nothing else to show: the window says why, and what to do
                self.dashboard.show_notice(f"{said}\n\nOpen an assistant's folder with File → Open Workspace…",
                                           error=True)
        # a missing copy is built with git (about half a second): not on the GUI thread, behind
        # the shown window (on the first start, before anything else is open)
        self.show_message("Preparing the demo workspace…")
        if self.ws is None:
            self.dashboard.show_notice("Preparing the demo workspace…")
        self.ctx.prepare_demo(opened, failed)

    def open_workspace(self, path: str) -> bool:
        """Open a workspace (reads only: AppContext.open_workspace). On a bad path the current one
        stays open. With an unsaved edit the user chooses first; "Save" opens `path` only once
        the save landed."""
        if self._editing() and not self._ask_unsaved(lambda: self.open_workspace(path)):
            return False
        return self.ctx.open_workspace(path) is not None

    def open_agent(self, agent: str) -> bool:
        """Show another of the open home's agents (the same home reopened with it; remembered)."""
        ws = self.ws
        if ws is None or agent == ws.layout.agent:
            return False
        if self._editing() and not self._ask_unsaved(lambda: self.open_agent(agent)):
            return False
        return self.ctx.open_workspace(str(ws.home or ws.root), agent) is not None

    def _opened(self, ws: Workspace) -> None:
        window_menus.fill_recent(self)
        self.panel.set_workspace(ws)
        # the platform adds " — Dreamdesk" (the application's display name) itself
        self.setWindowTitle(str(ws.root))
        self.watch_note.hide()

    def _show_state(self, state: WorkspaceState) -> None:
        """A state read: the Dashboard, the panel's scope, the counters and the clock (the tab
        views are handed their part by the context)."""
        self.dashboard.set_state(state)
        self.panel.show_jobs(state.status.assistant)
        if state.changed.state:
            self.panel.show_scope(state.scope, state.ceiling, state.scope_error)
        self.status_label.show_state(state)
        self.clock_label.show_zone(state)

    # -- refreshing: the context routes every change record (gui/context/app_context.py) -------------------
    def refresh(self) -> None:
        """Read the whole workspace again (F5)."""
        self.ctx.refresh()

    def apply(self, changes) -> None:
        self.ctx.apply(changes)

    # click-through from what names a run, an entry, a commit or a history row to where it is shown
    def show_run(self, run_id: str) -> None:
        self._go("runs").select_run(run_id)

    def show_archive_entry(self, record_id: str) -> None:
        self._go("archive").select_id(record_id)

    def show_snapshot(self, sha: str) -> None:
        self._go("snapshots").show_snapshot(sha)

    def show_history_entry(self, cursor: int) -> None:
        self._go("history").select_cursor(cursor)

    def _go(self, name: str):
        view = self.views.get(name)
        self.tabs.setCurrentWidget(view)
        return view

    def _tab_changed(self, index: int) -> None:
        shown = self.tabs.widget(index)      # (TabViews built it first if it was a placeholder)
        self.ctx.view_shown(next((n for n, v in self._built_views(*TAB_NAMES) if v is shown), None))

    def show_message(self, text: str) -> None:
        """A line in the status bar, cut with "…" where the counters begin (the whole of it in the
        tooltip), never running under them."""
        bar = self.statusBar()
        room = max(80, min((w.x() for w in bar.findChildren(QLabel) if w.isVisible() and w.x() > 0),
                           default=bar.width()) - 24)
        shown = bar.fontMetrics().elidedText(text, Qt.TextElideMode.ElideRight, room)
        bar.setToolTip(text if shown != text else "")
        bar.showMessage(shown, 8000)

    def undo_last_restore(self) -> None:
        """Edit → Undo Last Restore (Ctrl+Alt+Z): whichever tab the restore was made in."""
        if self.tabs.currentWidget() is self.views.view("archive") and self.archive.undo_restore():
            return                              # the Archive's own last restore, every entry of it
        if self.ws is not None:
            if self.undo_asks is None:
                self.undo_asks = UndoAsks()
            undo_last_restore(self.engine, self.ws, self, self.undo_asks, self.show_message)

    def _settings_changed(self) -> None:
        self.ctx.settings_changed()     # a running schedule follows Dream's settings at once

    def show_watched_change(self) -> None:
        """The Archive, filtered to what the watch archived, the last change's entries selected."""
        e = self.ctx.last_change
        if e is None:
            return
        self.tabs.setCurrentWidget(self.archive)
        self.archive.show_reason("outside", e.ids)

    # -- drag and drop ----------------------------------------------------------------------
    def dragEnterEvent(self, event) -> None:  # noqa: N802
        urls = event.mimeData().urls()
        if urls and Path(urls[0].toLocalFile()).is_dir():
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:  # noqa: N802
        urls = event.mimeData().urls()
        if urls:
            self.open_workspace(urls[0].toLocalFile())

    # -- closing ----------------------------------------------------------------------------
    def unsaved_choice(self) -> str:
        """save | discard | cancel (tests replace this)."""
        return window_asks.unsaved_choice(self, self.files.loaded.path)

    def _ask_unsaved(self, then: Callable[[], object]) -> bool:
        """True: go on now (the edit is discarded). False: stop here; after "Save", `then` runs
        once the save has landed on disk. A save that hits a conflict or fails never runs
        it, so the window (and the edit in it) stays."""
        choice = self.unsaved_choice()
        if choice == "save":
            self.files.save(on_saved=then)
            return False
        return choice == "discard"

    def confirm_quit_while_busy(self, jobs: list[str]) -> bool:
        """Asked when the window closes while a job writes; tests replace it."""
        return window_asks.confirm_quit_while_busy(self, jobs)

    def unapplied_choice(self, count: int) -> str:
        """discard | cancel, for settings changed in the form but not applied (tests replace this)."""
        return window_asks.unapplied_choice(self, count)

    def closeEvent(self, event) -> None:  # noqa: N802
        if self.filled and not self._may_close():
            event.ignore()
            return
        self._save_settings()
        if self.filled:        # (closed before the engine loaded: nothing runs yet)
            errors.remove_rescuer(self._rescue_unsaved)
            QApplication.instance().removeEventFilter(self._typing_keys)
            self.watch_note.close_tray()
            self.ctx.close()
        event.accept()

    def _may_close(self) -> bool:
        """The person's say first: an unsaved edit, settings not applied, a job of theirs writing."""
        if self._editing() and not self._ask_unsaved(self.close):
            return False
        unapplied = self.settings.unapplied() if self.built("settings") else 0
        if unapplied and self.unapplied_choice(unapplied) != "discard":
            self.tabs.setCurrentWidget(self.settings)
            return False
        jobs = self.ctx.user_jobs()
        # (Yes: the context's close cancels the job and waits for it)
        return not jobs or self.confirm_quit_while_busy(jobs)

    def after_first_paint(self, fn: Callable[[], object]) -> None:
        """Run fn once the window has painted (the start opens the workspace then: the window
        shows before the engine loads), or after FIRST_PAINT_WAIT_MS if it does not paint."""
        self._after_paint = fn
        QTimer.singleShot(FIRST_PAINT_WAIT_MS, self._painted)

    def paintEvent(self, event) -> None:  # noqa: N802
        super().paintEvent(event)
        if self._after_paint is not None:
            QTimer.singleShot(0, self._painted)     # after this paint (and the children's) is done

    def _painted(self) -> None:
        fn, self._after_paint = self._after_paint, None
        if fn is not None:
            fn()

    def showEvent(self, event) -> None:  # noqa: N802
        super().showEvent(event)
        if not self._splitters_restored:
            # after the window has its real size: restored earlier, a splitter is squeezed by the
            # first layout pass and its panes come back at other widths
            self._splitters_restored = True
            for name, view in self._built_views(*window_layout.SPLITTERS):
                window_layout.restore(name, view)

    def _save_settings(self) -> None:
        window_layout.save_window(self, self._built_views(*window_layout.SPLITTERS))

    def _splitters(self):
        """Every remembered splitter (building the views that hold them)."""
        return [(name, getattr(self, name).splitter) for name in window_layout.SPLITTERS]

    def _rescue_unsaved(self) -> str | None:
        unsaved = self.files.rescue_text() if self.built("files") else None
        if not unsaved:
            return None
        path, text = unsaved
        out = errors.recovery_dir() / f"{Path(path).name}.{datetime.now():%Y%m%d-%H%M%S}.recovered.md"
        from dreamdesk.engine.disk.files import atomic_write_text
        atomic_write_text(out, text)
        return str(out)
