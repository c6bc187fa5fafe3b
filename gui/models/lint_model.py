"""The Lint tab's rows: one finding each (engine/lint/memory_lint.py), its cells made when asked for."""

from __future__ import annotations

from dreamdesk.engine.core.lint_finding import FIX, REVIEW

from ..qt import QModelIndex
from .base import DISPLAY, TOOLTIP, TableModel, rich_tooltip

COL_KIND, COL_ACTION, COL_FILE, COL_LINES, COL_ENTRY, COL_REASON = range(6)


def action_text(f) -> str:
    """What the row offers: its one-click fix ("remove", "move"), or "review" (by hand)."""
    return f.fix if f.action == FIX else REVIEW


class LintModel(TableModel):
    COLUMNS = ("Kind", "Action", "File", "Lines", "Entry", "Why")
    COLUMN_TIPS = ("duplicate, near-duplicate, similar, past-date, misplaced or too-long, or a kind the home's "
                   "assistant adds (junk its dreaming promoted, its prompt cut)",
                   "remove, move or rewrite: a one-click fix; review: check it and edit by hand (its kind has no fix, "
                   "or is not right often enough on the labelled set for one)",
                   "the memory file the finding is about (a duplicate: the later copy)",
                   "where the entry is in that file", "the entry's first line", "the reason, in words")

    def __init__(self, parent=None):
        super().__init__(parent)
        self.findings: list = []

    def set_findings(self, findings: list) -> None:
        self.beginResetModel()
        self.findings = list(findings)
        self.endResetModel()

    def finding(self, row: int):
        return self.findings[row] if 0 <= row < len(self.findings) else None

    def row_for_id(self, finding_id: str) -> int | None:
        return next((i for i, f in enumerate(self.findings) if f.id == finding_id), None)

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.findings)

    def data(self, index, role=DISPLAY):
        if not index.isValid() or role not in (DISPLAY, TOOLTIP):
            return None
        f = self.finding(index.row())
        if f is None:
            return None
        col = index.column()
        if role == TOOLTIP:
            if col == COL_ACTION:
                return f.review_note or f.advice
            return rich_tooltip(f.target.text) if col == COL_ENTRY else f.reason if col == COL_REASON else None
        t = f.target
        if col == COL_KIND:
            return f.kind
        if col == COL_ACTION:
            return action_text(f)
        if col == COL_FILE:
            return t.file
        if col == COL_LINES:
            return t.lines.split(" ", 1)[1]
        if col == COL_ENTRY:
            return t.text.split("\n", 1)[0]
        if col == COL_REASON:
            return f.reason
        return None
