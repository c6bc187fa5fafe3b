"""The Dream runs table: Dreamdesk's memory/dreams/<run id>.json records (spec section 5) and the
assistant's runs (its snapshot commits), newest first as engine.dream.run_list.every_run returns
them, each marked by who ran it. A run's short tuple of display strings is made the first time
one of its cells is asked for (a paint asks for the rows in sight only), then kept."""

from __future__ import annotations

from datetime import datetime

from dreamdesk.engine.core import clock
from dreamdesk.engine.dream.records import counted_refusals
from dreamdesk.engine.dream.run_list import cursor_move

from ..qt import QApplication, QColor, QFont, QModelIndex, QPalette
from .base import ALIGNMENT, DISPLAY, FONT, FOREGROUND, RIGHT, TOOLTIP, TableModel, blend, rich_tooltip, theme

(COL_STARTED, COL_BY, COL_TRIGGER, COL_STATUS, COL_DURATION, COL_TOKENS, COL_BATCH, COL_CREATED, COL_REMOVED,
 COL_REFUSED, COL_PRUNED, COL_ID) = range(12)
COLUMNS = ("Started", "By", "Trigger", "Status", "Duration", "Tokens", "Batch", "+ Created", "− Removed",
           "Refused", "Pruned", "Run")
COLUMN_TIPS = (
    "When the run started (local time); for the assistant's runs, when its commit landed",
    "Dreamdesk: a run of Dreamdesk's own Dream · assistant: a snapshot commit the assistant made "
    "(its own Dream, a revert, another writer)",
    "manual: Dream now · interval: every intervalH hours · activity: enough new history, then idle · "
    "for the assistant's runs: the kind of its commit (dream, revert, …)",
    "completed · wrote-nothing · held (cursor kept: near budget) · failed · cancelled · running · "
    "for the assistant's runs: the commit it made",
    "From start to finish (the record keeps whole seconds)",
    "Model tokens the run used, all passes (prompt + completion); for the assistant's runs, what its "
    "usage store recorded (— when it recorded none)",
    "The history cursors the run read (first–last, and how many entries); for the assistant's runs, "
    "its .dream_cursor before → after",
    "Facts the run created (added, or an updated version of an old one)",
    "Facts the run removed (Dreamdesk's runs archive each one first; the assistant's removals are "
    "known from its commit and restorable from the run's detail or the Archive)",
    "Writes refused because the file would have grown over its budget, or would have removed or changed a pinned entry",
    "Past the 30-day retention: only the created facts that still exist and the counts are kept",
    "The run id (memory/dreams/<run id>.json), or the assistant's commit",
)
ASSISTANT, DREAMDESK = "assistant", "Dreamdesk"
NUMERIC = {COL_DURATION, COL_TOKENS, COL_CREATED, COL_REMOVED, COL_REFUSED}
GOOD, WARN, BAD = "completed", ("held", "cancelled", "stopped", "running", "interrupted"), "failed"


def _parse(iso) -> datetime | None:
    if not isinstance(iso, str) or not iso:
        return None
    try:
        return datetime.fromisoformat(iso)
    except ValueError:
        return None


def time_label(iso) -> str:
    """'2026-11-29T21:25:44+01:00' -> '2026-11-29 21:25:44' in local time (UTC+01:00 here)."""
    return clock.show_iso(iso, seconds=True)


def duration_seconds(rec: dict) -> float | None:
    a, b = _parse(rec.get("started")), _parse(rec.get("finished"))
    if a is None or b is None:
        return None
    try:
        return max(0.0, (b - a).total_seconds())
    except TypeError:          # one aware, one naive
        return None


def is_assistant(rec: dict) -> bool:
    return rec.get("writer") == "assistant"


def duration_label(rec: dict) -> str:
    if is_assistant(rec):
        return "—"                 # a commit has one time; the run's span is not recorded
    secs = duration_seconds(rec)
    if secs is None:
        return "running" if rec.get("status") == "running" else "—"
    if secs < 1:
        return "< 1 s"
    if secs < 60:
        return f"{secs:.0f} s"
    m, s = divmod(int(round(secs)), 60)
    if m < 60:
        return f"{m} min {s} s" if s else f"{m} min"
    h, m = divmod(m, 60)
    return f"{h} h {m} min"


def _int(v) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def tokens_total(rec: dict) -> int:
    t = rec.get("tokens") or {}
    return _int(t.get("total")) or 0


def batch_label(rec: dict) -> str:
    if is_assistant(rec):
        before, after = (rec.get("cursor") or {}).get("before"), (rec.get("cursor") or {}).get("after")
        return cursor_move(before, after) or "—"
    b = rec.get("batch") or {}
    first, last, count = _int(b.get("first")), _int(b.get("last")), _int(b.get("count"))
    if first is None or last is None:
        return "—"
    rng = str(first) if first == last else f"{first}–{last}"
    return f"{rng} ({count})" if count is not None else rng


def created_count(rec: dict) -> int:
    n = _int(rec.get("created_count"))
    counted = rec.get("pruned_at") or is_assistant(rec)
    return n if counted and n is not None else len(rec.get("created") or [])


def removed_count(rec: dict) -> int:
    n = _int(rec.get("removed_count"))
    counted = rec.get("pruned_at") or is_assistant(rec)
    return n if counted and n is not None else len(rec.get("removed") or [])


class RunsModel(TableModel):
    COLUMNS, COLUMN_TIPS, RIGHT_COLUMNS = COLUMNS, COLUMN_TIPS, frozenset(NUMERIC)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.runs: list[dict] = []
        self._cells: list[tuple[str, ...] | None] = []      # made on first use
        self._bold = QFont()
        self._bold.setBold(True)
        self.set_palette(QApplication.palette())

    def set_runs(self, runs: list[dict]) -> None:
        """Replace every row (every_run order: newest first)."""
        self.beginResetModel()
        self.runs = list(runs)
        self._cells = [None] * len(self.runs)
        self.endResetModel()

    def _row(self, row: int) -> tuple[str, ...]:
        cells = self._cells[row]
        if cells is None:
            cells = self._cells[row] = self._row_cells(self.runs[row])
        return cells

    @staticmethod
    def _row_cells(r: dict) -> tuple[str, ...]:
        if is_assistant(r):
            sha, tokens = str(r.get("commit") or ""), r.get("tokens")
            # a run the assistant records itself (no commit): its own status and id
            status, rid = (f"commit {sha[:8]}", sha[:8]) if sha else (str(r.get("status") or "—"), str(r.get("id")))
            return (time_label(r.get("started")), ASSISTANT, str(r.get("kind") or "—"), status, "—",
                    f"{tokens_total(r):,}" if tokens else "—", batch_label(r), f"+{created_count(r)}",
                    f"−{removed_count(r)}", "", "", rid)
        refused = len(counted_refusals(r.get("refused") or []))
        return (time_label(r.get("started")), DREAMDESK, str(r.get("trigger") or "—"), str(r.get("status") or "—"),
                duration_label(r), f"{tokens_total(r):,}", batch_label(r), f"+{created_count(r)}",
                f"−{removed_count(r)}", str(refused) if refused else "",
                "pruned" if r.get("pruned_at") else "", str(r.get("id")))

    def _palette_colors(self, palette: QPalette) -> dict[str, QColor]:
        text, base, dark = theme(palette)
        return {
            "dim": blend(text, base, 0.45),
            "good": blend(text, QColor(90, 200, 110) if dark else QColor(20, 125, 45), 0.7),
            "warn": blend(text, QColor(240, 190, 80) if dark else QColor(165, 100, 0), 0.75),
            "bad": blend(text, QColor(255, 120, 120) if dark else QColor(185, 20, 20), 0.75),
            "added": blend(text, QColor(90, 200, 110) if dark else QColor(20, 125, 45), 0.6),
            "removed": blend(text, QColor(255, 120, 120) if dark else QColor(185, 20, 20), 0.6),
            "assistant": blend(text, QColor(200, 150, 255) if dark else QColor(120, 50, 170), 0.75),
        }

    # ---- facts for views -------------------------------------------------------------------

    def run(self, row: int) -> dict | None:
        return self.runs[row] if 0 <= row < len(self.runs) else None

    def row_for_id(self, run_id: str) -> int | None:
        return next((i for i, r in enumerate(self.runs) if r.get("id") == run_id), None)

    def assistant_count(self) -> int:
        return sum(1 for r in self.runs if is_assistant(r))

    def cell_text(self, row: int, col: int) -> str:
        return self._row(row)[col]

    # ---- QAbstractTableModel ---------------------------------------------------------------

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.runs)

    def data(self, index, role=DISPLAY):
        if not index.isValid() or index.row() >= len(self.runs):
            return None
        row, col = index.row(), index.column()
        if role == DISPLAY:
            return self._row(row)[col]
        r = self.runs[row]
        if role == ALIGNMENT and col in NUMERIC:
            return RIGHT
        if role == FOREGROUND:
            return self._foreground(r, col)
        if role == FONT and ((col == COL_STATUS and r.get("status") == BAD)
                             or (col == COL_BY and is_assistant(r))):
            return self._bold
        if role == TOOLTIP:
            return self._tooltip(r, col)
        return None

    def _foreground(self, r: dict, col: int):
        status = r.get("status")
        if col == COL_BY:
            return self._colors["assistant"] if is_assistant(r) else self._colors["dim"]
        if is_assistant(r) and (col in (COL_STATUS, COL_DURATION, COL_BATCH) or (col == COL_TOKENS and not r.get("tokens"))):
            return self._colors["dim"]
        if col == COL_STATUS:
            if status == GOOD:
                return self._colors["good"]
            if status in WARN:
                return self._colors["warn"]
            if status == BAD:
                return self._colors["bad"]
            return self._colors["dim"]
        if col == COL_CREATED and created_count(r):
            return self._colors["added"]
        if col == COL_REMOVED and removed_count(r):
            return self._colors["removed"]
        if col == COL_REFUSED and r.get("refused"):
            return self._colors["warn"]
        if col in (COL_PRUNED, COL_ID, COL_TRIGGER):
            return self._colors["dim"]
        return None

    def _tooltip(self, r: dict, col: int):
        if is_assistant(r):
            return self._assistant_tooltip(r, col)
        if col == COL_STATUS and r.get("outcome"):
            return rich_tooltip(str(r["outcome"]))
        if col == COL_TOKENS:
            t = r.get("tokens") or {}
            return f"prompt {_int(t.get('prompt')) or 0:,} + completion {_int(t.get('completion')) or 0:,}"
        if col == COL_BATCH:
            cursors = (r.get("batch") or {}).get("cursors")
            if isinstance(cursors, list) and cursors:
                return rich_tooltip("Cursors " + ", ".join(str(c) for c in cursors))
        if col == COL_PRUNED and r.get("pruned_at"):
            return (f"Pruned {time_label(r.get('pruned_at'))}: past the 30-day retention, this record keeps only "
                    "the created facts that still exist and its counts")
        if col == COL_DURATION:
            return f"{time_label(r.get('started'))} → {time_label(r.get('finished'))}"
        refused = counted_refusals(r.get("refused") or []) if col == COL_REFUSED else []
        if refused:
            return rich_tooltip("\n".join(str(x.get("reason") or x.get("file")) for x in refused))
        return COLUMN_TIPS[col]

    @staticmethod
    def _assistant_tooltip(r: dict, col: int):
        if col == COL_STATUS and not r.get("commit"):
            return rich_tooltip(f"by {r.get('author')}: {r.get('subject')}")
        if col == COL_STATUS:
            return rich_tooltip(f"{r.get('author')} committed {str(r.get('commit'))[:12]}: {r.get('subject')}")
        if col == COL_TOKENS:
            t = r.get("tokens")
            if not t:
                return "The assistant's usage store recorded no tokens for this run"
            return f"prompt {t['prompt']:,} + completion {t['completion']:,} in {t['calls']} call(s)"
        if col == COL_BY:
            return f"Made by the assistant ({r.get('author')}), not by Dreamdesk"
        return COLUMN_TIPS[col]
