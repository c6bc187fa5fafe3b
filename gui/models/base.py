"""What the read-only table models share: colour and tooltip helpers, and a small base class
for the header, flags and palette plumbing (the rows and cells stay each model's own)."""

from __future__ import annotations

import html

from ..qt import QAbstractTableModel, QColor, QModelIndex, QPalette, Qt

TOOLTIP_CHARS = 4000
RIGHT = Qt.AlignRight | Qt.AlignVCenter
# Built once: flags() is called for every cell a selection touches, and or-ing enums is slow.
FLAGS = Qt.ItemIsEnabled | Qt.ItemIsSelectable | Qt.ItemNeverHasChildren
# The roles read once: PySide6 finds the flat spelling (Qt.DisplayRole) through a compatibility
# hook at ~10 µs a lookup, and data() asks several per visible cell on every paint.
DISPLAY, TOOLTIP, FOREGROUND, FONT, ALIGNMENT = (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole,
                                                 Qt.ItemDataRole.ForegroundRole, Qt.ItemDataRole.FontRole,
                                                 Qt.ItemDataRole.TextAlignmentRole)
HORIZONTAL, VERTICAL = Qt.Orientation.Horizontal, Qt.Orientation.Vertical


def blend(a: QColor, b: QColor, t: float) -> QColor:
    """a moved a fraction t towards b."""
    return QColor(round(a.red() + (b.red() - a.red()) * t),
                  round(a.green() + (b.green() - a.green()) * t),
                  round(a.blue() + (b.blue() - a.blue()) * t))


def rich_tooltip(text: str) -> str:
    """Rich text so Qt wraps long lines (a plain-text tooltip is one screen-wide line)."""
    if len(text) > TOOLTIP_CHARS:
        text = text[:TOOLTIP_CHARS] + "…"
    return f"<p style='white-space:pre-wrap'>{html.escape(text)}</p>"


def theme(palette: QPalette) -> tuple[QColor, QColor, bool]:
    """(text colour, base colour, is it a dark theme): what every derived colour starts from."""
    text = palette.color(QPalette.Active, QPalette.Text)
    base = palette.color(QPalette.Active, QPalette.Base)
    return text, base, base.lightness() < 128


class TableModel(QAbstractTableModel):
    """Subclasses set COLUMNS and COLUMN_TIPS, implement rowCount (and _palette_colors for colours), and
    call set_palette(QApplication.palette()) once their rows exist."""

    COLUMNS: tuple[str, ...] = ()
    COLUMN_TIPS: tuple[str, ...] = ()
    RIGHT_COLUMNS: frozenset[int] = frozenset()       # right-aligned (numbers): header and cells
    PALETTE_ROLES = (Qt.ForegroundRole,)              # what a palette change repaints

    def _palette_colors(self, palette: QPalette) -> dict[str, QColor]:
        return {}    # a model with no colours of its own draws in the palette's defaults

    def set_palette(self, palette: QPalette) -> None:
        """Colours derive from the palette so a dark theme stays readable; repaints all rows."""
        self._colors = self._palette_colors(palette)
        n = self.rowCount()
        if n:
            self.dataChanged.emit(self.index(0, 0), self.index(n - 1, len(self.COLUMNS) - 1),
                                  list(self.PALETTE_ROLES))

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(self, section, orientation, role=DISPLAY):
        if orientation == HORIZONTAL and 0 <= section < len(self.COLUMNS):
            if role == DISPLAY:
                return self.COLUMNS[section]
            if role == TOOLTIP:
                return self.COLUMN_TIPS[section]
            if role == ALIGNMENT and section in self.RIGHT_COLUMNS:
                return RIGHT
        elif orientation == VERTICAL and role == DISPLAY and 0 <= section < self.rowCount():
            return str(section + 1)
        return None

    def flags(self, index):
        return FLAGS if index.isValid() else Qt.NoItemFlags
