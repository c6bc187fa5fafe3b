"""The main window: tabs over the workspace, the engine panel, menus with shortcuts for every
action, QSettings for geometry and splitters, drag-and-drop of a folder, live refresh."""

from __future__ import annotations

import logging
from datetime import datetime
from functools import partial
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from . import settings_store
from .qt import (QAction, QApplication, QEvent, QFileDialog, QKeySequence, QLabel, QMainWindow, QMessageBox,
                 QMenu, QObject, QSystemTrayIcon, QTabWidget, QTimer, Qt, QtWidgets, QWidget, Slot)
from .later import LaterModule, later
from .tab_views import READS_ON, TAB_KEYS, TABS, LazyTab, TabViews, swap_tab
from .window_fit import first_geometry

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from dreamdesk.engine.disk.changes import Changes
    from dreamdesk.engine.jobs.scheduler import Scheduler
    from dreamdesk.engine.jobs.upkeep import Upkeep
    from dreamdesk.engine.home.workspace import Workspace
    from .watcher import WorkspaceWatcher
    from .worker import Engine
    from .workspace_state import StateReader, WorkspaceState

# The window's frame (menus, tab titles, status bar) paints before any of the engine or the views
# is imported: what follows is loaded by fill(), right after that paint (gui/later.py)
changes_mod, clock, problems_mod = LaterModule("dreamdesk.engine.disk.changes"), LaterModule("dreamdesk.engine.core.clock"), LaterModule("dreamdesk.engine.core.problems")
workspace_mod, errors = LaterModule("dreamdesk.engine.home.workspace"), LaterModule("dreamdesk.gui.errors")
watch_mod = LaterModule("dreamdesk.engine.recovery.watch")
Scheduler = later("dreamdesk.engine.jobs.scheduler", "Scheduler")                  # noqa: F811
upkeep_mod = LaterModule("dreamdesk.engine.jobs.upkeep")
StateReader = later("dreamdesk.gui.workspace_state", "StateReader")           # noqa: F811
state_reads = later("dreamdesk.gui.workspace_state", "state_reads")
WorkspaceWatcher = later("dreamdesk.gui.watcher", "WorkspaceWatcher")         # noqa: F811
Coalesced = later("dreamdesk.gui.worker", "Coalesced")
workspace_state_dir = later("dreamdesk.engine.core.state", "workspace_state_dir")
report_error = later("dreamdesk.gui.errors", "report_error")
undo_last_restore = later("dreamdesk.gui.operations.undo_restore", "undo_last_restore")
UndoAsks = later("dreamdesk.gui.operations.undo_restore", "UndoAsks")

SCHEDULE_JOB = "schedule: "   # the scheduler's jobs on the writer thread
WATCH_JOB = "watch: "         # the watch's jobs on the writer thread
TAB_NAMES = tuple(t[0] for t in TABS)
FIRST_PAINT_WAIT_MS = 500    # after_first_paint's fallback, for a window that does not paint (started minimised)
SCHEDULER_TICK_MS = 1000     # how often a window that schedules Dream or watches drives its upkeep loop


class TypingKeys(QObject):
    """While a text field or the editor has the focus, its own keys win over window actions:
    Ctrl+K deletes to the end of the line there, Ctrl+D/Ctrl+R must not start a Dream mid-edit,
    and Esc in a search field must not cancel a running job."""

    KEYS = frozenset({"Ctrl+K", "Ctrl+D", "Ctrl+R", "Esc"})

    def eventFilter(self, obj, event) -> bool:  # noqa: N802
        if event.type() == QEvent.Type.ShortcutOverride and isinstance(
                obj, (QtWidgets.QLineEdit, QtWidgets.QPlainTextEdit, QtWidgets.QTextEdit, QtWidgets.QAbstractSpinBox)):
            read_only = getattr(obj, "isReadOnly", lambda: False)()
            if not read_only and QKeySequence(event.keyCombination()).toString() in self.KEYS:
                event.accept()
                return True
        return False


class MainWindow(QMainWindow):
    # the tab views, built when first shown or used (gui/tab_views.py); built(name) says which are
    history, files, settings, snapshots = LazyTab(), LazyTab(), LazyTab(), LazyTab()
    archive, runs, lint, prompt, charts = LazyTab(), LazyTab(), LazyTab(), LazyTab(), LazyTab()

    def __init__(self, engine: Engine | None = None, *, frame_only: bool = False):
        """The whole window; with frame_only, only its frame (what the start paints first, before
        the engine is imported): fill() then builds the rest."""
        super().__init__()
        self.setObjectName("DreamdeskMainWindow")
        self.ws: Workspace | None = None
        self.state: WorkspaceState | None = None
        self.watcher: WorkspaceWatcher | None = None
        self.scheduler: Scheduler | None = None
        self.upkeep: Upkeep | None = None        # what comes due by itself: scheduled Dreams, the watch
        self.reader: StateReader | None = None
        self.filled = False
        self.undo_asks = None                   # an undo's questions (UndoAsks when first asked; tests set theirs)
        self._unshown: set[str] = set()         # built tab views whose data changed while hidden
        self._splitters_restored = False     # (showEvent restores them; a view built later, when built)
        self._after_paint: Callable[[], object] | None = None
        self.setAcceptDrops(True)
        # the first start fits the screen it opens on; a saved geometry replaces this (_restore_settings)
        self.setGeometry(first_geometry(self.screen().availableGeometry()))
        self._build_frame()
        self._restore_settings()
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
        self.status_label = QLabel()
        self.status_label.setContentsMargins(16, 0, 0, 0)   # a gap after a message, before the counters
        self.statusBar().addPermanentWidget(self.status_label)
        # every view shows times on this one clock; it is named once, here (its zone: by fill)
        self.clock_label = QLabel()
        self.clock_label.setObjectName("clock")
        self.statusBar().addPermanentWidget(self.clock_label)
        self._build_menus()
        # until fill(): a click or a key must not reach a view or the panel that is not there yet
        self.tabs.setEnabled(False)
        self.menuBar().setEnabled(False)
        for action in self.actions():
            action.setEnabled(False)

    def fill(self, engine: Engine | None = None) -> None:
        """Everything but the frame: the engine's worker lanes, the Dashboard and the Engine panel
        in their places, the timers and the signals. Imports the engine (~0.1 s)."""
        if self.filled:
            return
        from .views.dashboard import Dashboard
        from .views.engine_panel import EnginePanel
        from .worker import Engine
        self.engine = engine or Engine(self)
        self.views.engine = self.engine
        self._reads = Coalesced()
        self.dashboard = Dashboard()
        swap_tab(self.tabs, self.opening, self.dashboard)
        self.panel = EnginePanel(self.engine)
        self.engine_dock.widget().deleteLater()
        self.engine_dock.setWidget(self.panel)
        self.clock_label.setText(clock.zone_label())
        # the watch's last word ("The assistant's Dream removed 3 entries from USER.md"): a link to it
        self.watch_note = QLabel()
        self.watch_note.setObjectName("watchNote")
        self.watch_note.setTextFormat(Qt.TextFormat.RichText)
        self.watch_note.linkActivated.connect(lambda _l: self.show_watched_change())
        self.watch_note.hide()
        self.statusBar().addPermanentWidget(self.watch_note)
        self._last_change: watch_mod.WatchEvent | None = None
        self._tray: QSystemTrayIcon | None = None
        self.panel.status.connect(self.show_message)
        self.dashboard.reapplyRequested.connect(self._reapply_settings)
        self.dashboard.forgetRequested.connect(self._forget_lost_settings)
        for box in (self.dashboard.pin_alerts, self.dashboard.pin_list):
            box.restoreRequested.connect(self.restore_pin)
            box.unpinRequested.connect(self.unpin)
        self.dashboard.restoreSinceRequested.connect(self._restore_since)
        self.dashboard.gotItRequested.connect(self._got_it)
        self.panel.finished.connect(self._job_finished)
        self.engine.wrote.connect(self._on_written)
        self.engine.routed = True
        self.engine.notice.connect(self.show_message)     # expected failures no view handles

        self._tick = QTimer(self)            # drives the upkeep loop while it has anything to do
        self._tick.setInterval(SCHEDULER_TICK_MS)
        self._tick.timeout.connect(self._upkeep_tick)
        self.tabs.currentChanged.connect(self._tab_changed)
        errors.add_rescuer(self._rescue_unsaved)
        self._typing_keys = TypingKeys(self)
        QApplication.instance().installEventFilter(self._typing_keys)
        self.tabs.setEnabled(True)
        self.menuBar().setEnabled(True)
        for action in self.actions():
            action.setEnabled(True)
        self.filled = True

    # -- the tab views, built when first shown -------------------------------------------------
    def built(self, name: str) -> bool:
        """Whether the tab view `name` ("history", "archive", …) exists yet: code that only
        updates a view skips it until then (it is handed the latest state when built)."""
        return self.views.built(name)

    def _wire_view(self, name: str, view) -> None:
        """A view just built: its signals connected, the open workspace and the last state
        handed over, its splitter put back as the user left it."""
        if hasattr(view, "status"):
            view.status.connect(self.show_message)
        getattr(self, f"_wire_{name}", lambda _v: None)(view)
        if self.ws is not None:
            self._hand_workspace(name, view, self.ws)
        if self.state is not None and self.ws is not None:
            self._hand_state(name, view, self.state, self.ws)
        if self._splitters_restored and hasattr(view, "splitter"):
            self._restore_splitter(name, view.splitter)

    def _wire_history(self, view) -> None:
        view.entryActivated.connect(lambda c: self.show_message(f"History entry {c}"))

    # (what a view's own jobs write comes back as their change record: no refresh is wired here)
    def _wire_files(self, view) -> None:
        view.historyCursorRequested.connect(self.show_history_entry)
        view.unsavedChanged.connect(self.save_action.setEnabled)     # Save only when there is something to save

    def _wire_settings(self, view) -> None:
        view.changed.connect(self._settings_changed)
        view.scheduleToggled.connect(self._schedule_toggled)
        view.watchToggled.connect(lambda on: self._watch_toggled(on, by_user=True))
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

    @staticmethod
    def _hand_workspace(name: str, view, ws: Workspace) -> None:
        """What open_workspace gives a view: the views that read for themselves get the workspace."""
        if name in ("archive", "runs", "snapshots", "lint"):
            view.set_workspace(ws)

    def _hand_state(self, name: str, view, state: WorkspaceState, ws: Workspace,
                    changed: Changes | None = None) -> None:
        """What a read gives a view: only what `changed` touches of what it shows (a view just
        built, with no `changed`, gets everything)."""
        changed = changes_mod.EVERYTHING if changed is None else changed
        st = state.status
        if name == "history" and (changed.history or changed.cursors or changed.config):
            view.set_data(st.history, st.cursor, st.dream_cursor, state.in_prompt, state.home_zone)
        elif name == "files":
            if changed.touches_files() or changed.runs:
                view.set_workspace(ws, [f.path for f in st.files], {f.path: f.budget for f in st.files},
                                   state.provenance)
            if changed.touches_files() or changed.state:
                view.set_pins(state.pins)
        elif name == "settings" and (changed.touches_files() or changed.runs or changed.state):
            view.set_state(ws, state)            # config, sizes, recent writes, the per-workspace boxes
        elif name == "prompt" and (changed.touches_files() or changed.history or changed.cursors):
            view.set_preview(state.prompt)

    def _built_views(self, *names: str):
        """(name, view) for those of `names` that are built."""
        return [(n, v) for n in names if (v := self.views.view(n)) is not None]

    def _editing(self) -> bool:
        """An unsaved edit in the Files tab (never one when the tab was never built)."""
        return self.built("files") and self.files.dirty

    # -- menus ------------------------------------------------------------------------------
    def _action(self, menu, text: str, slot, shortcut=None, tip: str = "") -> QAction:
        a = QAction(text, self)
        if shortcut:
            a.setShortcut(QKeySequence(shortcut))
        if tip:
            a.setStatusTip(tip)
        a.triggered.connect(slot)
        menu.addAction(a)
        self.addAction(a)
        return a

    def _build_menus(self) -> None:
        mb = self.menuBar()
        # the window holds its menus: a wrapper asked of QAction.menu() later can be a stale one whose
        # address a deleted C++ menu (a context menu) had, and then reads as "already deleted"
        self.menus: dict[str, QMenu] = {}
        f = self.menus["file"] = mb.addMenu("&File")
        self._action(f, "&Open Workspace…", self.choose_workspace, QKeySequence.StandardKey.Open,
                     "Open an assistant's home or workspace folder")
        self.recent_menu = f.addMenu("Open &Recent")
        self._action(f, "Open the &Demo Workspace", self.open_demo, None, "Open Dreamdesk's private demo copy")
        f.addSeparator()
        self.save_action = self._action(f, "&Save", lambda: self.built("files") and self.files.save(),
                                        QKeySequence.StandardKey.Save,
                                        "Save the file being edited")
        self.save_action.setEnabled(False)
        self._action(f, "&Reload", self.refresh, "F5", "Read the workspace again")
        f.addSeparator()
        # the platform's Quit key when a keyboard types it, else Ctrl+Q (PySide6 6.10's generic
        # theme binds Quit to Exit, a remote-control key with no modifier)
        quit_keys = [k for k in QKeySequence.keyBindings(QKeySequence.StandardKey.Quit)
                     if k[0].keyboardModifiers() != Qt.KeyboardModifier.NoModifier] or [QKeySequence("Ctrl+Q")]
        self._action(f, "&Quit", self.close, quit_keys[0])
        e = self.menus["edit"] = mb.addMenu("&Edit")
        self.act_undo_restore = self._action(e, "&Undo Last Restore", self.undo_last_restore, "Ctrl+Alt+Z",
                                             "Put back the files the last restore wrote (from any tab; asks first)")
        d = self.menus["dream"] = mb.addMenu("&Dream")
        self.act_dream = self._action(d, "&Dream Now", lambda: self.panel.run_dream(), "Ctrl+D")
        self.act_dry = self._action(d, "Dr&y Run…", lambda: self.panel.run_dream(dry_run=True), "Ctrl+Shift+D")
        self.act_review = self._action(d, "&Review Now", lambda: self.panel.run_dream(review=True), "Ctrl+R")
        self.act_compact = self._action(d, "&Compact Now", lambda: self.panel.run_compact(), "Ctrl+K")
        self.act_cancel = self._action(d, "C&ancel", lambda: self.panel.cancel(), "Esc")
        d.addSeparator()
        self._action(d, "Edit Dream &Prompts…", self.edit_dream_prompts, None,
                     "What Dreamdesk's Dream tells each pass in this workspace")
        v = self.menus["view"] = mb.addMenu("&View")
        for i, name in enumerate(("Dashboard", *(title for _n, title, *_ in TABS))):   # the tabs' own titles
            self._action(v, name, lambda _=False, i=i: self.tabs.setCurrentIndex(i),
                         TAB_KEYS[i] if i < len(TAB_KEYS) else None)
        self._action(v, "Engine Panel", lambda: self.engine_dock.setVisible(not self.engine_dock.isVisible()),
                     "Ctrl+E")
        h = self.menus["help"] = mb.addMenu("&Help")
        self._action(h, "&Keyboard Shortcuts", lambda: self.shortcuts_dialog().open(), "Ctrl+/",
                     "Every key of this window")
        h.addSeparator()
        # F1 is a desktop's Help key: the About dialog is Dreamdesk's help (versions, places, the keys)
        self._action(h, "&About Dreamdesk", lambda: self.about_dialog().open(), "F1")
        self._fill_recent()

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        for path in settings_store.recent_workspaces():
            a = self.recent_menu.addAction(path)
            a.triggered.connect(lambda _=False, p=path: self.open_workspace(p))
        self.recent_menu.setEnabled(bool(self.recent_menu.actions()))

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
        from .views.dream_prompts_dialog import DreamPromptsDialog
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
        from dreamdesk.engine.desktop.demo_copy import build_demo_copy

        def done(dest: Path) -> None:
            settings_store.set_demo_home(str(dest))
            self.statusBar().clearMessage()          # ("Preparing…" is done)
            self.open_workspace(str(dest))

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
        self.engine.write("prepare the demo", lambda ctx: build_demo_copy(), done, failed)

    def open_workspace(self, path: str) -> bool:
        """Open a workspace (reads only). On a bad path the current one stays open. With an
        unsaved edit the user chooses first; "Save" opens `path` only once the save landed."""
        if self._editing() and not self._ask_unsaved(lambda: self.open_workspace(path)):
            return False
        try:
            ws = workspace_mod.Workspace.open(path)
        except problems_mod.WorkspaceError as exc:
            log.info("cannot open %s: %s", path, exc)
            report_error("Cannot open this folder", str(exc))
            return False
        log.info("workspace opened: %s (home %s)", ws.root, ws.home)
        if self.watcher:
            self.watcher.stop()
        if self.ws is None or ws.root != self.ws.root:
            # what was typed to search one workspace would hide the next one's rows ("0 of 40 match")
            for _name, view in self._built_views("archive", "history"):
                view.clear_filters()
        self.ws = ws
        self.state = None
        self.scheduler = Scheduler(ws)
        self.upkeep = upkeep_mod.Upkeep(ws, self.scheduler, lambda: datetime.now().astimezone())
        cfg = ws.config_create_path
        # the home's config.json lies outside the workspace: watched too, so a setting the
        # assistant's own save dropped shows on the Dashboard at once
        outside = {cfg: "config.json"} if cfg.parent != ws.root else {}
        self.watcher = WorkspaceWatcher(ws.root, self, outside=outside)
        self.watcher.changed.connect(self._on_files_changed)
        self.watcher.failed.connect(lambda msg: self.show_message(
            f"Live updates are off for this workspace ({msg}); F5 reads it again"))
        self.watcher.start()
        settings_store.add_recent(str(ws.home or ws.root))
        self._fill_recent()
        self.reader = StateReader(ws, self.scheduler)
        self._reads = Coalesced()
        self._read_state(changes_mod.EVERYTHING)                # the dashboard's read goes first on the reader lane
        self.panel.set_workspace(ws)
        for name, _view in self._built_views("archive", "runs", "snapshots"):   # (charts: after the first read)
            self._view_changed(name)                  # read now if shown, else when next shown
        # the platform adds " — Dreamdesk" (the application's display name) itself
        self.setWindowTitle(str(ws.root))
        self._tick.stop()                    # (a start still under way for the last workspace is stale)
        if settings_store.schedules(str(ws.root)):
            self._schedule_toggled(True)
        self.watch_note.hide()
        self._watch_toggled(settings_store.watches(str(ws.root)), by_user=False)
        # the first time: these versions are the ones looked at (Dreamdesk's own state only)
        self.engine.write(f"{WATCH_JOB}remember", lambda ctx: watch_mod.remember_looked(ws), lambda _r: None)
        return True

    # -- refreshing -------------------------------------------------------------------------
    # Every change arrives as one record (engine/disk/changes.py): a job's writes, the watcher's
    # paths, F5's "everything". The state read takes only the parts it names; each tab view
    # reads again only when the record touches what it shows, and a hidden tab when next shown.
    @Slot()
    def refresh(self) -> None:
        """Read the whole workspace again (F5, and after a job that may have written anywhere)."""
        self.apply(changes_mod.EVERYTHING)

    def apply(self, changes: Changes) -> None:
        if self.ws is None or not changes:
            return
        if state_reads(changes):
            self._read_state(changes)
        elif changes.snapshots:
            self._view_changed("charts")        # (else the state read's end hands it on)
        for name, parts in READS_ON.items():        # what each view declared it reads again on
            if changes.any_of(parts):
                self._view_changed(name)

    def _read_state(self, changes: Changes) -> None:
        """Requests merge while a read waits its turn: the read takes them all when it starts, and
        one that finds nothing left (an earlier one took it) returns at once without reading. A
        job's change record asks once the job's callback has run too (both come in one slot), so
        what that callback asks (the schedule's line after a run) joins the same read."""
        if not self._reads.add(changes):
            return
        self.status_label.setText("Reading…")
        ask = partial(self._ask_read, self.ws, self.reader, self._reads)
        if self.engine.finishing:
            QTimer.singleShot(0, ask)
        else:
            ask()

    def _ask_read(self, ws: Workspace, reader: StateReader, reads) -> None:
        if ws is not self.ws:
            return                          # another workspace was opened meanwhile
        own = self.panel.running

        def job(ctx):
            asked = reads.take()
            return None if asked is None else reader.read(asked, own)

        self.engine.read("read workspace", job, lambda st: self._apply_state(st, ws), first=True)

    def _apply_state(self, state: WorkspaceState | None, ws: Workspace) -> None:
        if state is None or ws is not self.ws:
            return   # superseded, or another workspace was opened meanwhile
        self.state = state
        st, changed = state.status, state.changed
        self.dashboard.set_state(state)
        if changed.state:
            self.panel.show_scope(state.scope, state.ceiling, state.scope_error)
        for name, view in self._built_views("history", "files", "settings", "prompt"):   # the others: when built
            self._hand_state(name, view, state, ws, changed)
        if changed.touches_files() or changed.snapshots:
            self._view_changed("charts")
        # the same count as the dashboard's Problems box
        self.status_label.setText(f"{st.pending} pending · {len(st.problems)} problem(s) · "
                                  f"read {clock.show(state.read_at, seconds=True)[11:]}")
        # its room grows with its text even while a message is shown (else "25 pendin")
        self.status_label.setMinimumWidth(self.status_label.sizeHint().width())
        self.clock_label.setText(clock.zone_label())
        self.clock_label.setToolTip(
            "Every time Dreamdesk shows is on this clock. history.jsonl is "
            + (f"stamped in {state.home_zone} (agents.defaults.timezone in config.json)."
               if state.home_zone is not None else "taken as stamped on this machine (config.json names no timezone)."))

    def _view_changed(self, name: str) -> None:
        """A tab view whose data changed: read again now if shown, else when next shown (one
        not built yet reads for itself when it is)."""
        view = self.views.view(name)
        if view is None:
            return
        if self.tabs.currentWidget() is view:
            self._unshown.discard(name)
            self._load(name, view)
        else:
            self._unshown.add(name)

    def _load(self, name: str, view) -> None:
        ws = self.ws
        if ws is None:
            return
        if name == "charts":
            if self.state is None:
                return                      # its budgets come with the first read, which loads it
            view.set_workspace(ws, {f.path: f.budget for f in self.state.status.files})
        elif view.ws is not ws:
            view.set_workspace(ws)
        else:
            view.refresh()

    @Slot(object)
    def _on_written(self, paths: frozenset) -> None:
        """A job's change record: the paths it wrote, as the parts of the workspace they are (the
        watcher leaves their echoes out: this record stands for them)."""
        ws = self.ws
        if ws is not None:
            self.apply(changes_mod.relative_changes(paths, ws.root, ws.config_path, workspace_state_dir(ws.root)))
            self._files_touched(changes_mod.inside(paths, ws.root))

    @Slot(object)
    def _on_files_changed(self, paths: set[str]) -> None:
        """Another writer's changes, from the watcher."""
        if self.upkeep is not None and self.upkeep.outside_change(paths):
            self._upkeep_tick()                 # the watch archives what the other writer removed
        self.apply(changes_mod.from_paths(paths))
        self._files_touched(paths)

    def _files_touched(self, paths: set[str]) -> None:
        """What any write (ours or another's) tells beyond the record: activity for the
        scheduler, and the editor's check of the file it shows."""
        if self.upkeep is not None:
            self.upkeep.files_touched(paths)    # a history append restarts an activity idle wait
        for _name, files in self._built_views("files"):
            files.files_changed(paths)

    def show_run(self, run_id: str) -> None:
        self.tabs.setCurrentWidget(self.runs)
        self.runs.select_run(run_id)

    def show_archive_entry(self, record_id: str) -> None:
        self.tabs.setCurrentWidget(self.archive)
        self.archive.select_id(record_id)

    def show_snapshot(self, sha: str) -> None:
        """Click-through from a commit named elsewhere (the Archive's or a run's detail) to that snapshot."""
        self.tabs.setCurrentWidget(self.snapshots)
        self.snapshots.show_snapshot(sha)

    def show_history_entry(self, cursor: int) -> None:
        """Click-through from provenance (blame, run details) to the history row."""
        self.tabs.setCurrentWidget(self.history)
        self.history.select_cursor(cursor)

    def _tab_changed(self, index: int) -> None:
        shown = self.tabs.widget(index)      # (TabViews built it first if it was a placeholder)
        name = next((n for n, v in self._built_views(*TAB_NAMES) if v is shown), None)
        if name in ("runs", "charts"):
            # runs: the assistant may have committed since (no file event for that); charts: its
            # data is handed in, never read by itself
            self._unshown.add(name)
        if name in self._unshown:
            self._unshown.discard(name)
            self._load(name, shown)

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

    def _job_finished(self, what: str) -> None:
        if self.scheduler and self.scheduler.running is not None:
            # the scheduled run ended: its error (if any) is kept for "why not dreaming"
            outcome = self.panel.last_outcome
            error = outcome if what == "failed" or self.panel.last_status == "failed" else None
            self._schedule_job("run finished", lambda s: s.finished(datetime.now().astimezone(), outcome, error))
        # what it wrote came as its change record; the schedule's line changes even when it wrote nothing
        self.apply(changes_mod.Changes(schedule=True))

    def _reapply_settings(self) -> None:
        """The Dashboard's Re-apply: write back what config.json lost, only because it was asked."""
        ws = self.ws
        if ws is None:
            return
        from .operations.run import Initiator
        from .operations.settings import reapply
        self.dashboard.show_lost_error("")

        def failed(message: str) -> None:
            self.dashboard.show_lost_error(f"Not re-applied: {message}")
            self.apply(changes_mod.Changes(config=True))

        reapply(Initiator(self.engine, "dashboard", self.show_message), ws, done=lambda _r: self._settings_changed(),
                failed=failed)

    def _forget_lost_settings(self) -> None:
        ws = self.ws
        if ws is None:
            return
        from .operations.run import Initiator
        from .operations.settings import forget
        self.dashboard.show_lost_error("")
        lost = [x.path for x in (self.state.status.lost_settings if self.state else [])]
        forget(Initiator(self.engine, "dashboard", self.show_message), ws, lost,
               failed=lambda message: self.dashboard.show_lost_error(f"Not forgotten: {message}"))

    def restore_pin(self, pin_id: str) -> None:
        """The pin alert's Restore: the one way a pinned entry comes back (never on its own)."""
        from .operations.pin import restore_pinned
        self._pin_job("restore pinned entry", lambda by, ws, **on: restore_pinned(by, ws, pin_id, **on))

    def unpin(self, pin_id: str) -> None:
        from .operations.pin import unpin_id
        self._pin_job("unpin", lambda by, ws, **on: unpin_id(by, ws, pin_id, **on))

    def _pin_job(self, what: str, start) -> None:
        """`start(by, ws, **on)`: the pin operation, from gui/operations/pin.py."""
        ws = self.ws
        if ws is None:
            return
        from .operations.run import Initiator
        boxes = (self.dashboard.pin_alerts, self.dashboard.pin_list)
        for box in boxes:
            box.show_error("")
            box.set_busy(True)

        def failed(message: str) -> None:
            self.dashboard.pin_alerts.show_error(f"Not done ({what}): {message}")
            self.dashboard.pin_alerts.show()
            self.apply(changes_mod.Changes(state=True))
        # (the boxes' busy state ends with the next read)
        start(Initiator(self.engine, "dashboard", self.show_message), ws,
              done=lambda _r: self.apply(changes_mod.Changes(state=True)), failed=failed)

    def _settings_changed(self) -> None:
        # turning Dream on or off, or a new interval, applies at once to a running schedule
        if self.upkeep is not None and self.upkeep.scheduling:
            self._schedule_job("settings changed", lambda s: s.settings_changed(datetime.now().astimezone()))
        else:
            self.apply(changes_mod.Changes(config=True, schedule=True))

    # -- scheduling (opt-in per workspace) --------------------------------------------------
    # The scheduler reads history and writes memory/dreams/schedule.json: never on the GUI
    # thread. What writes goes to the writer thread; the once-a-second tick (which only reads)
    # to the reader thread, one at a time.
    def _schedule_job(self, what: str, fn: Callable[[Scheduler], object],
                      done: Callable[[object], None] | None = None) -> None:
        sched = self.scheduler
        if sched is None:
            return

        def finished(result) -> None:
            if sched is self.scheduler:
                if done:
                    done(result)
                self.apply(changes_mod.Changes(schedule=True))   # the status line says what the scheduler now knows

        self.engine.write(f"{SCHEDULE_JOB}{what}", lambda ctx: fn(sched), finished,
                          lambda msg, tb: self.show_message(f"Scheduling: {msg}"))

    def _schedule_toggled(self, on: bool) -> None:
        upkeep = self.upkeep
        if upkeep is None:
            return
        if on:
            # on once the deadline is written, unless scheduling was turned off (or on and off
            # again) while the writer was busy
            token = upkeep.schedule_on()
            self._schedule_job("start", lambda s: s.start(datetime.now().astimezone()),
                               lambda _r: upkeep.schedule_started(token) and self._keep_ticking())
        else:
            upkeep.schedule_off()
            self._keep_ticking()
            self.apply(changes_mod.Changes(schedule=True))

    # -- the watch (opt-in per workspace) ------------------------------------------------------
    # observe() writes the archive: on the writer thread, never here. It compares content
    # hashes with the versions last seen, so an event for a read or a touch archives nothing.
    def _watch_toggled(self, on: bool, by_user: bool) -> None:
        ws, upkeep = self.ws, self.upkeep
        if ws is None or upkeep is None:
            return
        if on:
            upkeep.watch_on()
            self._upkeep_tick()                          # remembers the files, or catches up
        else:
            upkeep.watch_off()
            if by_user:
                from .operations.run import Initiator
                from .operations.watch import watch_off
                watch_off(Initiator(self.engine, "settings", self.show_message), ws)
        self._keep_ticking()

    @property
    def _watching(self) -> bool:
        return self.upkeep is not None and self.upkeep.watching

    # -- the upkeep loop (engine/jobs/upkeep.py decides what is due; here it runs on the lanes) ------
    def _keep_ticking(self) -> None:
        if self.upkeep is not None and self.upkeep.active:
            if not self._tick.isActive():
                self._tick.start()
        else:
            self._tick.stop()

    def _upkeep_tick(self) -> None:
        """The scheduler's tick only reads: on the reader lane; the watch's jobs write the archive:
        on the writer lane. Never on the GUI thread."""
        upkeep, ws = self.upkeep, self.ws
        if upkeep is None:
            return
        for kind in upkeep.due(busy=self.panel.running):
            scheduling = kind == upkeep_mod.SCHEDULE
            lane = self.engine.read if scheduling else self.engine.write
            lane("scheduler tick" if scheduling else f"{WATCH_JOB}{kind}", lambda ctx, k=kind: upkeep.run(k),
                 partial(self._upkeep_done, upkeep, ws, kind), partial(self._upkeep_failed, upkeep, kind))

    def _upkeep_done(self, upkeep: Upkeep, ws: Workspace, kind: str, result) -> None:
        upkeep.done(kind)
        if upkeep is not self.upkeep:
            return
        if kind != upkeep_mod.SCHEDULE:
            self._watch_report(ws, result)
            if upkeep.outside_change(set()):
                self._upkeep_tick()         # a change came while it looked
            return
        verdict = upkeep.verdict(result, busy=self.panel.running)
        if verdict == upkeep_mod.START:
            self.show_message(f"Scheduled dream starting ({result})")
            self.panel.run_dream(trigger=result)
        elif verdict is not None:
            self._schedule_job("requeue", lambda s: upkeep.decline(result, verdict))

    def _upkeep_failed(self, upkeep: Upkeep, kind: str, msg: str, tb: str) -> None:
        upkeep.done(kind)
        if upkeep is self.upkeep and kind != upkeep_mod.COMMITS:
            self.show_message(f"{'Scheduling' if kind == upkeep_mod.SCHEDULE else 'Watch'}: {msg}")

    def _watch_report(self, ws: Workspace, events: list) -> None:
        if ws is not self.ws or not events:
            return
        for e in events:
            if e.later and not e.by_dream:
                continue             # a commit found later only matters when it names the Dream
            self._last_change = e
            self.watch_note.setText(f"<a href='change'>{escape(e.message)}</a>")
            self.watch_note.setToolTip("Archived with reason “outside”; click to see the entries")
            self.watch_note.show()
            self._notify(e.message)

    def _notify(self, text: str) -> None:
        """A desktop notification where there is a tray; the status bar line says it anyway."""
        if not QSystemTrayIcon.isSystemTrayAvailable():
            return
        if self._tray is None:
            self._tray = QSystemTrayIcon(self.windowIcon(), self)
            self._tray.messageClicked.connect(self.show_watched_change)
            self._tray.show()
        self._tray.showMessage("Dreamdesk", text)

    def show_watched_change(self) -> None:
        """The Archive, filtered to what the watch archived, the last change's entries selected."""
        e = self._last_change
        if e is None:
            return
        self.tabs.setCurrentWidget(self.archive)
        self.archive.show_reason("outside", e.ids)

    def _restore_since(self, file: str, removal) -> None:
        ws = self.ws
        if ws is None:
            return
        from .operations.archive_restore import restore_removed
        from .operations.run import Initiator
        restore_removed(Initiator(self.engine, "dashboard", self.show_message), ws, file, removal)

    def _got_it(self) -> None:
        ws, shown = self.ws, self.state.since if self.state else None
        if ws is None or shown is None:
            return
        from .operations.run import Initiator
        from .operations.watch import got_it
        got_it(Initiator(self.engine, "dashboard", self.show_message), ws, shown)   # its change record reads the box again

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
        answer = QMessageBox.question(
            self, "Unsaved edit", f"Save your edit of {self.files.loaded.path} first?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel)
        return {QMessageBox.StandardButton.Save: "save",
                QMessageBox.StandardButton.Discard: "discard"}.get(answer, "cancel")

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
        """Asked when the window closes while a job writes; tests replace it. No is the default."""
        answer = QMessageBox.question(
            self, "A job is still running",
            f"{', '.join(jobs)} is still running. Quit anyway? It is cancelled: Dream holds its cursor, "
            "and nothing half-written is left behind.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, QMessageBox.StandardButton.No)
        return answer == QMessageBox.StandardButton.Yes

    def unapplied_choice(self, count: int) -> str:
        """discard | cancel, for settings changed in the form but not applied (tests replace this).
        Cancel is the default: the person goes back to Apply them."""
        box = QMessageBox(QMessageBox.Icon.Question, "Settings not applied",
                          f"{count} setting change(s) in Settings → Memory are not applied to config.json. "
                          "Quit and drop them?", QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
                          self)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        return "discard" if box.exec() == QMessageBox.StandardButton.Discard else "cancel"

    def closeEvent(self, event) -> None:  # noqa: N802
        if not self.filled:        # closed before the engine loaded: nothing runs yet
            self._save_settings()
            event.accept()
            return
        if self._editing() and not self._ask_unsaved(self.close):
            event.ignore()
            return
        unapplied = len(self.settings.changes()) if self.built("settings") else 0
        if unapplied and self.unapplied_choice(unapplied) != "discard":
            self.tabs.setCurrentWidget(self.settings)
            event.ignore()
            return
        # the watch's own short bookkeeping jobs finish on their own: only the user's jobs are asked about
        jobs = sorted({j.name for j in self.engine.running_writes.values() if not j.name.startswith(WATCH_JOB)})
        if jobs and not self.confirm_quit_while_busy(jobs):
            event.ignore()
            return                   # (Yes: the shutdown below cancels the job and waits for it)
        self._save_settings()
        errors.remove_rescuer(self._rescue_unsaved)
        QApplication.instance().removeEventFilter(self._typing_keys)
        self._tick.stop()
        if self._tray is not None:
            self._tray.hide()
        if self.watcher:
            self.watcher.stop()
        self.engine.shutdown()
        event.accept()

    def _restore_settings(self) -> None:
        s = settings_store.settings()
        geo = s.value("window/geometry")
        if geo is not None:
            self.restoreGeometry(geo)
        st = s.value("window/state")
        if st is not None:
            self.restoreState(st)
        self._splitters_restored = False

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
            for name, splitter in self._built_splitters():
                self._restore_splitter(name, splitter)

    def _restore_splitter(self, name: str, splitter) -> None:
        v = settings_store.settings().value(f"splitters/{name}")
        # an earlier version saved splitters never laid out: those are not restored
        if v is None or not _laid_out(_saved_sizes(v)):
            return
        fit = getattr(getattr(self, name), "rows", None)
        if splitter.restoreState(v) and fit is not None:
            fit.keep()                      # the user's sizes win over fitting the table to its rows

    def _save_settings(self) -> None:
        s = settings_store.settings()
        s.setValue("window/geometry", self.saveGeometry())
        s.setValue("window/state", self.saveState())
        for name, splitter in self._built_splitters():
            # a tab never built keeps its saved value; a tab built but never shown has a splitter
            # never laid out (its state holds -1 sizes, which squeeze the panes at the next
            # start): the last real one is kept
            if _laid_out(_saved_sizes(state := splitter.saveState())):
                s.setValue(f"splitters/{name}", state)

    SPLITTERS = ("files", "history", "prompt", "snapshots", "archive", "runs", "lint")

    def _splitters(self):
        """Every remembered splitter (building the views that hold them)."""
        return [(name, getattr(self, name).splitter) for name in self.SPLITTERS]

    def _built_splitters(self):
        return [(name, view.splitter) for name, view in self._built_views(*self.SPLITTERS)]

    def _rescue_unsaved(self) -> str | None:
        unsaved = self.files.rescue_text() if self.built("files") else None
        if not unsaved:
            return None
        path, text = unsaved
        out = errors.recovery_dir() / f"{Path(path).name}.{datetime.now():%Y%m%d-%H%M%S}.recovered.md"
        from dreamdesk.engine.disk.files import atomic_write_text
        atomic_write_text(out, text)
        return str(out)


def _laid_out(sizes: list[int]) -> bool:
    """Splitter sizes a person could have chosen (the panes never collapse to nothing)."""
    return bool(sizes) and all(size > 0 for size in sizes)


def _saved_sizes(state) -> list[int]:
    """The pane sizes a saved QSplitter state holds: Qt writes a 0xff marker, a version, then the
    sizes as a count and big-endian int32s; a splitter saved before it was laid out holds -1s."""
    import struct
    data = bytes(state) if state is not None else b""
    try:
        marker, _version, count = struct.unpack_from(">iii", data)
        if marker != 0xFF or not 0 < count <= 64:
            return []
        return list(struct.unpack_from(f">{count}i", data, 12))
    except struct.error:
        return []
