"""Prompt preview: what a new chat would receive, part by part, with characters and tokens, a
stacked bar of the total, and the pending entries cut by the 50 / ~8,000-token cap."""

from __future__ import annotations

from dreamdesk.engine.assistants.prompt import PENDING_MAX_ENTRIES, PENDING_MAX_TOKENS, PromptPreview

from ..qt import (QColor, QFontDatabase, QHeaderView, QLabel, QPainter, QPalette, QPlainTextEdit,
                  QSizePolicy, QSplitter, Qt, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)
from ..widgets.table_fit import RowsFit
from .common import show_focus

PART_COLOURS = ["#5b8def", "#3fa34d", "#9b59b6", "#e0a100", "#16a085", "#d35400", "#7f8c8d"]


class StackedBar(QWidget):
    """One bar, one segment per included part, proportional to its tokens."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.parts: list[tuple[str, int, str]] = []
        self.setFixedHeight(30)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def set_parts(self, parts: list[tuple[str, int, str]]) -> None:
        self.parts = parts
        total = sum(t for _, t, _ in parts) or 1
        self.setToolTip("\n".join(f"{n}: {t:,} tokens ({t / total:.0%})" for n, t, _ in parts))
        self.update()

    def paintEvent(self, event) -> None:  # noqa: N802
        p = QPainter(self)
        total = sum(t for _, t, _ in self.parts)
        w, h = self.width(), self.height()
        if total <= 0:
            p.end()
            return
        x = 0.0
        for name, tokens, colour in self.parts:
            seg = w * tokens / total
            p.fillRect(int(x), 0, max(1, int(round(seg))), h, QColor(colour))
            if seg > p.fontMetrics().horizontalAdvance(name) + 8:
                p.setPen(QColor("white"))
                p.drawText(int(x) + 4, 0, int(seg) - 8, h, Qt.AlignmentFlag.AlignVCenter, name)
            x += seg
        p.end()


class PromptView(QWidget):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        lay = QVBoxLayout(self)
        self.total = QLabel()
        self.total.setWordWrap(True)
        self.total.setStyleSheet("font-weight: bold;")
        lay.addWidget(self.total)
        self.bar = StackedBar()
        lay.addWidget(self.bar)
        self.table = QTableWidget(0, 4)
        self.table.setHorizontalHeaderLabels(["Part", "Characters", "Tokens (est.)", "Note"])
        self.table.verticalHeader().hide()
        self.table.setTabKeyNavigation(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.table.horizontalHeader().setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        self.table.itemSelectionChanged.connect(self._show_selected)
        show_focus(self.table)
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.addWidget(self.table)
        self.splitter.addWidget(self.text)
        self.splitter.setStretchFactor(1, 1)
        self.rows = RowsFit(self.splitter, self.table)     # every part in sight, the text the rest
        lay.addWidget(self.splitter, 1)
        self.preview: PromptPreview | None = None

    def set_preview(self, pv: PromptPreview) -> None:
        self.preview = pv
        row_before = self.table.currentRow()
        self.table.setRowCount(len(pv.parts))
        bar = []
        for i, part in enumerate(pv.parts):
            colour = PART_COLOURS[i % len(PART_COLOURS)]
            cells = [part.name, f"{part.chars:,}", f"{part.tokens:,}", part.note]
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if c in (1, 2):
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if not part.included:
                    item.setForeground(self.palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text))
                if c == 0 and part.included:
                    item.setForeground(QColor(colour))
                self.table.setItem(i, c, item)
            if part.included:
                bar.append((part.name, part.tokens, colour))
        self.table.resizeColumnsToContents()
        self.table.horizontalHeader().setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        self.bar.set_parts(bar)
        cut = (f" · {pv.pending_cut} older pending entr{'y' if pv.pending_cut == 1 else 'ies'} cut by the "
               f"{PENDING_MAX_ENTRIES}-entry / ~{PENDING_MAX_TOKENS:,}-token cap" if pv.pending_cut else "")
        who = f", as {pv.assistant.label} builds it" if pv.assistant else ""
        self.total.setText(f"A new chat receives {pv.total_chars:,} characters, ~{pv.total_tokens:,} tokens "
                           f"(estimated as UTF-8 bytes / 4){who}{cut}")
        self.total.setToolTip("\n".join(pv.assistant.why) if pv.assistant else "")
        if 0 <= row_before < len(pv.parts):
            self.table.selectRow(row_before)
        else:
            self.table.selectRow(0)
        self._show_selected()

    def _show_selected(self) -> None:
        if self.preview is None:
            return
        row = self.table.currentRow()
        if not 0 <= row < len(self.preview.parts):
            self.text.setPlainText("")
            return
        part = self.preview.parts[row]
        if part.name == "Pending history":
            text = part.text if part.included else "(no unprocessed history)"
            if self.preview.pending_cut:
                text = (f"[{self.preview.pending_cut} older pending entries are not in the prompt: cut by the cap]\n\n"
                        + text)
            self.text.setPlainText(text)
            return
        if not part.included:
            self.text.setPlainText(f"({part.note})\n\n{part.text}" if part.text else f"({part.note})")
            return
        self.text.setPlainText(part.text)
