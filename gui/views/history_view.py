"""The history view: memory/history.jsonl as a filterable table with the two cursors marked,
unreadable lines shown where they are, and the selected row in full below."""

from __future__ import annotations

from datetime import tzinfo

from dreamdesk.engine.core import clock
from dreamdesk.engine.home.history import BadLine, History, HistoryEntry
from dreamdesk.engine.assistants.prompt import select_pending

from ..models.history_model import COL_CONTENT, COL_STATUS, IN_PROMPT, NO_SESSION, HistoryFilterProxy, HistoryModel
from ..qt import (QAbstractItemView, QComboBox, QEvent, QHBoxLayout, QLabel, QLineEdit, QPlainTextEdit, Qt,
                  QTableView, QTimer, QVBoxLayout, QWidget, Signal)
from ..widgets.table_fit import ColumnFit
from ..widgets.follow import TailFollow
from .common import detail_splitter, reset_filters, select_source_row, setup_table, type_to_search

FILTER_DEBOUNCE_MS = 150
ALL_SESSIONS = "All sessions"
NO_SESSION_LABEL = "(no session key)"


def _plural(n: int, one: str, many: str) -> str:
    return f"{n:,} {one if n == 1 else many}"


def detail_text(model: HistoryModel, item) -> str:
    """The detail pane's text for an entry or an unreadable line."""
    if isinstance(item, HistoryEntry):
        return (f"Cursor {item.cursor} · {clock.show_history(item.timestamp, model.home_zone)} · "
                f"session {item.session_key or '(none: older format)'} · {model.status(item)} · "
                f"line {item.line} of memory/history.jsonl\n\n{item.content}")
    if isinstance(item, BadLine):
        return (f"Unreadable line {item.line} of memory/history.jsonl "
                "(skipped; kept on disk byte for byte)\n"
                f"Reason: {item.reason}\n\nRaw text:\n{item.text}")
    return ""


class HistoryView(QWidget):
    """Filter line + session choice + table + detail pane. Emits entryActivated(cursor)."""

    entryActivated = Signal(int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.model = HistoryModel(self)
        self.proxy = HistoryFilterProxy(self)
        self.proxy.setSourceModel(self.model)

        self.filter_edit = QLineEdit()
        self.filter_edit.setPlaceholderText("Filter history…")
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.setToolTip("Case-insensitive: matches content, session key and cursor; "
                                    "unreadable lines match on their reason and raw text")
        self.session_combo = QComboBox()
        self.session_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.session_combo.addItem(ALL_SESSIONS)
        self._session_keys: list[str | None] = [None]   # per combo item (not item data: see item())
        self.count_label = QLabel()
        self.count_label.setTextInteractionFlags(Qt.TextSelectableByMouse)

        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(FILTER_DEBOUNCE_MS)
        self._debounce.timeout.connect(self._apply_filter)
        self.filter_edit.textChanged.connect(self._debounce.start)
        self.session_combo.currentIndexChanged.connect(self._apply_filter)

        self.table = QTableView()
        setup_table(self.table, self.proxy, QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setSortingEnabled(False)          # file order is the point; markers need it
        self.columns = ColumnFit(self.table, elastic=COL_CONTENT, samples={COL_STATUS: IN_PROMPT})
        self.follow = TailFollow(self.table)
        type_to_search(self.table, self.filter_edit)

        self.detail = QPlainTextEdit()
        self.detail.setReadOnly(True)
        self.detail.setPlaceholderText("Select a row to see the full entry.")
        self.detail.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)

        self.splitter = detail_splitter("historySplitter", self.table, self.detail, (3, 1), [500, 170])

        top = QHBoxLayout()
        top.addWidget(self.filter_edit, 1)
        top.addWidget(self.session_combo)
        top.addSpacing(8)
        top.addWidget(self.count_label)
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addWidget(self.splitter, 1)

        self.table.selectionModel().currentRowChanged.connect(self._show_current)
        self.table.doubleClicked.connect(self._on_double_click)
        self.proxy.modelReset.connect(self._after_rows_change)
        self.proxy.rowsInserted.connect(self._after_rows_change)
        self.proxy.rowsRemoved.connect(self._after_rows_change)
        self.proxy.layoutChanged.connect(self._after_rows_change)
        self._update_count()

    # ---- public API ------------------------------------------------------------------------

    def set_data(self, history: History, cursor: int, dream_cursor: int,
                 in_prompt: set[int] | None = None, home_zone: tzinfo | None = None) -> None:
        """Show a history. `in_prompt` (cursors in the next prompt) defaults to the engine's rule."""
        if in_prompt is None:
            in_prompt = {e.cursor for e in select_pending(history.pending(dream_cursor))}
        selected = self.selected_item()
        old = self.model.history.entries
        place = self.follow.before() if self.model.rowCount() else None   # (a first read starts at the top)
        self.model.set_history(history, cursor, dream_cursor, in_prompt, home_zone)
        self._fill_sessions()
        if isinstance(selected, HistoryEntry):          # keep the selection across a reload
            self.select_cursor(selected.cursor, clear_filters=False)
        if place is not None:
            self.follow.after(place, self._appended_rows(old[-1].cursor if old else None))
        self._update_count()

    def select_cursor(self, cursor: int, clear_filters: bool = True) -> bool:
        """Select and scroll to the entry with that cursor; clears the filters if they hide it."""
        row = self.model.row_for_cursor(cursor)
        return row is not None and select_source_row(self.table, self.proxy, row,
                                                     self.clear_filters if clear_filters else None)

    def clear_filters(self) -> None:
        reset_filters(self._debounce, self.filter_edit, (self.session_combo,), self._apply_filter)

    def selected_item(self) -> HistoryEntry | BadLine | None:
        index = self.table.currentIndex()
        if not index.isValid() or not self.table.selectionModel().isRowSelected(index.row(), index.parent()):
            return None
        return self.item_at(index)

    def item_at(self, proxy_index) -> HistoryEntry | BadLine | None:
        """The entry or unreadable line at a table index (None for a marker)."""
        if not proxy_index.isValid():
            return None
        return self.model.item(self.proxy.mapToSource(proxy_index).row())

    def current_session(self) -> str | None:
        i = self.session_combo.currentIndex()
        return self._session_keys[i] if 0 <= i < len(self._session_keys) else None

    # ---- internals -------------------------------------------------------------------------

    def _appended_rows(self, last: int | None) -> int:
        """The shown rows of entries after `last` (the end of the history shown before), when the
        history grew at its end; 0 when it is another one (not one `last` is in)."""
        if last is None or self.model.row_for_cursor(last) is None:
            return 0
        return sum(1 for row in self.model.entry_rows_after(last)
                   if self.proxy.mapFromSource(self.model.index(row, 0)).isValid())

    def _fill_sessions(self) -> None:
        current = self.current_session()
        self.session_combo.blockSignals(True)
        self.session_combo.clear()
        self._session_keys = [None] + self.model.sessions()
        for key in self._session_keys:
            self.session_combo.addItem(ALL_SESSIONS if key is None else NO_SESSION_LABEL if key == NO_SESSION else key)
        i = self._session_keys.index(current) if current in self._session_keys else 0
        self.session_combo.setCurrentIndex(i)
        self.session_combo.blockSignals(False)
        self._apply_filter()

    def _apply_filter(self) -> None:
        self._debounce.stop()
        self.proxy.set_filter(self.filter_edit.text(), self.current_session())
        self._update_count()

    def _after_rows_change(self, *args) -> None:
        """Marker rows span the whole width (they are visible only while nothing is filtered)."""
        self.table.clearSpans()
        for src_row in self.model.marker_rows:
            if src_row < self.model.rowCount():
                index = self.proxy.mapFromSource(self.model.index(src_row, 0))
                if index.isValid():
                    self.table.setSpan(index.row(), 0, 1, self.model.columnCount())
        if not self.table.currentIndex().isValid():
            self.detail.clear()

    def _update_count(self) -> None:
        m = self.model
        parts = [_plural(m.entry_count, "entry", "entries"), f"{m.pending_count:,} pending"]
        if m.bad_count:
            parts.append(_plural(m.bad_count, "unreadable line", "unreadable lines"))
        text = " · ".join(parts)
        if self.proxy.is_active():
            shown = self.proxy.rowCount()
            text += f" · {_plural(shown, 'row', 'rows')} match"
        self.count_label.setText(text)

    def _show_current(self, current, previous) -> None:
        item = self.item_at(current)
        self.detail.setPlainText(detail_text(self.model, item) if item is not None else "")

    def _on_double_click(self, index) -> None:
        item = self.item_at(index)
        if isinstance(item, HistoryEntry):
            self.entryActivated.emit(item.cursor)

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.PaletteChange:
            self.model.set_palette(self.palette())
        super().changeEvent(event)
