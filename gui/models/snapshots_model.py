"""The snapshot timeline: one row per snapshot (newest first, as SnapshotStore.list() gives
them) with its time, a kind badge, its message and the per-file +/- line counts. The badge and
the coloured counts are painted by TimelineDelegate; the model itself gives plain text, so a
screen reader or a copy gets the same information."""

from __future__ import annotations

import html

from dreamdesk.engine.core import clock
from dreamdesk.engine.versions.snapshots import AUTHOR_NAME, Snapshot

from ..qt import QAbstractTableModel, QColor, QModelIndex, QPalette, QRect, QSize, QStyle, QStyleOptionViewItem, Qt
from ..widgets.table_fit import ElidingDelegate

SnapshotRole = Qt.UserRole + 1     # the engine Snapshot
KindRole = Qt.UserRole + 2         # the badge text ("dream", "nanobot init", …)
ShaRole = Qt.UserRole + 3
FilesRole = Qt.UserRole + 4        # {path: (added, removed)}

COL_TIME, COL_KIND, COL_MESSAGE, COL_FILES = range(4)
SEPARATOR, SKIPPED = "  ·  ", "…"
COLUMNS = ("When", "Kind", "Message", "Files changed (+/− lines)")
COLUMN_TIPS = (
    "When the snapshot was taken (local time)",
    "pre-dream: taken before a Dream run · dream: what a Dream run wrote · restore: a restore · "
    "edit: your edit · snapshot: the state just before a restore · nanobot …: written by nanobot itself",
    "The commit message",
    "Lines added and removed in each file by this snapshot, against the one before it",
)

KIND_COLOURS = {
    "pre-dream": "#5b7a99", "dream": "#7b4fc4", "restore": "#c0661a", "edit": "#1f8a80",
    "snapshot": "#6f7b86", "nanobot init": "#3a8a3a", "nanobot dream": "#8e44ad", "nanobot revert": "#c0392b",
    "other": "#7f8c8d",
}


def badge_of(snap: Snapshot) -> str:
    """The kind as the timeline shows it; nanobot's own commits say so."""
    if snap.kind in ("init", "revert"):
        return "nanobot " + snap.kind
    if snap.kind == "dream" and snap.author and snap.author != AUTHOR_NAME:
        return "nanobot dream"
    return snap.kind


def when(snap: Snapshot, seconds: bool = False) -> str:
    return clock.show_epoch(snap.time, seconds)


def files_text(files: dict[str, tuple[int, int]]) -> str:
    if not files:
        return "(no file changes)"
    return " · ".join(f"{p} +{a} −{r}" for p, (a, r) in files.items())


class SnapshotsModel(QAbstractTableModel):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.snapshots: list[Snapshot] = []

    def set_snapshots(self, snaps: list[Snapshot]) -> None:
        self.beginResetModel()
        self.snapshots = list(snaps)
        self.endResetModel()

    def snapshot(self, row: int) -> Snapshot | None:
        return self.snapshots[row] if 0 <= row < len(self.snapshots) else None

    def row_of(self, sha: str) -> int | None:
        for i, s in enumerate(self.snapshots):
            if s.sha == sha:
                return i
        return None

    # -- Qt model API ---------------------------------------------------------------------------
    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self.snapshots)

    def columnCount(self, parent=QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(COLUMNS)

    def flags(self, index):
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):  # noqa: N802
        if orientation == Qt.Orientation.Horizontal and 0 <= section < len(COLUMNS):
            if role == Qt.ItemDataRole.DisplayRole:
                return COLUMNS[section]
            if role == Qt.ItemDataRole.ToolTipRole:
                return COLUMN_TIPS[section]
        return None

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or index.parent().isValid():
            return None
        snap = self.snapshot(index.row())
        if snap is None or not 0 <= index.column() < len(COLUMNS):
            return None
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if col == COL_TIME:
                return when(snap)
            if col == COL_KIND:
                return badge_of(snap)
            if col == COL_MESSAGE:
                return snap.subject
            return files_text(snap.files)
        if role == Qt.ItemDataRole.ToolTipRole:
            rows = "".join(f"<tr><td>{html.escape(p)}</td><td style='color:#1a7f37'>&nbsp;+{a}</td>"
                           f"<td style='color:#cf222e'>&nbsp;−{r}</td></tr>" for p, (a, r) in snap.files.items())
            return (f"<b>{html.escape(snap.subject) or '(no message)'}</b><br>"
                    f"{snap.sha}<br>{when(snap, seconds=True)} · {html.escape(snap.author)} · {badge_of(snap)}"
                    + (f"<table>{rows}</table>" if rows else ""))
        if role == Qt.ItemDataRole.AccessibleTextRole:
            return f"{badge_of(snap)} snapshot {snap.short}, {when(snap)}: {snap.subject}; {files_text(snap.files)}"
        if role == SnapshotRole:
            return snap
        if role == KindRole:
            return badge_of(snap)
        if role == ShaRole:
            return snap.sha
        if role == FilesRole:
            return dict(snap.files)
        return None


class TimelineDelegate(ElidingDelegate):
    """Paints the kind as a coloured badge and the +/- counts in green and red; the message, prose,
    is cut at its end."""

    def __init__(self, parent=None):
        super().__init__(parent, frozenset({COL_MESSAGE}))

    def sizeHint(self, option, index) -> QSize:  # noqa: N802
        size = super().sizeHint(option, index)
        if index.column() == COL_KIND:
            fm = option.fontMetrics
            size.setWidth(fm.horizontalAdvance(index.data() or "") + 24)
        return size

    def paint(self, painter, option, index) -> None:
        col = index.column()
        if col not in (COL_KIND, COL_FILES):
            super().paint(painter, option, index)
            return
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.text = ""
        widget = opt.widget
        style = widget.style() if widget is not None else None
        if style is not None:
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, widget)
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        pal = opt.palette
        text_colour = pal.color(QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text)
        dark = pal.color(QPalette.ColorRole.Base).lightness() < 128
        rect = opt.rect.adjusted(6, 0, -4, 0)
        fm = opt.fontMetrics
        painter.save()
        painter.setClipRect(opt.rect)
        if col == COL_KIND:
            kind = index.data(KindRole) or ""
            colour = QColor(KIND_COLOURS.get(kind, KIND_COLOURS["other"]))
            if dark:
                colour = colour.lighter(125)
            w = fm.horizontalAdvance(kind) + 12
            h = fm.height() + 2
            badge = QRect(rect.left(), rect.center().y() - h // 2 + 1, min(w, rect.width()), h)
            painter.setRenderHint(painter.RenderHint.Antialiasing, True)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(colour)
            painter.drawRoundedRect(badge, h / 2.5, h / 2.5)
            painter.setPen(QColor("#ffffff") if colour.lightness() < 170 else QColor("#000000"))
            painter.drawText(badge, Qt.AlignmentFlag.AlignCenter, fm.elidedText(kind, Qt.TextElideMode.ElideRight,
                                                                                 badge.width() - 8))
        else:
            self._paint_files(painter, rect, fm, index.data(FilesRole) or {}, text_colour, dark, selected)
        painter.restore()

    @staticmethod
    def _paint_files(painter, rect: QRect, fm, files: dict, text_colour: QColor, dark: bool, selected: bool) -> None:
        """Each file with its coloured counts, as many as fit (shown_files)."""
        colours = {"text": text_colour, "plus": QColor("#7ee2a0" if dark else "#1a7f37"),
                   "minus": QColor("#ff9b9b" if dark else "#cf222e")}
        x, right = rect.left(), rect.right()
        base_y = rect.center().y() + (fm.ascent() - fm.descent()) // 2 + 1
        for text, role in shown_files(files, rect.width(), fm.horizontalAdvance):
            w = fm.horizontalAdvance(text)
            if x + w > right:
                painter.setPen(text_colour)
                painter.drawText(x, base_y, fm.elidedText(text, Qt.TextElideMode.ElideRight, max(0, right - x)))
                break
            painter.setPen(text_colour if selected else colours[role])
            painter.drawText(x, base_y, text)
            x += w


def shown_files(files: dict[str, tuple[int, int]], room: int, width_of) -> list[tuple[str, str]]:
    """What the "Files changed" cell shows in `room` pixels, as (text, "text" | "plus" | "minus")
    parts: every file with its counts; when they do not fit, files go from the middle (the first
    and the last stay whole, "…" where the others were; the tooltip lists them all). Only a
    single file wider than the cell is cut, at its end, when painted."""
    groups = [[(p + " ", "text"), (f"+{a}", "plus"), (" ", "text"), (f"−{r}", "minus")]
              for p, (a, r) in files.items()] or [[("(no file changes)", "text")]]
    return middle_out(groups, lambda parts: sum(width_of(t) for t, _role in parts), room,
                      [(SEPARATOR, "text")], [(SKIPPED, "text")])


def middle_out(groups: list[list], width_of, room: int, separator: list, skipped: list) -> list:
    """The groups joined by `separator`; when they are wider than `room`, groups go from the
    middle (the first and the last kept longest) and `skipped` stands where they were."""
    keep = list(range(len(groups)))
    while True:
        out: list = []
        prev = -1
        for i in keep:
            if out:
                out += separator
            if i != prev + 1:
                out += skipped + separator
            out += groups[i]
            prev = i
        if prev != len(groups) - 1:
            out += separator + skipped
        if len(keep) <= 1 or width_of(out) <= room:
            return out
        del keep[len(keep) // 2 if len(keep) > 2 else 1]
