"""The archive table: every entry of memory/archive/*.jsonl (spec section 3) and every entry a
snapshot commit removed (engine.prunes: the assistant's own Dream writes no archive) as one row,
the records of the same text folded together (engine.archive.fold), with whether it is back in
its file now and where its removal is known from.

The model keeps the engine's ArchiveRecord list as read_archive returned it plus a row order
(a permutation, so sorting by a column is one Python sort and a layout change, with no per-cell
calls from C++), and formats every cell on demand. Filtering goes through engine.archive.search
so the table finds exactly what the CLI finds; the proxy turns its answer into a byte mask.
"""

from __future__ import annotations

import html
import re

from dreamdesk.engine.core import clock
from dreamdesk.engine.recovery.archive import ArchivedEntry, ArchiveRecord, fold, search
from dreamdesk.engine.text.entries import heading_label
from dreamdesk.engine.recovery.prunes import from_label, who

from ..qt import QApplication, QColor, QFont, QModelIndex, QPalette, QSortFilterProxyModel, Qt
from .base import TableModel, blend, rich_tooltip, theme
from .history_model import preview

COL_ID, COL_ARCHIVED, COL_FILE, COL_REASON, COL_RUN, COL_HEADING, COL_TEXT, COL_REPLACED, COL_NOW, COL_FROM = range(10)
COLUMNS = ("ID", "Archived", "File", "Reason", "Run", "Heading", "Text", "Replaced by", "Now", "From")
COLUMN_TIPS = (
    "The archive id (a-<day>-<n>, or c-<commit>-<n> for an entry known only from the snapshot commit that "
    "removed it): restore and delete name an entry by it",
    "When the entry left its file (local time)",
    "The memory file the entry was removed from",
    "dream: a Dream pass removed it · review: the review pass (shrink only) · "
    "edit: your own edit in Dreamdesk · restore: a restore replaced it",
    "The Dream run that removed it (none for an edit or a restore)",
    "The heading the entry stood under; a restore puts it back there",
    "The entry as it read when it was removed (the full text is in the detail pane)",
    "The entry that took its place, when it was updated rather than dropped",
    "Whether the entry is back in its file now (and since when a restore put it back), and how often "
    "it was archived (a restore and its undo archive it again; the rows are folded into one)",
    "Where the removal is known from: memory/archive/ (written before the removing write), the snapshot "
    "commit that removed it and who made that commit (the assistant's own Dream writes no archive), or both",
)

IdRole = Qt.UserRole + 1         # the record's id (a str)
PLACEHOLDER_TIP = ("A template placeholder: the assistant's own onboarding text, never filled in, "
                   "that left the file when real facts took its place. Not a pruned fact.")
NONE = "—"
PREVIEW_CHARS = 140
_ID_RE = re.compile(r"^a-(\d{8})-(\d+)$")


def archived_label(iso: str) -> str:
    """'2026-11-29T21:25:44+01:00' -> '2026-11-29 21:25' in local time (anything else shown as it is)."""
    return clock.show_iso(iso)


def _id_key(rid: str) -> str:
    m = _ID_RE.match(rid)
    return f"{m.group(1)}{int(m.group(2)):012d}" if m else "~" + rid


def now_label(e: ArchivedEntry) -> str:
    """'back since 2026-12-01 ×3' / 'removed' (what the Now column says; the time is in its tooltip)."""
    out = ("back since " + archived_label(e.back_since)[:10] if e.back_since else "back in file") if e.back \
        else "removed"
    return out + (f" ×{e.removals}" if e.removals > 1 else "")


def commit_line(r: ArchiveRecord) -> str:
    """'Removed in commit 1a2b3c4d “dream: …” by the assistant, 2026-04-03 10:00' (a commit row)."""
    subject = f" “{r.subject}”" if r.subject else ""
    return f"Removed in commit {(r.commit or '')[:8]}{subject} by {who(r.writer)}, {archived_label(r.archived_at)}"


def from_tooltip(e: ArchivedEntry) -> str:
    """Each place the entry's removal is known from, one line each."""
    lines = [f"Written to {r.source}, line {r.line}, {archived_label(r.archived_at)}"
             for r in e.records if r.known_from == "archive"]
    return "\n".join(lines + [commit_line(r) for r in e.commits])


class ArchiveModel(TableModel):
    """Read-only rows over a list of ArchiveRecord (read_archive order until sorted)."""

    COLUMNS, COLUMN_TIPS = COLUMNS, COLUMN_TIPS

    def __init__(self, parent=None):
        super().__init__(parent)
        self.records: list[ArchiveRecord] = []     # each row's latest record
        self.entries: list[ArchivedEntry] = []
        self.exists = False                 # is there an archive folder at all
        self._order: list[int] = []         # row -> index into self.records
        self._rows: dict[str, int] = {}     # id -> row (rebuilt lazily)
        self._sort: tuple[int, Qt.SortOrder] | None = None
        self._italic = QFont()
        self._italic.setItalic(True)
        self.set_palette(QApplication.palette())

    # ---- data in ---------------------------------------------------------------------------

    def set_records(self, records: list[ArchiveRecord], exists: bool = True) -> None:
        """Rows for raw records (folded here, none known to be back)."""
        self.set_entries(fold(records, {}), exists)

    def set_entries(self, entries: list[ArchivedEntry], exists: bool = True) -> None:
        """Replace every row (a model reset); keeps the current sort column and order. A row's
        record is the entry's latest; every id of the entry finds its row."""
        self.beginResetModel()
        self.entries = list(entries)
        self.records = [e.latest for e in self.entries]
        self.exists = exists or bool(entries)
        self._order = list(range(len(self.records)))
        if self._sort is not None:
            self._order = self._sorted_order(*self._sort)
        self._rows = {}
        self.endResetModel()

    def _palette_colors(self, palette: QPalette) -> dict[str, QColor]:
        text, base, dark = theme(palette)
        return {
            "dim": blend(text, base, 0.45),
            "review": blend(text, QColor(200, 160, 255) if dark else QColor(115, 50, 165), 0.6),
            "edit": blend(text, QColor(240, 190, 90) if dark else QColor(150, 95, 0), 0.6),
            "restore": blend(text, QColor(130, 210, 140) if dark else QColor(20, 120, 40), 0.6),
            "commit": blend(text, QColor(120, 180, 255) if dark else QColor(20, 90, 180), 0.6),
        }

    # ---- facts for views -------------------------------------------------------------------

    def record(self, row: int) -> ArchiveRecord | None:
        """The record of a row (Python callers use this: no QVariant round trip)."""
        if 0 <= row < len(self._order):
            return self.records[self._order[row]]
        return None

    def record_index(self, row: int) -> int:
        """The row's index into `records` (read_archive order)."""
        return self._order[row]

    def entry(self, row: int) -> ArchivedEntry | None:
        if 0 <= row < len(self._order):
            return self.entries[self._order[row]]
        return None

    def row_for_id(self, record_id: str) -> int | None:
        """The row of any of an entry's ids (a run record names the one it archived)."""
        if not self._rows and self._order:
            self._rows = {rid: row for row, i in enumerate(self._order) for rid in self.entries[i].ids}
        return self._rows.get(record_id)

    def placeholders(self) -> int:
        """How many rows are the assistant's untouched template text (not real prunes)."""
        return sum(1 for e in self.entries if e.placeholder)

    def files(self) -> list[str]:
        return sorted({r.file for r in self.records})

    def reasons(self) -> list[str]:
        return sorted({r.reason for r in self.records if r.reason})

    def months(self) -> list[str]:
        """The YYYY-MM months entries were archived in, newest first."""
        return sorted({archived_label(r.archived_at)[:7] for r in self.records if len(r.archived_at) >= 7},
                      reverse=True)

    def matching(self, text: str, file: str | None, reason: str | None,
                 since: str | None = None, until: str | None = None, origin: str | None = None) -> bytearray:
        """A 0/1 byte per row (in `records` order): 1 when engine.archive.search keeps any record
        of the entry (as `dreamdesk archive` finds it)."""
        every = [r for e in self.entries for r in e.records]
        hits = {id(r) for r in search(every, text=text.strip() or None, file=file, reason=reason,
                                      since=since, until=until, origin=origin)}
        return bytearray(1 if any(id(r) in hits for r in e.records) else 0 for e in self.entries)

    # ---- sorting (by the model itself: one key per row, not N log N calls from C++) ---------

    def _sort_key(self, col: int):
        if col == COL_ID:
            return lambda r: _id_key(r.id)
        if col == COL_ARCHIVED:
            return lambda r: (r.archived_at, _id_key(r.id))
        if col == COL_FILE:
            return lambda r: r.file.casefold()
        if col == COL_REASON:
            return lambda r: r.reason
        if col == COL_RUN:
            return lambda r: r.run or ""
        if col == COL_HEADING:
            return lambda r: heading_label(r.heading).casefold()
        if col == COL_TEXT:
            return lambda r: r.text.casefold()
        return lambda r: (r.replaced_by or "").casefold()

    def _sorted_order(self, column: int, order: Qt.SortOrder) -> list[int]:
        recs = self.records
        if column == COL_NOW:
            ents = self.entries
            out = sorted(range(len(recs)), key=lambda i: (ents[i].back, ents[i].back_since or "", i))
        else:
            key = self._sort_key(column)
            out = sorted(range(len(recs)), key=lambda i: (key(recs[i]), i))
        if order == Qt.SortOrder.DescendingOrder:
            out.reverse()
        # the assistant's template placeholders come after every real prune, whatever the sort
        ents = self.entries
        return [i for i in out if not ents[i].placeholder] + [i for i in out if ents[i].placeholder]

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        if not 0 <= column < len(COLUMNS):
            return
        self._sort = (column, order)
        new = self._sorted_order(column, order)
        if new == self._order:
            return
        self.layoutAboutToBeChanged.emit()
        new_rows = {idx: row for row, idx in enumerate(new)}
        before = self.persistentIndexList()
        after = [self.index(new_rows[self._order[i.row()]], i.column()) if i.isValid() else QModelIndex()
                 for i in before]
        self._order = new
        self._rows = {}
        self.changePersistentIndexList(before, after)
        self.layoutChanged.emit()

    # ---- QAbstractTableModel ---------------------------------------------------------------

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._order)

    def data(self, index, role=Qt.DisplayRole):
        if not index.isValid() or index.row() >= len(self._order):
            return None
        r = self.records[self._order[index.row()]]
        col = index.column()
        if self.entries[self._order[index.row()]].placeholder and role in (Qt.ForegroundRole, Qt.ToolTipRole):
            return self._placeholder_data(r, col, role)
        if col == COL_NOW:
            return self._now_data(self.entries[self._order[index.row()]], role)
        if col == COL_FROM:
            return self._from_data(self.entries[self._order[index.row()]], role)
        if role == Qt.DisplayRole:
            return self._display(r, col)
        if role == Qt.ToolTipRole:
            return self._tooltip(r, col)
        if role == Qt.ForegroundRole:
            if (col == COL_RUN and not r.run) or (col == COL_REPLACED and not r.replaced_by):
                return self._colors["dim"]
            if col == COL_REASON:
                return self._colors.get(r.reason)
            return None
        if role == Qt.FontRole and col == COL_REPLACED and not r.replaced_by:
            return self._italic
        if role == IdRole:
            return r.id
        return None

    def _placeholder_data(self, r: ArchiveRecord, col: int, role):
        if role == Qt.ForegroundRole:
            return self._colors["dim"]
        return (f"{PLACEHOLDER_TIP}\n\n{self._tooltip(r, col)}").strip()

    def _now_data(self, e: ArchivedEntry, role):
        if role == Qt.DisplayRole:
            return now_label(e)
        if role == Qt.ToolTipRole:
            where = (f"Back in {e.latest.file}" + (f" since {archived_label(e.back_since)}" if e.back_since else "")
                     if e.back else f"Not in {e.latest.file}")
            return where + (f"; removed {e.removals} times ({', '.join(e.ids)})" if e.removals > 1 else "")
        if role == Qt.ForegroundRole:
            return self._colors["restore"] if e.back else self._colors["dim"]
        if role == IdRole:
            return e.id
        return None

    def _from_data(self, e: ArchivedEntry, role):
        if role == Qt.DisplayRole:
            return from_label(e)
        if role == Qt.ToolTipRole:
            return from_tooltip(e)
        if role == Qt.ForegroundRole and e.commits:
            return self._colors["commit"]
        if role == IdRole:
            return e.id
        return None

    def _display(self, r: ArchiveRecord, col: int) -> str:
        if col == COL_ID:
            return r.id
        if col == COL_ARCHIVED:
            return archived_label(r.archived_at)
        if col == COL_FILE:
            return r.file
        if col == COL_REASON:
            return r.reason
        if col == COL_RUN:
            return r.run or NONE
        if col == COL_HEADING:
            return heading_label(r.heading)
        if col == COL_TEXT:
            return preview(r.text, PREVIEW_CHARS)
        return preview(r.replaced_by, PREVIEW_CHARS) if r.replaced_by else NONE

    def _tooltip(self, r: ArchiveRecord, col: int) -> str:
        if col == COL_TEXT:
            return rich_tooltip(r.text)
        if col == COL_REPLACED:
            return rich_tooltip(r.replaced_by) if r.replaced_by else "Removed outright (nothing took its place)"
        if col == COL_HEADING:
            return html.escape(r.heading) if r.heading else "No heading above it (top of the file)"
        if col == COL_ARCHIVED:
            return r.archived_at
        if col == COL_RUN and r.known_from == "commit":
            return "Known from a snapshot commit, not from a Dreamdesk run: the From column names it"
        if col == COL_RUN and not r.run:
            return "Not removed by a Dream run"
        return f"{r.source}, line {r.line}" if r.known_from == "archive" else commit_line(r)


class ArchiveFilterProxy(QSortFilterProxyModel):
    """Text (engine.archive.search: text, heading and replaced_by, case-insensitive), file,
    reason, date and origin filters. The mask is computed once per filter change, per record; a row's lookup is
    two list indexings. Sorting is the source model's own (see ArchiveModel.sort)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._text = ""
        self._file: str | None = None
        self._reason: str | None = None
        self._period: tuple[str | None, str | None] = (None, None)   # archived_at days, inclusive
        self._origin: str | None = None         # engine.archive.ORIGINS
        self.show_placeholders = False          # the assistant's template placeholders are folded away
        self._mask: bytearray | None = None
        self._stale = False

    def is_active(self) -> bool:
        return (bool(self._text.strip()) or self._file is not None or self._reason is not None
                or self._period != (None, None) or self._origin is not None)

    def setSourceModel(self, model) -> None:
        old = self.sourceModel()
        if isinstance(old, ArchiveModel):
            old.modelAboutToBeReset.disconnect(self._source_resetting)
        super().setSourceModel(model)
        if isinstance(model, ArchiveModel):
            model.modelAboutToBeReset.connect(self._source_resetting)
        self._stale = True

    def _source_resetting(self) -> None:
        self._stale = True

    def set_filter(self, text: str | None = None, file: str | None | type(...) = ...,
                   reason: str | None | type(...) = ...,
                   period: tuple[str | None, str | None] | type(...) = ...,
                   origin: str | None | type(...) = ...) -> None:
        """Change any of the filters (None text / `...` leaves that one as it is). `period` is
        (since, until) as YYYY-MM-DD days of archived_at, inclusive; None is open. `origin`: where
        the removal is known from (engine.archive.ORIGINS)."""
        new = (self._text if text is None else text, self._file if file is ... else file,
               self._reason if reason is ... else reason, self._period if period is ... else tuple(period),
               self._origin if origin is ... else origin)
        if new == (self._text, self._file, self._reason, self._period, self._origin):
            return
        self.beginFilterChange()
        self._text, self._file, self._reason, self._period, self._origin = new
        self._stale = True
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def _rebuild(self) -> None:
        src = self.sourceModel()
        if self.is_active() and isinstance(src, ArchiveModel):
            self._mask = src.matching(self._text, self._file, self._reason, *self._period, self._origin)
        else:
            self._mask = None
        self._stale = False

    def set_show_placeholders(self, show: bool) -> None:
        if show != self.show_placeholders:
            self.beginFilterChange()
            self.show_placeholders = show
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, source_row, source_parent) -> bool:
        if self._stale:
            self._rebuild()
        src = self.sourceModel()
        if source_row >= src.rowCount():
            return False
        i = src.record_index(source_row)
        if not self.show_placeholders and src.entries[i].placeholder:
            return False
        return self._mask is None or (i < len(self._mask) and self._mask[i] != 0)

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Delegate to the source (which re-orders once); the proxy keeps the source order."""
        src = self.sourceModel()
        if isinstance(src, ArchiveModel):
            src.sort(column, order)
