"""How a table's columns share the width they are given (issue 25.6): every column as wide as
its header and the cells in sight (only those are measured: a 100,000-row history stays quick),
none wider than a quarter of the table, a text column ("elastic") taking what is left; when they
do not all fit, the widest are cut back to one level, so the short ones stay whole. A cell that
is still too narrow is elided in the middle (a path, a key, a commit keeps both ends; prose is
cut at its end), and its tooltip starts with the whole text. A column the user resized by hand
keeps the width given to it.

Also how tall a table is for a number of rows, for the splitters that give it room for ten."""

from __future__ import annotations

import html
import re

from ..qt import (QEvent, QFont, QFontMetrics, QObject, QSplitter, QStyle, QStyledItemDelegate, QStyleOptionViewItem,
                  Qt, QTableView, QTimer, QToolTip, isValid)

SHOWN_ROWS = 10         # what a table's splitter leaves it room for, when it has that many rows
SAMPLE_MARGIN = 16      # a cell's margins around a sample text, as the delegate lays a cell out


def says(tip: str, text: str) -> bool:
    """Does a tooltip (plain or rich) already hold the cell's text (its whitespace collapsed, a
    trailing "…" of a preview dropped)?"""
    want = " ".join(text.split()).rstrip("…").strip()
    plain = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", tip)).split())
    return not want or want in plain


def whole_tip(text: str, tip: str) -> str:
    """The tooltip of an elided cell: its whole text, then the model's tooltip when that does not
    already hold it."""
    if says(tip or "", text):
        return tip or ""
    first = f"<p style='white-space:pre-wrap'><b>{html.escape(text)}</b></p>"
    if not tip:
        return first
    rich = tip.lstrip().startswith("<")
    return first + (tip if rich else f"<p style='white-space:pre-wrap'>{html.escape(tip)}</p>")


class ElidingDelegate(QStyledItemDelegate):
    """Elides a cell in the middle, or a prose column's at its end; an elided cell's tooltip
    carries its whole text (whole_tip)."""

    def __init__(self, parent: QObject | None = None, prose: frozenset[int] = frozenset()):
        super().__init__(parent)
        self.prose = frozenset(prose)

    def initStyleOption(self, option, index) -> None:  # noqa: N802
        super().initStyleOption(option, index)
        option.textElideMode = Qt.TextElideMode.ElideRight if index.column() in self.prose \
            else Qt.TextElideMode.ElideMiddle

    def elided(self, view: QTableView, index) -> bool:
        """Is this cell's text cut where the view shows it now?"""
        opt = QStyleOptionViewItem()
        opt.initFrom(view)
        opt.rect = view.visualRect(index)
        self.initStyleOption(opt, index)
        text = opt.text or ""
        style = view.style()
        room = style.subElementRect(QStyle.SubElement.SE_ItemViewItemText, opt, view).width()
        room -= 2 * (style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, view) + 1)
        return bool(text) and opt.fontMetrics.horizontalAdvance(text) > room

    def tooltip(self, view: QTableView, index) -> str:
        """What hovering the cell shows."""
        tip = index.data(Qt.ItemDataRole.ToolTipRole)
        tip = tip if isinstance(tip, str) else ""
        if not self.elided(view, index):
            return tip
        text = index.data(Qt.ItemDataRole.DisplayRole)
        return whole_tip(text if isinstance(text, str) else "", tip)

    def helpEvent(self, event, view, option, index) -> bool:  # noqa: N802
        if event.type() == QEvent.Type.ToolTip and index.isValid() and isinstance(view, QTableView):
            tip = self.tooltip(view, index)
            if tip:
                QToolTip.showText(event.globalPos(), tip, view, view.visualRect(index))
            else:
                QToolTip.hideText()
            return True
        return super().helpEvent(event, view, option, index)


def soon(owner: QObject, slot, model, layout: bool = False) -> QTimer:
    """A timer calling `slot` once the event loop is back, started by every change of `model`'s
    rows (and with `layout`, of their order): by then the table has laid the change out."""
    timer = QTimer(owner)
    timer.setSingleShot(True)
    timer.setInterval(0)
    timer.timeout.connect(slot)
    signals = [model.modelReset, model.rowsInserted, model.rowsRemoved] + ([model.layoutChanged] if layout else [])
    for signal in signals:
        signal.connect(timer.start)
    return timer


def shared_widths(wants: dict[int, int], room: int, floors: dict[int, int]) -> dict[int, int]:
    """Widths for columns wanting `wants` in `room` pixels: all of it when it fits; else every
    column above one level is cut to it (never below its floor), the narrow ones kept whole."""
    if sum(wants.values()) <= room:
        return dict(wants)
    level_lo, level_hi = 0, max(wants.values())
    while level_lo < level_hi:                    # the highest level at which everything fits
        mid = (level_lo + level_hi + 1) // 2
        if sum(max(min(w, mid), floors.get(c, 0)) for c, w in wants.items()) <= room:
            level_lo = mid
        else:
            level_hi = mid - 1
    return {c: max(min(w, level_lo), floors.get(c, 0)) for c, w in wants.items()}


class ColumnFit(QObject):
    """Keeps `table`'s columns fitted: measured again when its rows change, laid out again when
    its width does. No other column takes more than `most` of the width (a long status or label
    is elided instead); `elastic`, the text column, takes the room left, at least `least` pixels;
    `prose`: columns elided at their end; `samples`: a text a column may hold further down, out of
    sight (a status word), that it is kept wide enough for (in bold too)."""

    def __init__(self, table: QTableView, elastic: int | None = None, prose: tuple[int, ...] = (),
                 least: int = 200, most: float = 0.25, samples: dict[int, str] | None = None):
        super().__init__(table)
        self.table, self.elastic, self.least, self.most = table, elastic, least, most
        bold = QFont(table.font())
        bold.setBold(True)
        self.samples = {c: QFontMetrics(bold).horizontalAdvance(text) + SAMPLE_MARGIN
                        for c, text in (samples or {}).items()}
        self.wants: dict[int, int] = {}
        self.user_sized: set[int] = set()
        self._sizing = False
        self._dragging = False      # a mouse button is down on the header: a resize then is the user's
        if not isinstance(table.itemDelegate(), ElidingDelegate):
            table.setItemDelegate(ElidingDelegate(table, frozenset(prose) | ({elastic} - {None})))
        header = table.horizontalHeader()
        header.setResizeContentsPrecision(0)       # the rows in sight (a hidden table: every row, so not then)
        header.sectionResized.connect(self._resized)
        self._later = soon(self, self.fit, table.model(), layout=True)
        self._viewport, self._header_viewport = table.viewport(), header.viewport()
        for watched in (table, self._viewport, self._header_viewport):
            watched.installEventFilter(self)

    def fit(self) -> None:
        """Measure every shown column again, then share the width out."""
        self._later.stop()
        t, header = self.table, self.table.horizontalHeader()
        if not t.isVisible():
            self.wants = {}              # measured when shown (the viewport's first resize)
            return
        self.wants = {c: max(t.sizeHintForColumn(c), header.sectionSizeHint(c), self.samples.get(c, 0))
                      for c in range(header.count()) if not t.isColumnHidden(c)}
        self.lay_out()

    def lay_out(self) -> None:
        """Share the viewport's width out by the last measure (a resize measures nothing)."""
        t, header = self.table, self.table.horizontalHeader()
        shown = {c: w for c, w in self.wants.items() if not t.isColumnHidden(c)}
        if not shown:
            return
        room = t.viewport().width()
        fixed = {c: w for c, w in shown.items() if c != self.elastic and c not in self.user_sized}
        taken = sum(t.columnWidth(c) for c in self.user_sized if c in shown)
        elastic = self.elastic if self.elastic in shown and self.elastic not in self.user_sized else None
        keep = self.least if elastic is not None else 0
        floors = {c: header.sectionSizeHint(c) for c in fixed}
        capped = {c: min(w, max(int(room * self.most), floors[c])) for c, w in fixed.items()}
        widths = shared_widths(capped, max(room - taken - keep, 0), floors)
        if elastic is not None:
            widths[elastic] = max(keep, room - taken - sum(widths.values()))
        self._sizing = True
        try:
            for c, w in widths.items():
                t.setColumnWidth(c, w)
        finally:
            self._sizing = False

    def _resized(self, section: int, old: int, new: int) -> None:
        if self._dragging and not self._sizing:
            self.user_sized.add(section)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802
        kind = event.type()
        if kind in (QEvent.Type.MouseButtonPress, QEvent.Type.MouseButtonRelease):
            if obj is self._header_viewport:
                self._dragging = kind == QEvent.Type.MouseButtonPress
        elif kind == QEvent.Type.Show and obj is self.table:
            self._later.start()
        elif kind == QEvent.Type.Resize and obj is self._viewport:
            if self.wants:
                self.lay_out()
            else:
                self.fit()
        return False


def rows_height(table: QTableView, rows: int) -> int:
    """The height `table` needs to show `rows` whole rows under its header (and its horizontal
    scroll bar, when that shows)."""
    bar = table.horizontalScrollBar()
    return (table.horizontalHeader().sizeHint().height() + rows * table.verticalHeader().defaultSectionSize()
            + 2 * table.frameWidth() + (bar.sizeHint().height() if bar.isVisible() else 0))


class RowsFit(QObject):
    """A table above its detail in `splitter`, given the height of its rows (3 to SHOWN_ROWS of
    them, at most `share` of the height) and the detail the rest, until the person moves the
    splitter (or the sizes they chose are restored: keep()). A resize fits them again to the new
    height (the panes' sizes still hold the old one then)."""

    def __init__(self, splitter: QSplitter, table: QTableView, share: float = 0.55):
        super().__init__(splitter)
        self.splitter, self.table, self.share = splitter, table, share
        self.kept = False
        splitter.splitterMoved.connect(self.keep)
        self._later = soon(self, self.fit, table.model())
        table.horizontalScrollBar().rangeChanged.connect(self._later.start)   # it comes or goes
        splitter.installEventFilter(self)

    def keep(self, *_args) -> None:
        self.kept = True

    def fit(self, *_args, total: int | None = None) -> None:
        """Share `total` pixels (the panes' sizes now, when not given) between table and detail."""
        if self.kept or not isValid(self.table):      # (a table being taken down empties its model)
            return
        rows = min(max(self.table.model().rowCount(), 3), SHOWN_ROWS)
        total = total or sum(self.splitter.sizes()) or max(self.splitter.height(), 600)
        want = min(rows_height(self.table, rows), int(total * self.share))
        self.splitter.setSizes([want, max(total - want, 100)])

    def eventFilter(self, obj, event) -> bool:  # noqa: N802
        if event.type() == QEvent.Type.Resize and obj is self.splitter:
            # the splitter lays its panes out after this filter: fitted to the old sizes' sum, the
            # table then took a share of the change (1280×820 → 720 left 2.5 of 3 runs in sight)
            self.fit(total=max(event.size().height() - self.splitter.handleWidth(), 0))
        return False
