"""Snapshots: the timeline of the workspace's git snapshots, the diff of one snapshot against the
working files (or of two snapshots against each other), and restores — the whole snapshot, one
file, one hunk — each confirmed first and each undoable.

Reads (the list, every diff) run on the engine's reader thread, debounced on selection changes,
and a Latest token drops any answer that arrives for a selection the user has already left.
Restores run on the writer thread. Viewing never creates the snapshot repository.

What one selected snapshot shows: the diff *from that snapshot to the working files* — `−` lines
are in the snapshot and no longer in the files, `+` lines were written since. Restoring reverts
them; its hunks are numbered exactly as store.diff(sha) numbers them, which is what
restore_snapshot(ws, sha, path, hunk) restores.
"""

from __future__ import annotations

from dataclasses import dataclass

from dreamdesk.engine.home.cursors import read_cursor
from dreamdesk.engine.text.diffs import FileDiff
from dreamdesk.engine.text.prepared_diff import PreparedDiff, prepare
from dreamdesk.engine.ops.result import OpResult
from dreamdesk.engine.recovery.restore import RestoreResult, UndoPlan, plan_undo, recent_restores
from dreamdesk.engine.recovery.restore_log import RestoreEntry
from dreamdesk.engine.core.rules import ARCHIVED_FILES, cursor_value
from dreamdesk.engine.versions.snapshots import Snapshot, SnapshotStore
from dreamdesk.engine.home.workspace import Workspace

from ..models.snapshots_model import COL_FILES, COL_KIND, SnapshotsModel, TimelineDelegate, badge_of, when
from ..qt import (QAbstractItemView, QButtonGroup, QHBoxLayout, QHeaderView, QLabel, QMenu, QMessageBox,
                  QPalette, QPushButton, QSplitter, QStackedWidget, Qt, QTableView, QTimer, QToolButton, QVBoxLayout,
                  QWidget, Signal)
from ..widgets.diff_view import PREPARING, SPLIT, UNIFIED, DiffView
from ..operations.restore import restore_snapshot
from ..operations.run import Initiator
from ..operations.undo_restore import UndoAsks, preview, undo, undo_question, when as when_iso
from ..widgets.table_fit import ColumnFit, RowsFit
from ..context.worker import JobLanes, Latest
from .common import read_latest, show_focus

DIFF_DEBOUNCE_MS = 120
LIST_LIMIT = 5000
EMPTY_TEXT = "No snapshots yet: the first Dream run, edit or restore creates them."
EMPTY_NOTE = ("Snapshots are kept in the workspace's own git repository (shared with nanobot); "
              "looking at this tab never creates it.")
PICK_TEXT = "Select a snapshot to see what changed since it, or two (Ctrl+click) to compare them."
UNDO_NOTE = ("The current files are snapshotted first, so this can be undone "
             "(Undo last restore).")
RECENT_IN_MENU = 15


@dataclass
class Listing:
    exists: bool
    snapshots: list[Snapshot]


@dataclass
class DiffResult:
    shas: tuple[str, ...]           # (sha,) = that snapshot → working files; (older, newer) = between them
    diffs: list[FileDiff]
    prepared: PreparedDiff
    snap_cursor: int | None = None  # .dream_cursor in the snapshot (single selection only)
    work_cursor: int | None = None  # .dream_cursor now
    made: bool = False              # what that one snapshot changed (from the one before it), not "since"

    @property
    def single(self) -> bool:
        return len(self.shas) == 1


def list_snapshots(ws: Workspace) -> Listing:
    store = SnapshotStore(ws)
    if not store.exists():          # never create the repository just by looking
        return Listing(False, [])
    return Listing(True, store.list(limit=LIST_LIMIT))


def compute_diff(ws: Workspace, shas: tuple[str, ...], made: bool = False) -> DiffResult:
    """The diff the view shows (on the reader thread; tests may wrap it). `made`: what the one
    selected snapshot itself changed, as its row counts it, instead of what changed since."""
    store = SnapshotStore(ws)
    if len(shas) == 1 and made:
        diffs = store.changes_made(shas[0])
        return DiffResult(shas, diffs, prepare(diffs), made=True)
    if len(shas) == 1:
        diffs = store.diff(shas[0])
        text = store.file_at(shas[0], "memory/.dream_cursor")
        snap_cursor = cursor_value(text) if text is not None else None
        work_cursor, _ = read_cursor(ws.dream_cursor_path, "memory/.dream_cursor")
        return DiffResult(shas, diffs, prepare(diffs), snap_cursor, work_cursor)
    diffs = store.diff(shas[0], shas[1])
    return DiffResult(shas, diffs, prepare(diffs))


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"




class SnapshotDialogs(UndoAsks):
    """The questions the view asks (confirm and error as an undo asks them); tests replace them."""

    def move_cursor_back(self, parent: QWidget, text: str) -> bool | None:
        box = QMessageBox(QMessageBox.Icon.Question, "Move .dream_cursor back too?", text, parent=parent)
        yes = box.addButton("Move it back", QMessageBox.ButtonRole.YesRole)
        no = box.addButton("Keep it", QMessageBox.ButtonRole.NoRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        clicked = box.clickedButton()
        return True if clicked is yes else False if clicked is no else None



def _text_line(bold: bool = False) -> QLabel:
    """A wrapped, selectable line of plain text (the diff's title, in bold, and its legend)."""
    label = QLabel()
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    if bold:
        font = label.font()
        font.setBold(True)
        label.setFont(font)
    return label


class SnapshotsView(QWidget):
    status = Signal(str)                  # a status-bar message
    restored = Signal(str)                # after any restore or undo (what was restored)

    def __init__(self, engine: JobLanes, parent: QWidget | None = None):
        super().__init__(parent)
        self.engine = engine
        self.ws: Workspace | None = None
        self.dialogs = SnapshotDialogs()
        self.last_restore: RestoreResult | None = None
        self.last_restore_what = ""
        self.recent: list[RestoreEntry] = []          # undoable restores, newest first (from the restore log)
        self._recent_token = Latest()
        self.shown: DiffResult | None = None          # the diff on screen (restores act on it)
        self.listing: Listing | None = None
        self.busy = False                             # a restore is running
        self._list_token = Latest()
        self._diff_token = Latest()
        self._first_list = True
        self._wanted: str | None = None               # a snapshot asked for (show_snapshot), until listed

        self.model = SnapshotsModel(self)
        self.table = self._timeline()

        self._diff_header()

        self._restore_buttons()

        self.diff = DiffView()
        self.diff.setObjectName("snapshotDiff")
        self.diff.setAccessibleName("Snapshot diff")
        self.table.setAccessibleName("Snapshot timeline")
        self.diff.hunkRestoreRequested.connect(self.restore_hunk)
        self.diff.fileRestoreRequested.connect(self.restore_file)
        self.diff.set_message(PICK_TEXT)

        bar = QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        bar.addWidget(self.unified_button)
        bar.addWidget(self.split_button)
        bar.addSpacing(12)
        bar.addWidget(self.since_button)
        bar.addWidget(self.made_button)
        bar.addStretch(1)
        bar.addWidget(self.restore_button)
        bar.addWidget(self.file_button)
        bar.addSpacing(12)
        bar.addWidget(self.undo_button)
        right = QWidget()
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        # the buttons first: an explanation that wraps to more lines grows downwards and never
        # moves them from under the mouse
        rl.addLayout(bar)
        rl.addWidget(self.title)
        rl.addWidget(self.legend)
        rl.addWidget(self.diff, 1)

        # the timeline above the diff: both get the full width (the engine dock takes a third of it)
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.setObjectName("snapshotsSplitter")
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(self.table)
        self.splitter.addWidget(right)
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 3)
        self.splitter.setSizes([190, 560])
        self.rows = RowsFit(self.splitter, self.table)     # room for ten snapshots, the diff the rest

        self.empty_page = self._empty_page()
        self.stack = QStackedWidget()
        self.stack.addWidget(self.empty_page)
        self.stack.addWidget(self.splitter)
        lay = QVBoxLayout(self)
        lay.addWidget(self.stack)

        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(DIFF_DEBOUNCE_MS)
        self._debounce.timeout.connect(self._load_diff)
        self._update_buttons()

    def _diff_header(self) -> None:
        """The diff's title and legend, its modes (unified, side by side) and which diff it is."""
        self.title, self.legend = _text_line(bold=True), _text_line()
        self.unified_button = QToolButton()
        self.unified_button.setText("Unified")
        self.split_button = QToolButton()
        self.split_button.setText("Side by side")
        self.mode_group = QButtonGroup(self)
        for b in (self.unified_button, self.split_button):
            b.setCheckable(True)
            b.setAutoRaise(False)
            self.mode_group.addButton(b)
        self.unified_button.setChecked(True)
        self.unified_button.setShortcut("Alt+U")
        self.split_button.setShortcut("Alt+S")
        self.unified_button.setToolTip("One column: removed and added lines one under the other (Alt+U)")
        self.split_button.setToolTip("Two columns: the older side on the left, the newer on the right (Alt+S)")
        self.mode_group.buttonClicked.connect(self._mode_clicked)
        # which of two diffs of one snapshot is shown, said on the buttons and in the title (issue 25 item 10)
        self.since_button = QToolButton()
        self.since_button.setText("What changed since")
        self.since_button.setToolTip("From this snapshot to the files now: what a restore of it would revert")
        self.made_button = QToolButton()
        self.made_button.setText("What this snapshot changed")
        self.made_button.setToolTip("From the snapshot before it to this one: the changes its row counts")
        self.which_group = QButtonGroup(self)
        for b in (self.since_button, self.made_button):
            b.setCheckable(True)
            self.which_group.addButton(b)
        self.since_button.setChecked(True)
        self.which_group.buttonClicked.connect(lambda _b: self._schedule_diff())

    def _restore_buttons(self) -> None:
        """Restore the snapshot, one file of it, and undo (the last restore, or one from its menu)."""
        self.restore_button = QPushButton("Restore snapshot…")
        # button shortcuts act only while the button is visible: on this tab, never elsewhere
        self.restore_button.setShortcut("Ctrl+Shift+R")
        self.restore_button.setToolTip("Put every memory file back as it is in this snapshot; asks first "
                                       "(Ctrl+Shift+R)")
        self.restore_button.clicked.connect(self.restore_whole)
        self.file_button = QPushButton("Restore one file")
        self.file_button.setShortcut("Ctrl+Shift+F")
        self.file_button.setToolTip("Put one file back as it is in this snapshot; asks first (Ctrl+Shift+F)")
        self.file_menu = QMenu(self.file_button)
        self.file_button.setMenu(self.file_menu)
        # the button undoes the newest restore; its menu lists the recent ones (kept across restarts)
        self.undo_button = QToolButton()
        self.undo_button.setText("Undo last restore")
        self.undo_button.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)
        # (Ctrl+Alt+Z is the window's Edit → Undo Last Restore: it undoes from any tab)
        self.undo_button.setToolTip("Put the files back as they were just before the last restore; asks first "
                                    "(Ctrl+Alt+Z)")
        self.undo_button.clicked.connect(self.undo_last)
        self.undo_menu = QMenu(self.undo_button)
        self.undo_button.setMenu(self.undo_menu)

    def _timeline(self) -> QTableView:
        """The table of snapshots, newest first: whole rows, no editing, its files column elastic."""
        table = self.table = QTableView()
        self.table.setObjectName("snapshotTimeline")
        self.table.setTabKeyNavigation(False)    # Tab reaches the restore buttons
        self.table.setModel(self.model)
        self.table.setItemDelegate(TimelineDelegate(self.table))
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(False)
        self.table.setShowGrid(False)
        self.table.setAlternatingRowColors(True)
        self.table.setToolTip("")
        vh = self.table.verticalHeader()
        vh.setVisible(False)
        vh.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        vh.setDefaultSectionSize(self.table.fontMetrics().height() + 10)
        hh = self.table.horizontalHeader()
        hh.setStretchLastSection(True)
        hh.setHighlightSections(False)
        hh.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        self.columns = ColumnFit(self.table, elastic=COL_FILES, samples={COL_KIND: "nanobot revert"})
        show_focus(self.table)
        self.table.setMinimumHeight(vh.defaultSectionSize() * 3 + hh.sizeHint().height() + 4)
        self.table.selectionModel().selectionChanged.connect(self._selection_changed)
        return table

    def _empty_page(self) -> QWidget:
        """What the tab shows when the workspace has no snapshots yet."""
        self.empty = QLabel(EMPTY_TEXT)
        self.empty.setObjectName("snapshotsEmpty")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)
        font = self.empty.font()
        font.setPointSizeF(font.pointSizeF() * 1.2)
        self.empty.setFont(font)
        self.empty_note = QLabel(EMPTY_NOTE)
        self.empty_note.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_note.setWordWrap(True)
        self.empty_note.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        empty_page = QWidget()
        el = QVBoxLayout(empty_page)
        el.addStretch(1)
        el.addWidget(self.empty)
        el.addSpacing(6)
        el.addWidget(self.empty_note)
        el.addStretch(1)
        return empty_page

    # -- public API ------------------------------------------------------------------------------
    def set_workspace(self, ws: Workspace) -> None:
        if self.ws is None or ws.root != self.ws.root:
            self.last_restore = None
            self.last_restore_what = ""
            self.recent = []
            self._recent_token.next()
            self.shown = None
            self.listing = None
            self._first_list = True
            self._wanted = None
            self._diff_token.next()
            self.model.set_snapshots([])
            self.diff.set_message(PICK_TEXT)
            self.title.clear()
            self.legend.clear()
        self.ws = ws
        self.refresh()

    def refresh(self) -> None:
        """List the snapshots again (reader thread) and redo the diff of the selection."""
        read_latest(self, self._list_token, "list snapshots", list_snapshots, self._apply_listing,
                    self._listing_failed)
        read_latest(self, self._recent_token, "recent restores", recent_restores, self._apply_recent,
                    lambda msg: self.status.emit(f"Could not read the recent restores: {msg}"))

    def _apply_recent(self, recent: list[RestoreEntry]) -> None:
        self.recent = recent
        self.undo_menu.clear()
        for e in recent[:RECENT_IN_MENU]:
            a = self.undo_menu.addAction(f"Undo {e.what}   ({when_iso(e.at)}: {', '.join(e.paths) or '.dream_cursor'})")
            a.triggered.connect(lambda _=False, rid=e.id: self.undo_entry(rid))
        if not recent:
            self.undo_menu.addAction("No restore to undo").setEnabled(False)
        self._update_buttons()

    def _listing_failed(self, msg: str) -> None:
        """git could not list them: say so where the timeline would be (never "no snapshots yet",
        which is a different thing)."""
        self.listing = None
        self.shown = None
        self.model.set_snapshots([])
        self.empty.setText("The snapshots cannot be read")
        self.empty_note.setText(f"{msg}\n\nThe memory files are not affected; Dream and edits go on without "
                                "snapshots until git works again.")
        self.stack.setCurrentWidget(self.empty_page)
        self._update_buttons()
        self.status.emit(f"Could not read the snapshots: {msg}")

    def selected_shas(self) -> list[str]:
        """The selected snapshots, newest first."""
        rows = sorted({i.row() for i in self.table.selectionModel().selectedRows()})
        return [self.model.snapshots[r].sha for r in rows if r < len(self.model.snapshots)]

    def select_shas(self, shas: list[str]) -> None:
        sm = self.table.selectionModel()
        sm.clearSelection()
        for i, sha in enumerate(shas):
            row = self.model.row_of(sha)
            if row is None:
                continue
            index = self.model.index(row, 0)
            flags = sm.SelectionFlag.Select | sm.SelectionFlag.Rows
            sm.select(index, flags)
            if i == 0:
                sm.setCurrentIndex(index, sm.SelectionFlag.NoUpdate)
                self.table.scrollTo(index)

    def show_snapshot(self, sha: str) -> None:
        """Select one snapshot (a commit link in another tab): now if it is listed, and again once
        the listing this asks for arrives (a newer snapshot must not take its place)."""
        self._wanted = sha
        if self.model.row_of(sha) is not None:
            self.select_shas([sha])
        self.refresh()

    def mode(self) -> str:
        return self.diff.mode()

    def set_mode(self, mode: str) -> None:
        self.diff.set_mode(mode)
        (self.split_button if mode == SPLIT else self.unified_button).setChecked(True)

    # -- listing ----------------------------------------------------------------------------------
    def _apply_listing(self, listing: Listing) -> None:
        self.listing = listing
        self.empty.setText(EMPTY_TEXT)
        self.empty_note.setText(EMPTY_NOTE)
        if not listing.exists or not listing.snapshots:
            self.model.set_snapshots([])
            self.stack.setCurrentWidget(self.empty_page)
            self.shown = None
            self._update_buttons()
            return
        self.stack.setCurrentWidget(self.splitter)
        keep = self.selected_shas()
        newest = self.model.snapshots[0].sha if self.model.snapshots else None
        sm = self.table.selectionModel()
        sm.blockSignals(True)
        self.model.set_snapshots(listing.snapshots)
        if self._first_list or (newest is not None and listing.snapshots[0].sha != newest):
            # first listing, or an operation made snapshots: they land above the rows in view,
            # so the newest is selected and scrolled to rather than appearing out of sight
            keep = [listing.snapshots[0].sha]
            self._first_list = False
        if self._wanted is not None:
            if any(s.sha == self._wanted for s in listing.snapshots):
                keep = [self._wanted]
            else:
                self.status.emit(f"Snapshot {self._wanted[:8]} is not among the {len(listing.snapshots):,} "
                                 "snapshots listed")
            self._wanted = None
        self.select_shas(keep)
        sm.blockSignals(False)
        self.table.viewport().update()
        self._schedule_diff()

    # -- diffs ------------------------------------------------------------------------------------
    def _selection_changed(self, *args) -> None:
        self._schedule_diff()

    def _schedule_diff(self) -> None:
        self._diff_token.next()         # whatever is in flight is stale from now on
        self._update_buttons()
        self._debounce.start()

    def _selection_key(self) -> tuple[str, ...] | None:
        shas = self.selected_shas()
        if len(shas) == 1:
            return (shas[0],)
        if len(shas) == 2:
            return (shas[1], shas[0])    # older → newer
        return None

    def _load_diff(self) -> None:
        self._debounce.stop()
        key = self._selection_key()
        ws = self.ws
        token = self._diff_token.next()
        if key is None or ws is None:
            self.shown = None
            self.title.setText("")
            self.legend.setText("")
            self.diff.set_message(PICK_TEXT if len(self.selected_shas()) < 3
                                  else "Select one snapshot, or two to compare them (not more).")
            self._update_buttons()
            return
        self.title.setText(self._title_for(key))
        self.legend.setText("Computing the diff…")
        if self.shown is None or self.shown.shas != key:
            self.diff.set_message(PREPARING)    # another selection's diff would mislead; a refresh keeps it
        made = self._made_shown(key)
        # dropped when the user selected something else, or opened another workspace, meanwhile
        self.engine.read("snapshot diff", lambda ctx: compute_diff(ws, key, made), self._show_diff,
                         lambda msg, tb: self._diff_failed(msg),
                         wanted=lambda: self._diff_token.current(token) and ws is self.ws)

    def _show_diff(self, result: DiffResult) -> None:
        self.shown = result
        if result.made:
            self.diff.set_prepared(result.prepared, restorable=False,
                                   empty_text="This snapshot changed no memory file (only Dreamdesk's own records).")
            legend = ("− lines it removed, + lines it added: the changes its row counts. To restore, switch to "
                      "“What changed since”.")
        elif result.single:
            cursor_note = ""
            if result.snap_cursor is not None and result.snap_cursor != result.work_cursor:
                cursor_note = (f" memory/.dream_cursor is {result.snap_cursor} in the snapshot and "
                               f"{result.work_cursor} now.")
            empty = "The memory files are as they are in this snapshot: restoring it changes no file." + cursor_note
            self.diff.set_prepared(result.prepared, restorable=True, empty_text=empty)
            legend = ("− lines are in the snapshot, + lines were written since: restoring the snapshot (or a file, "
                      "or a hunk of it) reverts them." + cursor_note)
        else:
            self.diff.set_prepared(result.prepared, restorable=False,
                                empty_text="These two snapshots hold the same memory files.")
            legend = "− lines are only in the older snapshot, + lines only in the newer one."
        self.title.setText(self._title_for(result.shas))
        self.legend.setText(legend)
        self._fill_file_menu()
        self._update_buttons()

    def _diff_failed(self, message: str) -> None:
        self.shown = None
        self.diff.set_message(f"Could not compute the diff: {message}")
        self.status.emit(f"Snapshot diff failed: {message}")
        self._update_buttons()

    def _snap(self, sha: str) -> Snapshot | None:
        row = self.model.row_of(sha)
        return self.model.snapshot(row) if row is not None else None

    def _describe(self, sha: str) -> str:
        s = self._snap(sha)
        if s is None:
            return sha[:8]
        return f"{s.short} ({badge_of(s)}, {when(s)})"

    def _made_shown(self, key: tuple[str, ...] | None) -> bool:
        return key is not None and len(key) == 1 and self.made_button.isChecked()

    def _title_for(self, key: tuple[str, ...]) -> str:
        if self._made_shown(key):
            return f"What snapshot {self._describe(key[0])} changed, from the snapshot before it."
        if len(key) == 1:
            return f"Changes since snapshot {self._describe(key[0])} in the working files."
        return f"Changes from snapshot {self._describe(key[0])} to {self._describe(key[1])}."

    def _mode_clicked(self, button) -> None:
        self.diff.set_mode(SPLIT if button is self.split_button else UNIFIED)

    # -- buttons ----------------------------------------------------------------------------------
    def _restorable_files(self) -> list[FileDiff]:
        if self.shown is None or not self.shown.single or self.shown.made:
            return []
        return [d for d in self.shown.diffs if d.old_exists]

    def _cursor_differs(self) -> bool:
        s = self.shown
        return bool(s and s.single and not s.made and s.snap_cursor is not None and s.snap_cursor != s.work_cursor)

    def _current_shown(self) -> bool:
        key = self._selection_key()
        return (self.shown is not None and key == self.shown.shas and self.shown.made == self._made_shown(key)
                and not self._debounce.isActive())

    def _update_buttons(self) -> None:
        ready = not self.busy and self._current_shown()
        single = ready and self.shown is not None and self.shown.single
        self.restore_button.setEnabled(single and (bool(self._restorable_files()) or self._cursor_differs()))
        self.file_button.setEnabled(single and bool(self._restorable_files()))
        one = len(self.selected_shas()) == 1
        for b in (self.since_button, self.made_button):
            b.setEnabled(one)             # two snapshots are compared: there is only one diff then
        if not (self.shown is not None and self.shown.single):
            tip = "Select one snapshot to restore it (two selected snapshots are only compared)"
        elif self.shown.made:
            tip = "Shown: what this snapshot changed. Switch to “What changed since” to restore it"
        elif not self._restorable_files() and not self._cursor_differs():
            tip = "The working files already match this snapshot"
        else:
            tip = "Put every memory file back as it is in this snapshot (asks first)"
        self.restore_button.setToolTip(tip)
        last = self.recent[0] if self.recent else None
        self.undo_button.setEnabled(not self.busy and last is not None)
        self.undo_button.setToolTip(f"Undo the last restore ({last.what}, {when_iso(last.at)}); asks first. "
                                    "The arrow lists the recent ones (Ctrl+Alt+Z)"
                                    if last is not None else "No restore to undo yet")

    def _fill_file_menu(self) -> None:
        self.file_menu.clear()
        for d in self._restorable_files():
            a = self.file_menu.addAction(f"{d.path}   (+{d.added} −{d.removed})")
            a.triggered.connect(lambda _=False, p=d.path: self.restore_file(p))

    # -- restores ---------------------------------------------------------------------------------
    def _guard(self) -> DiffResult | None:
        if self.ws is None or self.busy:
            return None
        if not self._current_shown() or not self.shown.single:
            self.status.emit("Select one snapshot and wait for its diff before restoring")
            return None
        return self.shown

    def restore_whole(self) -> None:
        shown = self._guard()
        if shown is None:
            return
        sha = shown.shas[0]
        move = False
        if self._cursor_differs():
            back = shown.snap_cursor < shown.work_cursor
            entries = shown.work_cursor - shown.snap_cursor
            text = (f"In snapshot {sha[:8]}, memory/.dream_cursor is {shown.snap_cursor}; it is {shown.work_cursor} now.\n\n"
                    f"Move it {'back ' if back else ''}to {shown.snap_cursor} too? "
                    + (f"Then the {_plural(entries, 'history entry', 'history entries')} after cursor "
                       f"{shown.snap_cursor} are dreamed again on the next Dream run."
                       if back else "Then Dream treats the entries up to it as already dreamed.")
                    + f"\n\nKeep it: the cursor stays at {shown.work_cursor}.")
            answer = self.dialogs.move_cursor_back(self, text)
            if answer is None:
                self.status.emit("Restore cancelled; nothing was written")
                return
            move = bool(answer)
        files = self._restorable_files()
        if not files and not move:
            self.status.emit("Nothing to restore: the files already match this snapshot")
            return
        lines = [f"    {d.path}  (+{d.added} −{d.removed} since the snapshot)" for d in files]
        lacking = [d.path for d in shown.diffs if not d.old_exists]
        text = f"Restore snapshot {self._describe(sha)}?\n\n"
        if files:
            text += "These files go back to their content in that snapshot:\n" + "\n".join(lines) + "\n"
        else:
            text += "No memory file changes.\n"
        if lacking:
            text += f"Not in the snapshot, left as they are: {', '.join(lacking)}.\n"
        if move:
            text += f"memory/.dream_cursor moves from {shown.work_cursor} to {shown.snap_cursor}.\n"
        elif self._cursor_differs():
            text += f"memory/.dream_cursor stays at {shown.work_cursor}.\n"
        text += ("\nEntries this removes from USER.md or MEMORY.md go to the archive; memory/archive and "
                 "memory/dreams are never rolled back. " + UNDO_NOTE)
        if not self.dialogs.confirm(self, "Restore snapshot?", text):
            self.status.emit("Restore cancelled; nothing was written")
            return
        ws = self.ws
        self._run_restore(f"snapshot {sha[:8]}", lambda by, **on: restore_snapshot(by, ws, sha, move_cursor=move, **on))

    def restore_file(self, path: str) -> None:
        shown = self._guard()
        if shown is None:
            return
        sha = shown.shas[0]
        d = next((x for x in shown.diffs if x.path == path), None)
        if d is None or not d.old_exists:
            self.status.emit(f"Snapshot {sha[:8]} does not hold {path}; a restore leaves it as it is")
            return
        what = "recreates it" if not d.new_exists else \
            f"removes {_plural(d.added, 'line')} written since and puts back {_plural(d.removed, 'line')}"
        text = (f"Restore {path} from snapshot {self._describe(sha)}?\n\n"
                f"{path} goes back to its content in that snapshot: this {what}. No other file changes.\n\n"
                + ("Entries this removes go to the archive. " if path in ARCHIVED_FILES else "")
                + UNDO_NOTE)
        if not self.dialogs.confirm(self, "Restore file?", text):
            self.status.emit("Restore cancelled; nothing was written")
            return
        ws = self.ws
        self._run_restore(f"{path} from {sha[:8]}", lambda by, **on: restore_snapshot(by, ws, sha, path=path, **on))

    def restore_hunk(self, path: str, n: int) -> None:
        shown = self._guard()
        if shown is None:
            return
        sha = shown.shas[0]
        d = next((x for x in shown.diffs if x.path == path), None)
        if d is None or not d.old_exists or not 1 <= n <= len(d.hunks):
            self.status.emit(f"No hunk {n} of {path} to restore")
            return
        hunk = d.hunks[n - 1]
        gone = [x.text for x in hunk.lines if x.kind == "+"]
        back = [x.text for x in hunk.lines if x.kind == "-"]
        first = hunk.new_start + 1
        text = (f"Restore hunk {n} of {path} from snapshot {self._describe(sha)}?\n\n"
                f"Only these lines of {path} change (around line {first}); the rest of the file stays as it is.\n")
        if gone:
            text += f"\nRemoved ({_plural(len(gone), 'line')} written since the snapshot):\n{preview(gone)}\n"
        if back:
            text += f"\nPut back ({_plural(len(back), 'line')} from the snapshot):\n{preview(back)}\n"
        text += "\n" + ("Entries this removes go to the archive. " if path in ARCHIVED_FILES else "") \
            + UNDO_NOTE
        if not self.dialogs.confirm(self, "Restore hunk?", text):
            self.status.emit("Restore cancelled; nothing was written")
            return
        ws, shown_id = self.ws, hunk.id       # the engine refuses if hunk n is no longer this change
        self._run_restore(f"{path} hunk {n} from {sha[:8]}",
                          lambda by, **on: restore_snapshot(by, ws, sha, path=path, hunk=n, hunk_id=shown_id, **on))

    def undo_last(self) -> None:
        if self.recent:
            self.undo_entry(self.recent[0].id, last=True)

    def undo_entry(self, entry_id: str, last: bool = False) -> None:
        """Work out what undoing that restore writes (reader thread), then ask: which files go
        back, and what changed in them since, which the undo would drop."""
        if self.ws is None or self.busy:
            return
        ws = self.ws
        self.engine.read("plan undo", lambda ctx: plan_undo(ws, entry_id),
                         lambda plan: self._ask_undo(ws, plan, last),
                         lambda msg, tb: self.dialogs.error(self, "Cannot undo", f"That restore cannot be undone.\n\n{msg}"),
                         wanted=lambda: ws is self.ws)

    def _ask_undo(self, ws: Workspace, plan: UndoPlan, last: bool) -> None:
        if self.busy:
            return
        title, text = undo_question(plan, last)
        if not self.dialogs.confirm(self, title, text):
            self.status.emit("Undo cancelled; nothing was written")
            return
        self._run_restore(f"undo of {plan.entry.what}", lambda by, **on: undo(by, ws, plan, **on))

    def _run_restore(self, what: str, start) -> None:
        """`start(by, **on)`: the restore's (or undo's) operation, from gui/operations."""
        queued = self.engine.busy
        self.busy = True
        self._update_buttons()
        self.status.emit(f"Restoring {what}…" + (" (after the job that is running now)" if queued else ""))
        ws = self.ws

        def done(result: OpResult[RestoreResult]) -> None:
            self.busy = False
            if ws is self.ws:
                self.last_restore = result.value
                self.last_restore_what = what
            self._update_buttons()
            self.restored.emit(what)

        def failed(message: str) -> None:
            self.busy = False
            self._update_buttons()
            self.refresh()

        by = Initiator(self.engine, "snapshots", self.status.emit, lambda title, text: self.dialogs.error(self, title, text))
        # (in the window, the job's change record refreshes this view; alone, the operation does)
        start(by, done=done, failed=failed, refresh=self.refresh)
