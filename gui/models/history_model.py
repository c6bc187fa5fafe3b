"""The history table: memory/history.jsonl as rows, with its two cursors as visible markers.

Rows, in file order: one per valid entry, one per unreadable line (at its line position), and
two marker rows — `.dream_cursor` right after the last entry Dream has processed (entries below
it are pending) and `.cursor` after the entry that carries it (at the end when it is the last
one or beyond). The model keeps only two parallel arrays (row kind, index into
`history.entries` / `history.bad_lines` / marker number) and formats every cell on demand, so a
100,000-entry history resets in a few milliseconds and costs ~9 bytes per row.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from datetime import tzinfo

from dreamdesk.engine.core import clock, rules
from dreamdesk.engine.home.history import BadLine, History, HistoryEntry

from ..qt import QApplication, QColor, QFont, QModelIndex, QPalette, QSortFilterProxyModel, Qt
from .base import FLAGS, RIGHT, TableModel, blend, rich_tooltip, theme

EntryRole = Qt.UserRole + 1      # the HistoryEntry or BadLine of a row (None for a marker)
KindRole = Qt.UserRole + 2       # "entry" | "error" | "marker"
CursorRole = Qt.UserRole + 3     # an entry's cursor (None for error and marker rows)

KIND_ENTRY, KIND_ERROR, KIND_MARKER = 0, 1, 2
KIND_NAMES = ("entry", "error", "marker")
MARK_DREAM, MARK_CURSOR = 0, 1

COL_CURSOR, COL_TIME, COL_SESSION, COL_CONTENT, COL_STATUS = range(5)
COLUMNS = ("Cursor", "Time", "Session", "Content", "Status")
COLUMN_TIPS = (
    "The entry's cursor (its number in memory/history.jsonl)",
    "When the entry was compacted (YYYY-MM-DD HH:MM, local time)",
    "The conversation the entry was compacted from",
    "The entry's text (whitespace collapsed; the full text is in the tooltip and the detail pane)",
    "dreamed: folded into memory by Dream · pending: not yet dreamed · "
    "in next prompt: pending and injected into the next chat · error: the line is skipped",
)

DREAMED, PENDING, IN_PROMPT = rules.DREAMED, rules.PENDING, "in next prompt"   # the table's words
NO_SESSION = ""                  # session filter value for entries without a session_key
PREVIEW_CHARS = 160


def preview(text: str, limit: int = PREVIEW_CHARS) -> str:
    """One line: whitespace (including U+2028 and newlines) collapsed, cut at `limit` chars."""
    flat = " ".join(text[: limit * 8].split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


# Marker rows can be seen but not selected.
MARKER_FLAGS = Qt.ItemIsEnabled | Qt.ItemNeverHasChildren


class HistoryModel(TableModel):
    """Read-only table over an engine History plus `.cursor`, `.dream_cursor` and the prompt set."""

    COLUMNS, COLUMN_TIPS, RIGHT_COLUMNS = COLUMNS, COLUMN_TIPS, frozenset({COL_CURSOR})
    PALETTE_ROLES = (Qt.ForegroundRole, Qt.BackgroundRole)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.history = History(exists=False)
        self.home_zone: tzinfo | None = None
        self.cursor = 0
        self.dream_cursor = 0
        self.in_prompt: frozenset[int] = frozenset()
        self._kinds = bytearray()          # per row: KIND_*
        self._index = array("l")           # per row: index into entries / bad_lines / marker no.
        self._entry_rows = array("l")      # per entry index: its row
        self._cursors: list[int] = []      # entry cursors (strictly increasing, from the reader)
        self._marker_rows = [0, 0]
        self._error_rows: list[int] = []   # per bad-line index: its row
        self._dreamed_count = 0
        self._sessions: list[str] | None = None
        self._haystacks: list[str] | None = None
        self._italic = QFont()
        self._italic.setItalic(True)
        self._bold = QFont()
        self._bold.setBold(True)
        self.set_palette(QApplication.palette())

    # ---- data in ---------------------------------------------------------------------------

    def set_history(self, history: History, cursor: int, dream_cursor: int,
                    in_prompt: set[int] | frozenset[int] = frozenset(), home_zone: tzinfo | None = None) -> None:
        """Replace everything (a model reset). O(n), C-speed array building. `home_zone`: the
        zone the stamps were written in (engine.clock.home_zone; None: this machine's)."""
        self.beginResetModel()
        self.history = history
        self.home_zone = home_zone
        self.cursor = int(cursor)
        self.dream_cursor = int(dream_cursor)
        self.in_prompt = frozenset(in_prompt)
        self._build()
        self._sessions = None
        self._haystacks = None
        self.endResetModel()

    def _build(self) -> None:
        entries = self.history.entries
        bads = self.history.bad_lines
        n = len(entries)
        cursors = [e.cursor for e in entries]
        self._cursors = cursors
        dreamed = bisect_right(cursors, self.dream_cursor)     # entries [0, dreamed) are dreamed
        self._dreamed_count = dreamed
        # Events that interrupt the run of entries: (entry position, order, tiebreak, kind, index).
        # Position p means "after the first p entries"; at the same position the dream marker
        # comes first (it sits right after its entry), then unreadable lines in line order.
        events = [(dreamed, 0, 0, KIND_MARKER, MARK_DREAM)]
        if not entries or self.cursor >= cursors[-1]:
            events.append((n, 2, 0, KIND_MARKER, MARK_CURSOR))  # at the very end
        else:
            events.append((bisect_right(cursors, self.cursor), 0, 1, KIND_MARKER, MARK_CURSOR))
        if bads:
            lines = [e.line for e in entries]
            for j, b in enumerate(bads):
                events.append((bisect_left(lines, b.line), 1, b.line, KIND_ERROR, j))
        events.sort()
        kinds = bytearray()
        index = array("l")
        entry_rows = array("l")
        error_rows: list[int] = []
        done = 0
        for pos, _order, _tie, kind, idx in events:
            if pos > done:
                start = len(kinds)
                kinds.extend(bytes(pos - done))               # KIND_ENTRY == 0
                index.extend(range(done, pos))
                entry_rows.extend(range(start, start + pos - done))
                done = pos
            if kind == KIND_MARKER:
                self._marker_rows[idx] = len(kinds)
            else:
                error_rows.append(len(kinds))
            kinds.append(kind)
            index.append(idx)
        if n > done:
            start = len(kinds)
            kinds.extend(bytes(n - done))
            index.extend(range(done, n))
            entry_rows.extend(range(start, start + n - done))
        self._kinds, self._index, self._entry_rows = kinds, index, entry_rows
        self._error_rows = error_rows

    def _palette_colors(self, palette: QPalette) -> dict[str, QColor]:
        text, base, dark = theme(palette)
        high = palette.color(QPalette.Active, QPalette.Highlight)
        return {
            "dim": blend(text, base, 0.42),
            "error_bg": blend(base, QColor(214, 48, 49), 0.30 if dark else 0.16),
            "error_fg": blend(text, QColor(255, 140, 140) if dark else QColor(150, 0, 0), 0.55),
            "marker_bg": blend(base, high, 0.30 if dark else 0.16),
            "marker_fg": blend(text, high, 0.25),
            "prompt_fg": blend(text, high, 0.55 if dark else 0.70),
        }

    # ---- facts for views -------------------------------------------------------------------

    @property
    def entry_count(self) -> int:
        return len(self.history.entries)

    @property
    def pending_count(self) -> int:
        return len(self.history.entries) - self._dreamed_count

    @property
    def bad_count(self) -> int:
        return len(self.history.bad_lines)

    @property
    def marker_rows(self) -> tuple[int, int]:
        """(row of the .dream_cursor marker, row of the .cursor marker)."""
        return self._marker_rows[0], self._marker_rows[1]

    def kind(self, row: int) -> str:
        return KIND_NAMES[self._kinds[row]]

    def item(self, row: int) -> HistoryEntry | BadLine | None:
        """The entry or unreadable line of a row (None for a marker or an invalid row).

        Python code should use this rather than `index.data(EntryRole)`: no QVariant round trip,
        and no invalid-QVariant result (in PySide6 6.12 on Python 3.11 each one drops a
        reference to None; see the note at the end of gui/qt.py).
        """
        if not 0 <= row < len(self._kinds):
            return None
        kind = self._kinds[row]
        if kind == KIND_ENTRY:
            return self.history.entries[self._index[row]]
        if kind == KIND_ERROR:
            return self.history.bad_lines[self._index[row]]
        return None

    def row_for_cursor(self, cursor: int) -> int | None:
        i = bisect_left(self._cursors, cursor)
        if i < len(self._cursors) and self._cursors[i] == cursor:
            return self._entry_rows[i]
        return None

    def entry_rows_after(self, cursor: int) -> list[int]:
        """The rows of the entries whose cursor is above `cursor` (what was appended after it)."""
        return list(self._entry_rows[bisect_right(self._cursors, cursor):])

    def row_for_line(self, line: int) -> int | None:
        """The row of an unreadable line, by its 1-based line number."""
        for j, b in enumerate(self.history.bad_lines):
            if b.line == line:
                return self._error_rows[j]
        return None

    def status(self, entry: HistoryEntry) -> str:
        status = rules.entry_status(entry.cursor, self.dream_cursor, self.in_prompt)
        return IN_PROMPT if status == rules.IN_PROMPT else status

    def sessions(self) -> list[str]:
        """Every session key present, sorted; NO_SESSION ("") first when some entry has none."""
        if self._sessions is None:
            keys = {e.session_key for e in self.history.entries}
            none = None in keys
            keys.discard(None)
            self._sessions = ([NO_SESSION] if none else []) + sorted(keys)
        return self._sessions

    def marker_text(self, which: int) -> str:
        if which == MARK_DREAM:
            return f"── .dream_cursor = {self.dream_cursor} ── entries below are pending"
        return f"── .cursor = {self.cursor} ──"

    def matching_rows(self, text: str, session: str | None) -> bytearray:
        """A 0/1 byte per row: does the row pass the text and session filters?

        Computed in bulk (list comprehensions over cached lower-case haystacks) so a filter
        over 100,000 rows costs tens of milliseconds, not 100,000 Python calls of formatting.
        Marker rows pass only when no filter is active; unreadable lines have no session, so
        they pass only without a session filter and when the text is in their reason or text.
        """
        n_rows = len(self._kinds)
        needle = text.strip().casefold()
        if not needle and session is None:
            return bytearray(b"\x01") * n_rows
        entries = self.history.entries
        if needle:
            if self._haystacks is None:
                self._haystacks = [f"{e.cursor}\x00{e.session_key or ''}\x00{e.content}".casefold()
                                   for e in entries]
            ok = [needle in h for h in self._haystacks]
        else:
            ok = [True] * len(entries)
        if session is not None:
            want = session or None
            ok = [o and e.session_key == want for o, e in zip(ok, entries)]
        mask = bytearray(n_rows)
        for i, row in enumerate(self._entry_rows):
            if ok[i]:
                mask[row] = 1
        if session is None:
            for b, row in zip(self.history.bad_lines, self._error_rows):
                if needle in b.reason.casefold() or needle in b.text.casefold():
                    mask[row] = 1
        return mask

    # ---- QAbstractTableModel ---------------------------------------------------------------

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._kinds)

    def flags(self, index):
        if not index.isValid():
            return Qt.NoItemFlags
        return MARKER_FLAGS if self._kinds[index.row()] == KIND_MARKER else FLAGS

    def data(self, index, role=Qt.DisplayRole):
        if not index.isValid():
            return None
        row, col = index.row(), index.column()
        if row >= len(self._kinds):
            return None
        kind = self._kinds[row]
        i = self._index[row]
        if kind == KIND_ENTRY:
            return self._entry_data(self.history.entries[i], col, role)
        if kind == KIND_ERROR:
            return self._error_data(self.history.bad_lines[i], col, role)
        return self._marker_data(i, col, role)

    def _entry_data(self, e: HistoryEntry, col: int, role):
        if role == Qt.DisplayRole:
            return self._entry_text(e, col)
        if role == Qt.ToolTipRole:
            return self._entry_tip(e, col)
        if role == Qt.ForegroundRole:
            st = self.status(e)
            if st == DREAMED:
                return self._colors["dim"]
            return self._colors["prompt_fg"] if st == IN_PROMPT and col == COL_STATUS else None
        if role == Qt.FontRole:
            in_prompt = col == COL_STATUS and e.cursor > self.dream_cursor and e.cursor in self.in_prompt
            return self._bold if in_prompt else None
        if role == Qt.TextAlignmentRole and col == COL_CURSOR:
            return RIGHT
        return {EntryRole: e, KindRole: "entry", CursorRole: e.cursor}.get(role)

    def _entry_text(self, e: HistoryEntry, col: int) -> str:
        if col == COL_CURSOR:
            return str(e.cursor)
        if col == COL_TIME:
            return clock.show_history(e.timestamp, self.home_zone)
        if col == COL_SESSION:
            return e.session_key or "—"
        if col == COL_CONTENT:
            return preview(e.content)
        return self.status(e)

    def _entry_tip(self, e: HistoryEntry, col: int) -> str:
        if col == COL_CONTENT:
            return rich_tooltip(e.content)
        if col == COL_STATUS:
            return {DREAMED: f"Dream has processed it (cursor {e.cursor} ≤ .dream_cursor {self.dream_cursor})",
                    PENDING: "Not yet dreamed; older than what fits in the next prompt's pending block",
                    IN_PROMPT: "Not yet dreamed; injected into the next chat's pending-history block"}[self.status(e)]
        if col == COL_SESSION and e.session_key is None:
            return "No session_key (older format)"
        return f"Line {e.line} of memory/history.jsonl"

    def _error_data(self, b: BadLine, col: int, role):
        if role == Qt.DisplayRole:
            if col == COL_CURSOR:
                return "!"
            if col == COL_TIME:
                return f"line {b.line}"
            if col == COL_SESSION:
                return ""
            if col == COL_CONTENT:
                return preview(f"Unreadable: {b.reason} — {b.text}")
            return f"error: {b.reason}"
        if role == Qt.ToolTipRole:
            if col == COL_CONTENT:
                return rich_tooltip(f"Line {b.line} is skipped: {b.reason}\n\n{b.text}")
            return rich_tooltip(f"Line {b.line} is skipped (kept on disk untouched): {b.reason}")
        if role == Qt.BackgroundRole:
            return self._colors["error_bg"]
        if role == Qt.ForegroundRole and col in (COL_CURSOR, COL_STATUS):
            return self._colors["error_fg"]
        if role == Qt.TextAlignmentRole and col == COL_CURSOR:
            return RIGHT
        if role == EntryRole:
            return b
        if role == KindRole:
            return "error"
        return None

    def _marker_data(self, which: int, col: int, role):
        if role == Qt.DisplayRole:
            return self.marker_text(which) if col == COL_CURSOR else ""
        if role == Qt.ToolTipRole:
            if which == MARK_DREAM:
                return ("memory/.dream_cursor: Dream has processed every entry up to here; "
                        "the entries below are pending")
            return "memory/.cursor: the last cursor the Consolidator handed out"
        if role == Qt.BackgroundRole:
            return self._colors["marker_bg"]
        if role == Qt.ForegroundRole:
            return self._colors["marker_fg"]
        if role == Qt.FontRole:
            return self._italic
        if role == KindRole:
            return "marker"
        return None


class HistoryFilterProxy(QSortFilterProxyModel):
    """Free-text (case-insensitive: content, session, cursor) and session-key filtering.

    The accept mask is computed in bulk by the source model when the filter or the source
    changes, so filterAcceptsRow (called once per row, from C++) is a flag test and a byte
    lookup. Marker rows show only while no filter is active. Rows stay in file order.
    """

    def __init__(self, parent=None):
        super().__init__(parent)
        self._text = ""
        self._session: str | None = None
        self._mask: bytearray | None = None   # None: accept every row
        self._stale = False

    @property
    def text(self) -> str:
        return self._text

    @property
    def session(self) -> str | None:
        return self._session

    def is_active(self) -> bool:
        return bool(self._text.strip()) or self._session is not None

    def setSourceModel(self, model) -> None:
        old = self.sourceModel()
        if isinstance(old, HistoryModel):
            old.modelAboutToBeReset.disconnect(self._source_resetting)
        super().setSourceModel(model)
        if isinstance(model, HistoryModel):
            model.modelAboutToBeReset.connect(self._source_resetting)
        self._stale = True

    def _source_resetting(self) -> None:
        self._stale = True

    def set_filter(self, text: str | None = None, session: str | None | type(...) = ...) -> None:
        """Change the text and/or the session filter (`...` leaves that one unchanged)."""
        new_text = self._text if text is None else text
        new_session = self._session if session is ... else session
        if new_text == self._text and new_session == self._session:
            return
        self.beginFilterChange()
        self._text, self._session = new_text, new_session
        self._stale = True
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def set_text(self, text: str) -> None:
        self.set_filter(text=text)

    def set_session(self, session: str | None) -> None:
        self.set_filter(session=session)

    def clear(self) -> None:
        self.set_filter("", None)

    def _rebuild_mask(self) -> None:
        src = self.sourceModel()
        active = self.is_active() and isinstance(src, HistoryModel)
        self._mask = src.matching_rows(self._text, self._session) if active else None
        self._stale = False

    def filterAcceptsRow(self, source_row, source_parent) -> bool:
        if self._stale:
            self._rebuild_mask()
        mask = self._mask
        return mask is None or (source_row < len(mask) and mask[source_row] != 0)
