"""The Files view's list of the entries the assistant's own dreaming promoted into the file open
(issue 28 item 4): one item per entry (engine.assistants.base.EntryNote with its Promoted), in
file order, shown as a few lines (where, when, score and recalls, source, the entry), made when
asked for."""

from __future__ import annotations

from ..qt import QAbstractListModel, QModelIndex, Qt
from .base import DISPLAY, TOOLTIP, rich_tooltip

NOTE_ROLE = Qt.ItemDataRole.UserRole     # the item's EntryNote
ENTRY_CHARS = 160                        # the entry's first characters on its item (the rest: tooltip, detail)


def source_words(note) -> str:
    """"from memory/2026-12-06.md lines 1–4": the note and lines the entry came from."""
    if note.source is None:
        return "no source named"
    path, start, end = note.source
    gone = " (gone)" if note.promoted.source_exists is False else ""
    return f"from {path} {'line ' + str(start) if end == start else f'lines {start}–{end}'}{gone}"


def item_text(note) -> str:
    """What the item shows, a line each: where and when, score and recalls, source, the entry."""
    p = note.promoted
    when = f"{p.how} {p.day}" if p.day else p.how
    score = f"score {p.score:g}" if p.score is not None else "no score in the file"
    recalls = "recalls unknown" if p.recalls is None else f"{p.recalls} recall{'' if p.recalls == 1 else 's'}"
    text = p.text if len(p.text) <= ENTRY_CHARS else p.text[:ENTRY_CHARS - 1] + "…"
    return "\n".join((f"Line {note.start_line} · {when}", f"{score} · {recalls}", source_words(note), text))


class PromotedModel(QAbstractListModel):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.notes: list = []

    def set_notes(self, notes) -> None:
        """The promoted entries among `notes` (the others are the file's by-hand entries)."""
        self.beginResetModel()
        self.notes = [n for n in notes if n.promoted is not None]
        self.endResetModel()

    def note(self, row: int):
        return self.notes[row] if 0 <= row < len(self.notes) else None

    def row_at_line(self, line: int) -> int | None:
        """The row of the entry holding `line` (1-based), or None."""
        return next((i for i, n in enumerate(self.notes) if n.start_line <= line <= n.end_line), None)

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.notes)

    def data(self, index, role=DISPLAY):
        n = self.note(index.row()) if index.isValid() and index.column() == 0 else None
        if n is None:
            return None
        if role == DISPLAY:
            return item_text(n)
        if role == TOOLTIP:
            return rich_tooltip("\n".join((n.promoted.text, n.title, *n.details)))
        return n if role == NOTE_ROLE else None
