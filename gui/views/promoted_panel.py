"""The panel beside the Files view's editor listing the entries of the file open that the
assistant's own dreaming promoted (issue 28 item 4): when, score, recalls and source of each;
choosing one puts the editor's cursor on it, and the link under the list opens the lines it was
promoted from. Hidden when the file has no such entry (a nanobot or Jenny home, USER.md)."""

from __future__ import annotations

import html

from ..models.promoted_model import PromotedModel
from ..qt import (QAbstractItemView, QApplication, QFont, QFontMetrics, QLabel, QListView, QPalette, QRect, QSize,
                  QStyle, QStyledItemDelegate, QStyleOptionViewItem, Qt, QVBoxLayout, QWidget, Signal)

PANEL_WIDTH = 300       # its width when it first shows: a source path and lines whole
PAD = 4                 # an item's margin around its text
WRAP = Qt.TextFlag.TextWordWrap | Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop


def lines_href(path: str, start: int, end: int) -> str:
    """The link that opens `path` with lines start–end (1-based) selected (FilesView follows it)."""
    return f"lines:{path}:{start}:{end}"


def source_html(source: tuple[str, int, int], exists: bool | None = True) -> str:
    """The note and lines an entry came from: a link that opens them, plain words when the note is gone."""
    path, start, end = source
    words = f"{html.escape(path)} lines {start}–{end}"
    if exists is False:
        return f"{words} (the note is gone)"
    return f"<a href='{html.escape(lines_href(path, start, end))}'>{words}</a>"


class WrappedItems(QStyledItemDelegate):
    """Items of a few lines, each wrapped to the list's width, the first in bold: measured and
    painted with the same rectangles, so an item is always as tall as its text."""

    def __init__(self, view: QListView):
        super().__init__(view)
        self.view = view

    def _parts(self, option, text: str) -> tuple[QFont, str, str, int]:
        bold = QFont(option.font)
        bold.setBold(True)
        head, _, rest = text.partition("\n")
        width = max(self.view.viewport().width() - 2 * (PAD + self.view.spacing()), 40)
        return bold, head, rest, width

    def _heights(self, option, text: str) -> tuple[int, int]:
        bold, head, rest, width = self._parts(option, text)
        tall = QRect(0, 0, width, 1 << 20)
        top = QFontMetrics(bold).boundingRect(tall, WRAP, head).height()
        return top, option.fontMetrics.boundingRect(tall, WRAP, rest).height() if rest else 0

    def sizeHint(self, option, index) -> QSize:  # noqa: N802
        text = str(index.data() or "")
        top, below = self._heights(option, text)
        return QSize(self._parts(option, text)[3] + 2 * PAD, top + below + 2 * PAD)

    def paint(self, painter, option, index) -> None:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        text, opt.text = str(index.data() or ""), ""     # (opt.text has its newlines made line separators)
        style = opt.widget.style() if opt.widget is not None else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)   # background, selection
        bold, head, rest, width = self._parts(opt, text)
        top, below = self._heights(opt, text)
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        painter.save()
        painter.setPen(opt.palette.color(QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text))
        x, y = opt.rect.left() + PAD, opt.rect.top() + PAD
        painter.setFont(bold)
        painter.drawText(QRect(x, y, width, top), WRAP, head)
        painter.setFont(opt.font)
        painter.drawText(QRect(x, y + top, width, below), WRAP, rest)
        painter.restore()


class PromotedPanel(QWidget):
    lineChosen = Signal(int)        # a person chose an entry: its first line (1-based)
    linkActivated = Signal(str)     # a link in the detail (lines_href)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("promotedPanel")
        self.model = PromotedModel(self)
        self.title = QLabel()
        self.title.setToolTip("The entries of this file that the assistant's own dreaming promoted, with where "
                              "each came from (its promotion markers). Choose one to go to it in the editor.")
        self.list = QListView()
        self.list.setAccessibleName("Promoted entries")
        self.list.setModel(self.model)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.list.setAlternatingRowColors(True)
        # each item wrapped to the panel's width (a path or an entry is never cut off behind a scroll bar)
        self.list.setWordWrap(True)
        self.list.setResizeMode(QListView.ResizeMode.Adjust)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setSpacing(2)
        self.list.setItemDelegate(WrappedItems(self.list))
        self.detail = QLabel()
        self.detail.setTextFormat(Qt.TextFormat.RichText)
        self.detail.setWordWrap(True)
        self.detail.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        self.detail.linkActivated.connect(self.linkActivated)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.title)
        lay.addWidget(self.list, 1)
        lay.addWidget(self.detail)
        self._following = False
        self.list.selectionModel().currentRowChanged.connect(self._current_changed)
        self.list.clicked.connect(lambda index: self._chosen(index.row()))
        self.hide()

    def set_notes(self, notes) -> None:
        """The notes of the file just loaded (base.EntryNote): shown when any is a promotion."""
        self.model.set_notes(notes)
        n = self.model.rowCount()
        self.title.setText(f"<b>Promoted entries ({n})</b>")
        self._show_detail(None)
        self.setVisible(n > 0)

    def follow(self, line: int) -> None:
        """The editor's cursor is on `line` (1-based): its entry's item selected, nothing sent back."""
        row = self.model.row_at_line(line)
        if row is None or row == self.list.currentIndex().row():
            return
        self._following = True
        try:
            sel = self.list.selectionModel()
            sel.setCurrentIndex(self.model.index(row), sel.SelectionFlag.ClearAndSelect)
            self.list.scrollTo(self.model.index(row))
        finally:
            self._following = False

    def current_lines(self) -> tuple[int, int] | None:
        """The chosen entry's first and last lines (1-based), or None."""
        note = self.model.note(self.list.currentIndex().row())
        return (note.start_line, note.end_line) if note is not None else None

    def _current_changed(self, current, _previous) -> None:
        self._show_detail(self.model.note(current.row()))
        if not self._following:
            self._chosen(current.row())

    def _chosen(self, row: int) -> None:
        note = self.model.note(row)
        if note is not None:
            self.lineChosen.emit(note.start_line)

    def _show_detail(self, note) -> None:
        """The chosen entry whole, and the link to the lines it came from."""
        if note is None:
            self.detail.setText("Choose an entry to go to it and see where it came from." if self.model.rowCount()
                                else "")
            return
        out = [f"<b>Line {note.start_line}</b>: {html.escape(note.title)}"]
        if note.source is not None:
            out.append("from " + source_html(note.source, note.promoted.source_exists))
        out.append(f"<i>{html.escape(note.promoted.text)}</i>")
        self.detail.setText("<br>".join(out))
