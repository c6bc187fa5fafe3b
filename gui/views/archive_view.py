"""The archive browser: every entry that left USER.md or memory/MEMORY.md, known from
memory/archive/ or from the snapshot commit that removed it (engine.prunes: the assistant's own
Dream writes no archive), with search, file, reason, date and origin filters, the selected entry
in full (with a link to its commit in Snapshots), and "Restore selected", which first shows where
each entry would go and then restores on the writer thread (each restore takes a snapshot first,
so it can be undone)."""

from __future__ import annotations

import calendar
import html
import logging
from datetime import date, timedelta

from dreamdesk.engine.core import clock
from dreamdesk.engine.recovery.archive import Archive, ArchivedEntry, ArchiveRecord
from dreamdesk.engine.recovery.archive_kinds import COMMIT_REASONS, ORIGINS, REASONS
from dreamdesk.engine.ops.archive_restore import Restores, too_many
from dreamdesk.engine.ops.result import OpResult
from dreamdesk.engine.recovery.prune_restores import Placement, plan_placements, read_every_prune
from dreamdesk.engine.recovery.prunes import delete_refusal, from_label, who
from dreamdesk.engine.core.rules import ARCHIVED_FILES
from dreamdesk.engine.home.workspace import Workspace

from ..models.archive_model import (COL_ARCHIVED, COL_FILE, COL_FROM, COL_ID, COL_NOW, COL_REPLACED, COL_RUN, COL_TEXT,
                                    PLACEHOLDER_TIP, ArchiveFilterProxy, ArchiveModel, archived_label)
from ..operations.archive_delete import delete_entries
from ..operations.archive_restore import restore_entries
from ..operations.run import Initiator
from ..operations.undo_restore import UndoAsks, undo_together
from ..qt import (QAbstractItemView, QComboBox, QEvent, QHBoxLayout, QLabel, QLineEdit, QMenu, QMessageBox,
                  QPushButton, Qt, QTableView, QTextBrowser, QTimer, QToolButton, QVBoxLayout, QWidget, Signal)
from ..widgets.table_fit import ColumnFit
from ..context.worker import JobLanes, Latest
from .common import (detail_splitter, empty_notice, link_color, read_latest, reset_filters, select_source_row,
                     setup_table, type_to_search)

log = logging.getLogger(__name__)

SEARCH_DEBOUNCE_MS = 200
RESTORE_KEY = "Ctrl+Shift+R"
LISTED = 20                # placements spelled out in the confirmation
ALL_FILES = "All files"
ALL_REASONS = "All reasons"
# The header's context menu shows and hides columns (remembered); the ID, Run and Replaced by are
# in the detail pane, so they start hidden and Text keeps its room without a horizontal scroll
HIDDEN_KEY = "archive/hiddenColumns"
HIDDEN_BY_DEFAULT = (COL_ID, COL_RUN, COL_REPLACED)
ALWAYS_SHOWN = (COL_TEXT,)
# The "From" filter: where a removal is known from (engine.archive.ORIGINS), in words.
ORIGIN_LABELS = {None: "From anywhere", "archive": "archive", "commit": "commit", "assistant": "the assistant",
                 "dreamdesk": "Dreamdesk"}
# The "When" filter: fixed spans, then every month that has archived entries (newest first).
SPANS = (("any", "Any time"), ("today", "Today"), ("7d", "Last 7 days"), ("30d", "Last 30 days"))
EMPTY_TEXT = ("<h3>Nothing removed yet</h3>"
              "<p>Whenever Dream, its review pass or your own edit removes an entry from USER.md or "
              "memory/MEMORY.md, the entry is written to <code>memory/archive/</code> first, with the heading "
              "it stood under and what replaced it; an entry the assistant's own Dream removes is found in the "
              "snapshot commit that removed it. Neither the archive nor any snapshot commit removed anything "
              "from this workspace so far, so there is nothing to browse or restore.</p>")
DELETE_TIP = ("Erase the selected entries (Shift+Del) from the archive and their text from the Dream run records "
              "(for something that should not be kept anywhere).")
OWN_RECORDS_TIP = ("Known only from the assistant's own records (OpenClaw's saved versions of MEMORY.md), which "
                   "Dreamdesk never writes: there is nothing of Dreamdesk's to delete here.")
COMMIT_ONLY_TIP = ("Known only from the snapshot commit that removed it: the repository's history is not rewritten, "
                   "so there is nothing to delete here.")
UNDO_NOTE = ("A snapshot of the memory files is taken before each restore, so it can be undone "
             "(Undo restore here, or Ctrl+Alt+Z). The archive itself keeps every entry: restoring removes nothing from it.")

RESTORE_TIP = ("Put the selected entries back under their headings (Ctrl+Shift+R). You see where each goes before "
               "anything is written; a snapshot is taken first.")
PIN_TIP = ("Put the selected entries back (where they are not already) and pin them, so Dreamdesk's Dream keeps "
           "them and the Dashboard says when anything else removes them")

class ArchiveDialogs:
    """The questions the archive browser asks; tests replace this object."""

    def confirm(self, parent: QWidget, title: str, text: str) -> bool:
        box = QMessageBox(QMessageBox.Icon.Question, title, text,
                          QMessageBox.StandardButton.Ok | QMessageBox.StandardButton.Cancel, parent)
        box.button(QMessageBox.StandardButton.Ok).setText("Restore")
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        return box.exec() == QMessageBox.StandardButton.Ok


def detail_html(rec: ArchiveRecord, link_colour: str = "", entry: ArchivedEntry | None = None) -> str:
    e = html.escape
    style = f" style='color:{link_colour}'" if link_colour else ""
    heading = e(rec.heading or "").replace("\n", "<br>")      # a setext heading: both lines, as written
    commits = entry.commits if entry is not None else [rec] if rec.known_from == "commit" else []
    in_archive = rec.known_from == "archive"
    rows = [("Archived" if in_archive else "Removed", e(clock.show_iso(rec.archived_at, seconds=True))),
            ("From", e(rec.file) + (f", under <b>{heading}</b>" if rec.heading else ", no heading above it")),
            ("Reason", e(rec.reason or "—")),
            *((("Run", f"<a href='run:{e(rec.run)}'{style}>{e(rec.run)}</a>" if rec.run else "— (not a Dream run)"),)
              if in_archive else ()),
            *commit_rows(rec, commits, style),
            ("Known from", e(from_label(entry) if entry is not None else rec.known_from)),
            *((("Stored in", f"{e(rec.source)}, line {rec.line}"),) if in_archive else ())]
    if entry is not None:
        rows.insert(1, ("Now", e(f"back in {rec.file}" + (f" since {clock.show_iso(entry.back_since)}"
                                                         if entry.back_since else "")
                                 if entry.back else f"not in {rec.file}")))
        if entry.removals > 1:
            rows.insert(2, ("Archived" if in_archive else "Removed", e(f"{entry.removals} times, first "
                                         f"{clock.show_iso(entry.first_removed_at)} ({', '.join(entry.ids)})")))
            rows[0] = ("Last archived" if in_archive else "Last removed", rows[0][1])
    table = "".join(f"<tr><td style='padding-right:12px' valign='top'><b>{k}</b></td><td>{v}</td></tr>"
                    for k, v in rows)
    out = [f"<h3 style='margin:0'>{e(rec.id)}</h3>", f"<table cellspacing='0' cellpadding='1'>{table}</table>",
           "<p style='margin-bottom:2px'><b>Text</b></p>",
           f"<pre style='white-space:pre-wrap; margin-top:0'>{e(rec.text)}</pre>"]
    if rec.replaced_by:
        out += ["<p style='margin-bottom:2px'><b>Replaced by</b></p>",
                f"<pre style='white-space:pre-wrap; margin-top:0'>{e(rec.replaced_by)}</pre>"]
    else:
        out.append("<p><i>Removed outright: nothing took its place.</i></p>")
    return "".join(out)


def commit_rows(rec: ArchiveRecord, commits: list[ArchiveRecord], style: str) -> list[tuple[str, str]]:
    """A "Commit" row per snapshot commit that removed the entry (short sha linking to it in
    Snapshots, its subject, who made it and when), or the commit an outside change was noted in."""
    e = html.escape
    out = []
    for c in commits:
        link = f"<a href='snapshot:{e(c.commit)}'{style}>{e(c.commit[:8])}</a>"
        subject = f" “{e(c.subject)}”" if c.subject else ""
        out.append(("Commit", f"{link}{subject} ({e(c.reason)}), by {e(who(c.writer))}, "
                              f"{e(archived_label(c.archived_at))}"))
    if not commits and rec.commit:
        out.append(("Commit", f"<a href='snapshot:{e(rec.commit)}'{style}>{e(rec.commit[:8])}</a> "
                              "(the snapshot that recorded this change)"))
    return out


def period_for(key: str | None, today: date) -> tuple[str | None, str | None]:
    """(since, until) days, inclusive, for a "When" choice: a span ending today or a YYYY-MM month."""
    if key in (None, "any"):
        return None, None
    days = {"today": 0, "7d": 6, "30d": 29}.get(key)
    if days is not None:
        return (today - timedelta(days=days)).isoformat(), today.isoformat()
    year, month = int(key[:4]), int(key[5:7])
    return f"{key}-01", f"{key}-{calendar.monthrange(year, month)[1]:02d}"


def month_label(key: str) -> str:
    """'2026-11' -> 'November 2026' (the user's reading of a month, not a sort key)."""
    year, month = int(key[:4]), int(key[5:7])
    return f"{calendar.month_name[month]} {year}"


def _plural(n: int, one: str, many: str) -> str:
    return f"{n:,} {one if n == 1 else many}"


def _filter_combo(tip: str) -> QComboBox:
    combo = QComboBox()
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
    combo.setToolTip(tip)
    return combo


class ArchiveView(QWidget):
    status = Signal(str)           # a status-bar message
    restored = Signal(str)         # the id of an archive entry put back into its file
    runRequested = Signal(str)     # a run id link in the detail pane was clicked
    pinsChanged = Signal()         # Restore and pin pinned entries
    snapshotRequested = Signal(str)   # a commit link in the detail pane was clicked (its full sha)

    def __init__(self, engine: JobLanes, parent: QWidget | None = None):
        super().__init__(parent)
        self.engine = engine
        self.ws: Workspace | None = None
        self.dialogs = ArchiveDialogs()
        self.problems: list = []
        self.busy = False
        self.loaded = False             # the current workspace's archive has been read
        self._token = Latest()
        self._wanted: tuple[str | None, list[str]] | None = None   # asked for before the rows arrived

        self.model = ArchiveModel(self)
        self.proxy = ArchiveFilterProxy(self)
        self.proxy.setSourceModel(self.model)

        self._build_filters()

        self._build_table()

        self._build_buttons()

        self.empty = empty_notice(EMPTY_TEXT)
        self.splitter = detail_splitter("archiveSplitter", self.table, self.detail, (3, 2), [420, 240])

        top = QHBoxLayout()
        top.addWidget(self.search_edit, 1)
        top.addWidget(self.file_combo)
        top.addWidget(self.reason_combo)
        top.addWidget(self.when_combo)
        top.addWidget(self.origin_combo)
        top.addSpacing(8)
        top.addWidget(self.count_label)
        bottom = QHBoxLayout()
        bottom.addWidget(self.placeholder_toggle)
        bottom.addWidget(self.hint, 1)
        bottom.addWidget(self.undo_button)
        bottom.addWidget(self.delete_button)
        bottom.addWidget(self.pin_button)
        bottom.addWidget(self.restore_button)
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addWidget(self.splitter, 1)
        lay.addWidget(self.empty, 1)
        lay.addLayout(bottom)

        self.table.selectionModel().selectionChanged.connect(self._selection_changed)
        self.table.selectionModel().currentRowChanged.connect(self._show_current)
        self.proxy.modelReset.connect(self._update_state)
        self.proxy.rowsInserted.connect(self._update_state)
        self.proxy.rowsRemoved.connect(self._update_state)
        self.proxy.layoutChanged.connect(self._update_state)
        self._update_state()

    def _build_filters(self) -> None:
        """The search field, the four filter combos and the count, each filtering as it changes."""
        self.search_edit = QLineEdit()
        self.search_edit.setPlaceholderText("Search archived text, headings and replacements…")
        self.search_edit.setClearButtonEnabled(True)
        self.file_combo = _filter_combo("Only entries removed from this file")
        self.reason_combo = _filter_combo("Only entries removed for this reason")
        self.when_combo = _filter_combo("Only entries archived in this period")
        self.origin_combo = _filter_combo("Only entries known from memory/archive/, from a snapshot commit, or "
                                          "from a commit made by the assistant or by Dreamdesk")
        self._origins: list[str | None] = [None, *ORIGINS]
        self.origin_combo.addItems([ORIGIN_LABELS[o] for o in self._origins])
        self.commit_note: str | None = None     # why the snapshot commits could not be read
        self._files: list[str | None] = []
        self._reasons: list[str | None] = []
        self._whens: list[str] = []
        self._fill_combos()
        self.count_label = QLabel()

        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(SEARCH_DEBOUNCE_MS)
        self._debounce.timeout.connect(self._apply_filter)
        self.search_edit.textChanged.connect(self._debounce.start)
        self.file_combo.currentIndexChanged.connect(self._apply_filter)
        self.reason_combo.currentIndexChanged.connect(self._apply_filter)
        self.when_combo.currentIndexChanged.connect(self._apply_filter)
        self.origin_combo.currentIndexChanged.connect(self._apply_filter)

    def _build_table(self) -> None:
        self.table = QTableView()
        setup_table(self.table, self.proxy, QAbstractItemView.SelectionMode.ExtendedSelection)
        hh = self.table.horizontalHeader()
        hh.moveSection(hh.visualIndex(COL_NOW), hh.visualIndex(COL_FILE))   # shown beside the file it is back in
        # after the text it is about (the text keeps its room), before what replaced it
        hh.moveSection(hh.visualIndex(COL_FROM), hh.visualIndex(COL_TEXT) + 1)
        self._restore_hidden_columns()
        hh.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        hh.customContextMenuRequested.connect(self._column_menu)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(COL_ARCHIVED, Qt.SortOrder.DescendingOrder)   # newest first
        self.columns = ColumnFit(self.table, elastic=COL_TEXT, prose=(COL_REPLACED,))
        type_to_search(self.table, self.search_edit)

        self.detail = QTextBrowser()
        self.detail.setOpenLinks(False)
        self.detail.setPlaceholderText("Select an entry to see it in full: its heading, what replaced it and "
                                       "the run that removed it.")
        self.detail.anchorClicked.connect(self._on_anchor)

    def _build_buttons(self) -> None:
        self.restore_button = QPushButton("Restore selected")
        self.restore_button.setToolTip(RESTORE_TIP)
        self.restore_button.clicked.connect(self.restore_selected)
        self.restore_button.setShortcut(RESTORE_KEY)   # a button's key acts while it is shown: this tab only
        self.pin_button = QPushButton("Restore and pin")
        self.pin_button.setToolTip(PIN_TIP)
        self.pin_button.clicked.connect(lambda: self.restore_selected(pin=True))
        self.delete_button = QPushButton("Delete permanently…")
        self.delete_button.setToolTip(DELETE_TIP)
        self.delete_button.clicked.connect(self.delete_selected)
        self.delete_button.setShortcut("Shift+Del")
        # Undo where the restore was made (issue 25 item 9): the last restore made here, all its entries
        self.undo_button = QPushButton("Undo restore")
        self.undo_button.setToolTip("Put back the files as they were before the last restore made here; asks "
                                    "first (Ctrl+Alt+Z, Edit → Undo Last Restore)")
        self.undo_button.clicked.connect(self.undo_restore)
        self.undo_asks = UndoAsks()          # the undo's questions; tests replace them
        self._undoable: list[str] = []       # restore-log ids of the last restore made here, oldest first
        self.hint = QLabel("Ctrl/Shift-click to select several entries.")
        self.hint.setEnabled(False)
        # the assistant's untouched onboarding lines, folded under one line (never mixed with prunes)
        self.placeholder_toggle = QToolButton()
        self.placeholder_toggle.setCheckable(True)
        self.placeholder_toggle.setAutoRaise(True)
        self.placeholder_toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.placeholder_toggle.setToolTip(PLACEHOLDER_TIP + " Shown after every real prune, greyed.")
        self.placeholder_toggle.toggled.connect(self._show_placeholders)

    # ---- public API ------------------------------------------------------------------------

    def set_workspace(self, ws: Workspace) -> None:
        """Show another workspace (or the same one again) and read its archive."""
        if self.ws is None or ws.root != self.ws.root:
            self.loaded = False
            self._undoable = []
            self.model.set_records([], exists=False)
            self.detail.clear()
        self.ws = ws
        self.refresh()

    def refresh(self) -> None:
        """Re-read memory/archive/ and the snapshot commits on the reader thread; keeps the
        selection by id."""
        read_latest(self, self._token, "read the archive", read_every_prune, lambda result: self._set_archive(*result),
                    lambda msg: self.status.emit(f"Could not read the archive: {msg}"))

    def selected_ids(self) -> list[str]:
        """The selected entries' ids, in table order."""
        rows = self._selected_rows()
        out = []
        for r in rows:
            rec = self.model.record(self.proxy.mapToSource(self.proxy.index(r, 0)).row())
            if rec is not None:
                out.append(rec.id)
        return out

    def _selected_rows(self) -> list[int]:
        """Selected table rows, from the selection's ranges (selectedRows() asks the model for the
        flags of every cell, which is seconds for a select-all over tens of thousands of rows)."""
        rows: set[int] = set()
        for rng in self.table.selectionModel().selection():
            rows.update(range(rng.top(), rng.bottom() + 1))
        return sorted(rows)

    def select_id(self, record_id: str, clear_filters: bool = True) -> bool:
        """Select and show one entry (clearing the filters if they hide it); one not listed yet
        is selected when the archive read now under way arrives (a tab read when first shown)."""
        row = self.model.row_for_id(record_id)
        if row is None:
            self._wanted = (None, [record_id])
            return False
        return select_source_row(self.table, self.proxy, row, self.clear_filters if clear_filters else None)

    def show_reason(self, reason: str, ids: list[str]) -> None:
        """Only the entries archived for `reason`, the first of `ids` selected (the watch's "go to
        the change")."""
        self.clear_filters()
        if reason in self._reasons:
            self.reason_combo.setCurrentIndex(self._reasons.index(reason))
            self._apply_filter()
        if ids and not self.select_id(ids[0], clear_filters=False):
            self._wanted = (reason, ids)

    def clear_filters(self) -> None:
        reset_filters(self._debounce, self.search_edit,
                      (self.file_combo, self.reason_combo, self.when_combo, self.origin_combo), self._apply_filter)

    # ---- restoring -------------------------------------------------------------------------

    def restore_selected(self, pin: bool = False) -> None:
        """Show where each selected entry would go; on a yes, restore them on the writer thread
        (and with `pin`, pin each one, also one that is already back in its file)."""
        ids = self.selected_ids()
        ws = self.ws
        if not ids or ws is None or self.busy:
            return
        if why := too_many(ids):
            self.status.emit(why)
            return
        self._set_busy(True)
        self.engine.read("plan archive restore", lambda ctx: plan_placements(ws, ids),
                         lambda placements: self._confirm_restore(ws, placements, pin),
                         lambda msg, tb: self._failed("Could not plan the restore", msg))

    def _confirm_restore(self, ws: Workspace, placements: list[Placement], pin: bool = False) -> None:
        todo = [p for p in placements if p.inserted and not p.error]
        to_pin = [p for p in placements if not p.error] if pin else []
        if ws is not self.ws:
            self._set_busy(False)
            return
        if not todo and to_pin:           # all back already: pin them, nothing to restore
            restore_entries(self._by(), ws, [], [p.id for p in to_pin], done=self._restored,
                            failed=lambda _msg: self._set_busy(False))
            return
        if not todo:
            self._set_busy(False)
            self.status.emit("Nothing to restore: " + "; ".join(p.describe() for p in placements))
            return
        n = len(todo)
        text = (f"Restore {'and pin ' if pin else ''}{_plural(n, 'archived entry', 'archived entries')}?\n\n"
                + "\n".join("• " + p.describe() for p in placements[:LISTED])
                + (f"\n… and {len(placements) - LISTED} more" if len(placements) > LISTED else "")
                + "\n\n" + UNDO_NOTE)
        if not self.dialogs.confirm(self, "Restore from the archive", text):
            self._set_busy(False)
            self.status.emit("Restore cancelled; nothing was written")
            return
        restore_entries(self._by(), ws, [p.id for p in todo], [p.id for p in to_pin], done=self._restored,
                        failed=lambda _msg: self._set_busy(False), refresh=self.refresh)

    def _by(self) -> Initiator:
        return Initiator(self.engine, "archive", self.status.emit)

    def _restored(self, result: OpResult[Restores]) -> None:
        self._set_busy(False)
        done = result.value
        if done.restored:
            self._undoable = done.undoable
            self._update_buttons()
        for rid, _res in done.restored:
            self.restored.emit(rid)
        if done.pinned:
            self.pinsChanged.emit()

    def delete_selected(self) -> None:
        """Erase entries (a privacy deletion): the one action that removes from the archive. Every
        record of a folded entry goes: the text is what the person wants gone. A record known only
        from a commit is refused in words: the repository's history is not rewritten."""
        recs = {r.id: r for e in self._selected_entries() for r in e.records}
        every = [rid for latest in self.selected_ids()
                 for rid in (self.model.entry(self.model.row_for_id(latest)).ids
                             if self.model.row_for_id(latest) is not None else [latest])]
        ids = [rid for rid in every if delete_refusal(rid, recs.get(rid)) is None]
        refused = [why for rid in every if (why := delete_refusal(rid, recs.get(rid))) is not None]
        ws = self.ws
        if refused and not ids:
            self.status.emit("Not deleted: " + refused[0] + (f" (and {len(refused) - 1} more like it)"
                                                             if len(refused) > 1 else ""))
            return
        if not ids or ws is None or self.busy:
            return
        text = (f"Permanently delete {_plural(len(ids), 'archived entry', 'archived entries')}?\n\n"
                + "\n".join("• " + i for i in ids[:LISTED])
                + "\n\nThe text is removed from memory/archive/ and from every Dream run record; those facts "
                  "show as unavailable. This cannot be undone from Dreamdesk. Older snapshots still hold the "
                  "files as they were before the entry was archived."
                + (f"\n\nStill listed afterwards: {_plural(len(refused), 'removal', 'removals')} known from a "
                   "snapshot commit; the repository's history is not rewritten." if refused else ""))
        if not self.dialogs.confirm(self, "Delete from the archive", text):
            self.status.emit("Nothing was deleted")
            return
        self._set_busy(True)

        delete_entries(self._by(), ws, ids, done=lambda _r: self._set_busy(False),
                       failed=lambda _msg: self._set_busy(False), refresh=self.refresh)

    def _failed(self, what: str, msg: str) -> None:
        self._set_busy(False)
        self.status.emit(f"{what}: {msg}")

    def _set_busy(self, busy: bool) -> None:
        self.busy = busy
        self._update_buttons()

    # ---- internals -------------------------------------------------------------------------

    def _set_archive(self, archive: Archive, entries: list, exists: bool, commit_note: str | None = None) -> None:
        selected = self.selected_ids()
        current = self._current_record()
        self.problems = list(archive.problems)
        self.commit_note = commit_note
        self.loaded = True
        self.model.set_entries(entries, exists)
        self._fill_combos()
        sel = self.table.selectionModel()
        for rid in selected:
            row = self.model.row_for_id(rid)
            if row is not None:
                index = self.proxy.mapFromSource(self.model.index(row, 0))
                if index.isValid():
                    sel.select(index, sel.SelectionFlag.Select | sel.SelectionFlag.Rows)
        if current is not None:
            row = self.model.row_for_id(current.id)
            if row is not None:
                index = self.proxy.mapFromSource(self.model.index(row, 0))
                if index.isValid():
                    sel.setCurrentIndex(index, sel.SelectionFlag.NoUpdate)
                    self._show_record(self.model.record(row))
        self._update_state()
        wanted, self._wanted = self._wanted, None
        if wanted is not None:
            reason, ids = wanted
            self.show_reason(reason, ids) if reason else self.select_id(ids[0])

    def _fill_combos(self) -> None:
        file, reason = self._combo_value(self.file_combo, self._files), self._combo_value(self.reason_combo,
                                                                                         self._reasons)
        files = [None] + sorted(set(self.model.files()) | set(ARCHIVED_FILES))
        reasons = [None] + sorted(set(self.model.reasons()) | set(REASONS) | set(COMMIT_REASONS))
        for combo, values, label, current in ((self.file_combo, files, ALL_FILES, file),
                                               (self.reason_combo, reasons, ALL_REASONS, reason)):
            combo.blockSignals(True)
            combo.clear()
            for v in values:
                combo.addItem(label if v is None else v)
            combo.setCurrentIndex(values.index(current) if current in values else 0)
            combo.blockSignals(False)
        self._files, self._reasons = files, reasons
        when = self._combo_value(self.when_combo, self._whens)
        whens = [key for key, _ in SPANS] + self.model.months()
        labels = [label for _, label in SPANS] + [month_label(m) for m in self.model.months()]
        self.when_combo.blockSignals(True)
        self.when_combo.clear()
        self.when_combo.addItems(labels)
        self.when_combo.setCurrentIndex(whens.index(when) if when in whens else 0)
        self.when_combo.blockSignals(False)
        self._whens = whens

    @staticmethod
    def _combo_value(combo: QComboBox, values: list[str | None]) -> str | None:
        i = combo.currentIndex()
        return values[i] if 0 <= i < len(values) else None

    def _apply_filter(self) -> None:
        self._debounce.stop()
        self.proxy.set_filter(self.search_edit.text(), self._combo_value(self.file_combo, self._files),
                              self._combo_value(self.reason_combo, self._reasons),
                              period_for(self._combo_value(self.when_combo, self._whens), date.today()),
                              self._combo_value(self.origin_combo, self._origins))
        self._update_state()

    def _update_state(self, *args) -> None:
        total = self.model.rowCount()
        has = total > 0
        self.empty.setVisible(self.loaded and not has)
        self.splitter.setVisible(has or not self.loaded)
        for w in (self.search_edit, self.file_combo, self.reason_combo, self.when_combo, self.origin_combo,
                  self.count_label, self.hint,
                  self.restore_button, self.pin_button, self.delete_button, self.undo_button):
            w.setVisible(has)
        folded = self.model.placeholders()
        self.placeholder_toggle.setVisible(has and folded > 0)
        self.placeholder_toggle.setArrowType(Qt.ArrowType.DownArrow if self.proxy.show_placeholders
                                             else Qt.ArrowType.RightArrow)
        self.placeholder_toggle.setText(f"template placeholders ({folded:,})"
                                        + ("" if self.proxy.show_placeholders else ", hidden"))
        if not has:
            self.count_label.setText("")
        else:
            text = _plural(total - folded, "archived entry", "archived entries")
            if self.proxy.is_active():
                text = f"{self.proxy.rowCount():,} of {text} match"
            if self.problems:
                text += f" · {_plural(len(self.problems), 'unreadable line', 'unreadable lines')} skipped"
            if self.commit_note:
                text += " · snapshot commits not read"
            self.count_label.setText(text)
            self.count_label.setToolTip("\n".join([str(p) for p in self.problems]
                                                  + ([self.commit_note] if self.commit_note else [])))
        if not self.table.currentIndex().isValid():
            self.detail.clear()
        self._update_buttons()

    def _show_placeholders(self, show: bool) -> None:
        self.proxy.set_show_placeholders(show)
        self._update_state()

    def undo_restore(self) -> bool:
        """Undo the last restore made in this tab, every entry of it (False: none to undo here)."""
        if not self._undoable or self.ws is None or self.busy:
            return False
        ids, ws = self._undoable, self.ws

        def done(_result) -> None:
            if ws is self.ws and self._undoable == ids:
                self._undoable = []
            self._update_buttons()
            if not self.engine.routed:
                self.refresh()

        undo_together(self.engine, ws, ids, self, self.undo_asks, self.status.emit, done, initiator="archive")
        return True

    def _update_buttons(self) -> None:
        self.undo_button.setEnabled(bool(self._undoable) and not self.busy and self.ws is not None)
        n = len(self._selected_rows())
        self.restore_button.setEnabled(n > 0 and not self.busy and self.ws is not None)
        self.delete_button.setEnabled(n > 0 and not self.busy and self.ws is not None)
        self.restore_button.setText("Restoring…" if self.busy else
                                    f"Restore selected ({n})" if n > 1 else "Restore selected")
        self.restore_button.setShortcut(RESTORE_KEY)     # setText resets a button's shortcut
        self.pin_button.setEnabled(n > 0 and not self.busy and self.ws is not None)
        refused = self._restore_refused()
        for button, tip in ((self.restore_button, RESTORE_TIP), (self.pin_button, PIN_TIP)):
            button.setToolTip(refused or tip)
            if refused:
                button.setEnabled(False)
        if refused:
            self.delete_button.setEnabled(False)
            self.delete_button.setToolTip(refused)
        elif n and not self._archive_selected():
            self.delete_button.setEnabled(False)
            self.delete_button.setToolTip(COMMIT_ONLY_TIP if self._commit_selected() else OWN_RECORDS_TIP)
        else:
            self.delete_button.setToolTip(DELETE_TIP)

    def _restore_refused(self) -> str | None:
        """Why the selection is not put back from here (an entry known only from the assistant's
        own records, until writing its home comes), in words; None: it may be."""
        for r in self._selected_rows():
            e = self.model.entry(self.proxy.mapToSource(self.proxy.index(r, 0)).row())
            if e is not None and e.latest.restore_refused:
                return e.latest.restore_refused[0].upper() + e.latest.restore_refused[1:]
        return None

    def _archive_selected(self) -> bool:
        """Does the selection hold any entry Dreamdesk's archive knows (rows known only from a
        commit or from the assistant's own records cannot be deleted)?"""
        return any(e.archived for e in self._selected_entries())

    def _commit_selected(self) -> bool:
        return any(e.commits for e in self._selected_entries())

    def _selected_entries(self) -> list:
        found = (self.model.entry(self.proxy.mapToSource(self.proxy.index(r, 0)).row()) for r in self._selected_rows())
        return [e for e in found if e is not None]

    def _current_record(self) -> ArchiveRecord | None:
        index = self.table.currentIndex()
        if not index.isValid():
            return None
        return self.model.record(self.proxy.mapToSource(index).row())

    def _show_current(self, current, previous) -> None:
        rec = self.model.record(self.proxy.mapToSource(current).row()) if current.isValid() else None
        self._show_record(rec)

    def _show_record(self, rec: ArchiveRecord | None) -> None:
        if rec is None:
            self.detail.clear()
        else:
            row = self.model.row_for_id(rec.id)
            entry = self.model.entry(row) if row is not None else None
            self.detail.setHtml(detail_html(rec, link_color(self.detail.palette()).name(), entry))

    def _selection_changed(self, *args) -> None:
        self._update_buttons()

    def _on_anchor(self, url) -> None:
        scheme, _, value = url.toString().partition(":")
        if scheme == "run" and value:
            self.runRequested.emit(value)
        elif scheme == "snapshot" and value:
            self.snapshotRequested.emit(value)

    # -- which columns show (the header's context menu; remembered) --------------------------------
    def _restore_hidden_columns(self) -> None:
        from ..app import settings_store
        saved = settings_store.settings().value(HIDDEN_KEY)
        hidden = {int(c) for c in saved if str(c).isdigit()} if isinstance(saved, list) else set(HIDDEN_BY_DEFAULT)
        for col in range(self.proxy.columnCount()):
            self.table.setColumnHidden(col, col in hidden and col not in ALWAYS_SHOWN)

    def column_menu(self) -> QMenu:
        """One checkable action per column: what the header's context menu shows."""
        menu = QMenu(self)
        for col in range(self.proxy.columnCount()):
            act = menu.addAction(self.proxy.headerData(col, Qt.Orientation.Horizontal))
            act.setCheckable(True)
            act.setChecked(not self.table.isColumnHidden(col))
            act.setEnabled(col not in ALWAYS_SHOWN)
            act.toggled.connect(lambda on, c=col: self.set_column_shown(c, on))
        return menu

    def _column_menu(self, pos) -> None:
        self.column_menu().popup(self.table.horizontalHeader().mapToGlobal(pos))

    def set_column_shown(self, col: int, shown: bool) -> None:
        from ..app import settings_store
        if col in ALWAYS_SHOWN:
            return
        self.table.setColumnHidden(col, not shown)
        hidden = [c for c in range(self.proxy.columnCount()) if self.table.isColumnHidden(c)]
        settings_store.settings().setValue(HIDDEN_KEY, [str(c) for c in hidden])
        self.columns.fit()

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.PaletteChange:
            self.model.set_palette(self.palette())
            self._show_record(self._current_record())
        super().changeEvent(event)
