"""What the table views share: the read-only table set-up (with a focus that can be seen), the
detail splitter and empty notice, typing into a table's search field, selecting a row through a
filter proxy, and workspace reads that drop stale answers."""

from __future__ import annotations

from collections.abc import Callable

from ..qt import (QAbstractItemView, QColor, QComboBox, QEvent, QHeaderView, QLabel, QLineEdit, QObject, QPainter, QPalette,
                  QSplitter, Qt, QTableView, QTimer, QWidget)
from ..context.worker import Latest


def setup_table(table: QTableView, model, selection: QAbstractItemView.SelectionMode,
                pixel_scroll: bool = True) -> None:
    """A read-only, row-selecting table with uniform row heights (so long tables stay fast) and
    interactive columns, the last one stretching."""
    table.setModel(model)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(selection)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setWordWrap(False)
    table.setTextElideMode(Qt.ElideRight)
    table.setAlternatingRowColors(True)
    table.setShowGrid(False)
    table.setTabKeyNavigation(False)     # Tab moves on to the next control; arrows move between rows
    if pixel_scroll:
        table.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
    vh = table.verticalHeader()
    vh.setVisible(False)
    vh.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
    vh.setDefaultSectionSize(table.fontMetrics().height() + 8)
    hh = table.horizontalHeader()
    hh.setHighlightSections(False)
    hh.setDefaultAlignment(Qt.AlignLeft | Qt.AlignVCenter)
    hh.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    hh.setStretchLastSection(True)
    show_focus(table)


class _FocusFrame(QWidget):
    """A 1-pixel frame in the palette's highlight colour over a table while it has the focus.
    Painted, not a style sheet: a style sheet on the table would stop a palette set on one of
    its parents (a dark one, say) from reaching it."""

    def __init__(self, table: QTableView):
        super().__init__(table)
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.hide()
        table.installEventFilter(self)

    def eventFilter(self, table, event) -> bool:  # noqa: N802 (Qt name)
        if event.type() in (QEvent.Type.FocusIn, QEvent.Type.FocusOut, QEvent.Type.Resize):
            self.setGeometry(table.rect())
            self.setVisible(table.hasFocus())
            self.raise_()
        return False

    def paintEvent(self, _event) -> None:  # noqa: N802
        painter = QPainter(self)
        painter.setPen(self.palette().color(QPalette.ColorRole.Highlight))
        painter.drawRect(self.rect().adjusted(0, 0, -1, -1))


class _FocusRow(QObject):
    """A table reached with Tab (or Shift+Tab) shows where the keys act: its current row (the
    first, when none was chosen yet) is selected, as a click would have selected it."""

    def eventFilter(self, table, event) -> bool:  # noqa: N802
        if event.type() == QEvent.Type.FocusIn and event.reason() in (Qt.FocusReason.TabFocusReason,
                                                                      Qt.FocusReason.BacktabFocusReason):
            sel, model, header = table.selectionModel(), table.model(), table.horizontalHeader()
            shown = [c for c in map(header.logicalIndex, range(header.count())) if not header.isSectionHidden(c)]
            if sel is not None and model is not None and model.rowCount() and shown and not sel.hasSelection():
                index = table.currentIndex()
                select_row_only(table, index if index.isValid() else model.index(0, shown[0]))
        return False


def show_focus(table: QTableView) -> None:
    """Keyboard focus a person can see on a table (issue 25.12): a frame in the highlight colour
    while it has the focus, and the current row selected when Tab brings the focus in."""
    _FocusFrame(table)
    table.installEventFilter(_FocusRow(table))


class _TypeToSearch(QObject):
    def __init__(self, table: QTableView, edit: QLineEdit):
        super().__init__(table)
        self.edit = edit

    def eventFilter(self, table, event) -> bool:  # noqa: N802
        if event.type() != QEvent.Type.KeyPress:
            return False
        mods = event.modifiers() & (Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier
                                    | Qt.KeyboardModifier.MetaModifier)
        text = event.text()
        if mods or not text or not text.isprintable() or text.isspace():
            return False
        self.edit.setFocus(Qt.FocusReason.OtherFocusReason)
        self.edit.end(False)
        self.edit.insert(text)
        return True


def type_to_search(table: QTableView, edit: QLineEdit) -> None:
    """What is typed in the table goes on in its search field, where it can be seen (instead of
    the item view's invisible jump to a row starting with those letters)."""
    table.installEventFilter(_TypeToSearch(table, edit))


def detail_splitter(name: str, table: QWidget, detail: QWidget, stretch: tuple[int, int],
                    sizes: list[int]) -> QSplitter:
    """The table above its detail pane; neither can be collapsed away."""
    splitter = QSplitter(Qt.Vertical)
    splitter.setObjectName(name)
    splitter.setChildrenCollapsible(False)
    splitter.addWidget(table)
    splitter.addWidget(detail)
    splitter.setStretchFactor(0, stretch[0])
    splitter.setStretchFactor(1, stretch[1])
    splitter.setSizes(sizes)
    return splitter


def empty_notice(text: str) -> QLabel:
    """The rich-text explanation shown instead of an empty table."""
    label = QLabel(text)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.RichText)
    label.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
    label.setContentsMargins(24, 24, 24, 24)
    label.setMaximumWidth(720)
    return label


def select_source_row(table: QTableView, proxy, row: int,
                      clear_filters: Callable[[], None] | None = None) -> bool:
    """Select, make current and centre a source-model row. When the filters hide it, call
    clear_filters and try again (None: give up instead)."""
    model = proxy.sourceModel()
    index = proxy.mapFromSource(model.index(row, 0))
    if not index.isValid():
        if clear_filters is None:
            return False
        clear_filters()
        index = proxy.mapFromSource(model.index(row, 0))
    select_row_only(table, index)
    table.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtCenter)
    return True


def select_row_only(table: QTableView, index) -> None:
    """Make `index`'s row the selection and the current row, whatever keys are held: the view's
    own setCurrentIndex reads the keyboard's modifiers (a Ctrl still down toggles the row off)."""
    sel = table.selectionModel()
    sel.setCurrentIndex(index, sel.SelectionFlag.ClearAndSelect | sel.SelectionFlag.Rows)


def reset_filters(debounce: QTimer, edit: QLineEdit, combos: tuple[QComboBox, ...],
                  apply: Callable[[], None]) -> None:
    """Empty the search and put every combo on its first ("All …") item, then filter once
    (signals are blocked so each widget does not trigger a pass of its own)."""
    debounce.stop()
    widgets = (edit, *combos)
    for w in widgets:
        w.blockSignals(True)
    edit.clear()
    for combo in combos:
        combo.setCurrentIndex(0)
    for w in widgets:
        w.blockSignals(False)
    apply()


def _shown(view) -> bool:
    """The view is on screen now: its read goes before those of hidden ones."""
    visible = getattr(view, "isVisible", None)
    return bool(visible and visible())


def read_latest(view, latest: Latest, what: str, job: Callable, done: Callable[[object], None],
                failed: Callable[[str], None]) -> None:
    """Run job(ws) for view.ws on the engine's reader thread. Only the newest request's answer
    is applied, and only while the view still shows that workspace; a failure is reported
    unless a newer request has superseded it (that one reports for itself)."""
    ws = view.ws
    if ws is None:
        return
    token = latest.next()
    # a request superseded before its turn on the reader lane never runs; its answer, or its
    # failure, is dropped by the engine once a newer one was asked or the view shows another workspace
    view.engine.read(what, lambda ctx: job(ws) if latest.current(token) else None, done,
                     lambda msg, tb: failed(msg), first=_shown(view),
                     wanted=lambda: latest.current(token) and ws is view.ws)


def link_color(palette: QPalette) -> QColor:
    """The palette's link colour, or a readable one when it is too close to the background (rich
    text takes its default link colour from the application palette, not the widget's)."""
    base = palette.color(QPalette.Active, QPalette.Base)
    link = palette.color(QPalette.Active, QPalette.Link)
    if abs(link.lightness() - base.lightness()) < 90:
        dark = base.lightness() < 128
        link = QColor(127, 180, 255) if dark else QColor(20, 80, 200)
    return link
