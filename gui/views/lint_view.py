"""The Lint tab: what engine/lint/memory_lint.py finds in the memory files, the selected finding in full,
and a Fix button that applies its fix on the writer lane (engine/lint/lint_fixes.py: archived,
snapshotted, undoable from the Snapshots tab). A finding for review (a kind with no fix, or one
measured under the precision bar: engine/core/lint_finding.Finding.action) has no Fix: it says what to check.
The view renders and dispatches; the engine decides."""

from __future__ import annotations

import html

from dreamdesk.engine.lint.memory_lint import FIX, REMOVE, REVIEW, Finding, counts, lint
from dreamdesk.engine.home.workspace import Workspace

from ..operations.lint_fix import fix_finding
from ..operations.run import Initiator
from ..models.lint_model import COL_ENTRY, COL_FILE, COL_KIND, COL_REASON, LintModel
from ..qt import (QAbstractItemView, QHBoxLayout, QLabel, QPushButton, QTableView, QTextBrowser, QVBoxLayout,
                  QWidget, Signal)
from ..context.worker import JobLanes, Latest
from ..widgets.table_fit import ColumnFit
from .common import detail_splitter, read_latest, select_row_only, setup_table

EMPTY = "No findings: no copies, look-alikes, past plans, misplaced, over-long or junk entries."
REVIEW_BUTTON = "Review: no one-click fix"


class LintView(QWidget):
    status = Signal(str)

    def __init__(self, engine: JobLanes, parent: QWidget | None = None):
        super().__init__(parent)
        self.engine = engine
        self.ws: Workspace | None = None
        self.loaded = False
        self.fixing = False
        self._token = Latest()

        self.model = LintModel(self)
        self.table = QTableView()
        setup_table(self.table, self.model, QAbstractItemView.SelectionMode.SingleSelection, pixel_scroll=False)
        self.columns = ColumnFit(self.table, elastic=COL_ENTRY, prose=(COL_REASON,),
                                 samples={COL_KIND: "superseded-active", COL_FILE: "memory/MEMORY.md"})
        self.summary = QLabel("Reading…")
        self.summary.setWordWrap(True)       # (a long tally beside a long fix label must not widen the window)
        self.fix_button = QPushButton("Fix")
        self.fix_button.setEnabled(False)
        self.fix_button.setToolTip("Apply the selected finding's fix: what leaves USER.md / MEMORY.md is archived, "
                                   "a snapshot is taken first, and Edit → Undo Last Restore (Ctrl+Alt+Z) takes it back")
        self.fix_button.clicked.connect(self.fix_selected)
        self.detail = QTextBrowser()
        self.detail.setPlaceholderText("Select a finding to see it in full.")
        self.splitter = detail_splitter("lintSplitter", self.table, self.detail, (2, 1), [360, 240])

        top = QHBoxLayout()
        top.addWidget(self.summary, 1)
        top.addWidget(self.fix_button)
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addWidget(self.splitter, 1)
        self.table.selectionModel().currentRowChanged.connect(lambda *_: self._show_selected())

    # -- public --------------------------------------------------------------------------------
    def set_workspace(self, ws: Workspace) -> None:
        if self.ws is None or ws.root != self.ws.root:
            self.loaded = False
            self.model.set_findings([])
            self._show_selected()
        self.ws = ws
        self.refresh()

    def refresh(self) -> None:
        read_latest(self, self._token, "lint memory files", lint, self._set_findings,
                    lambda msg: self.status.emit(f"Could not lint the memory files: {msg}"))

    def selected(self) -> Finding | None:
        index = self.table.currentIndex()
        return self.model.finding(index.row()) if index.isValid() else None

    def select_id(self, finding_id: str) -> bool:
        row = self.model.row_for_id(finding_id)
        if row is None:
            return False
        select_row_only(self.table, self.model.index(row, 0))
        return True

    def fix_selected(self) -> None:
        finding, ws = self.selected(), self.ws
        if finding is None or ws is None or finding.action != FIX or self.fixing:
            return
        self.fixing = True
        self._show_selected()

        def done(_result) -> None:
            self.fixing = False

        def failed(_message: str) -> None:
            self.fixing = False
            self.refresh()
        # (in the window, the job's change record refreshes this view; alone, the operation does)
        fix_finding(Initiator(self.engine, "lint", self.status.emit), ws, finding, done=done, failed=failed,
                    refresh=self.refresh)

    # -- internals -----------------------------------------------------------------------------
    def _set_findings(self, findings: list[Finding]) -> None:
        keep = self.selected()
        self.loaded = True
        self.model.set_findings(findings)
        tally = ", ".join(f"{n} {k}" for k, n in counts(findings).items() if n)
        review = sum(f.action == REVIEW for f in findings)
        to_review = f" ({review} for review, with no one-click fix)" if review else ""
        self.summary.setText(f"{len(findings)} finding{'s' if len(findings) != 1 else ''}: {tally}{to_review}"
                             if findings else EMPTY)
        row = self.model.row_for_id(keep.id) if keep is not None else None
        if findings:
            select_row_only(self.table, self.model.index(row if row is not None else 0, 0))
        self._show_selected()

    def _show_selected(self) -> None:
        f = self.selected()
        self.fix_button.setEnabled(f is not None and f.action == FIX and not self.fixing)
        self.fix_button.setText("Fix" if f is None else f.fix_label if f.action == FIX else REVIEW_BUTTON)
        self.detail.setHtml(_detail_html(f) if f is not None else "")


def _detail_html(f: Finding) -> str:
    esc = html.escape
    parts = [f"<h3>{esc(f.kind)}</h3><p>{esc(f.reason)}</p>"]
    roles = ("Kept: ", "Copy: ") if f.fix == REMOVE else ("Beside: ", "This one: ") if f.fix else ("Earlier: ", "This one: ")
    for i, p in enumerate(f.places):
        role = roles[i] if len(f.places) > 1 else ""
        under = f" under <i>{esc(p.heading)}</i>" if p.heading else ""
        parts.append(f"<p><b>{role}{esc(p.file)}</b>, {esc(p.lines)}{under}</p>{_pre(p.text)}")
    if f.action == FIX:
        parts.append(f"<p><b>Fix:</b> {esc(f.fix_label)}</p>{_edits_html(f)}")
    elif f.review_note:
        parts.append(f"<p><b>Review:</b> {esc(f.review_note)}. If it is right, {esc(f.by_hand)}.</p>")
    else:
        parts.append(f"<p><b>Review:</b> {esc(f.fix_label)}</p>")
    return "".join(parts)


def _edits_html(f: Finding) -> str:
    """What the fix does line by line, when it is more than the entry shown (the lines that go with
    it, a comment rewritten for it): so the person sees every line that changes before the click."""
    edits = f.edits
    if len(edits) == 1 and edits[0][0] == f.target:
        return ""
    rows = [f"<li>{html.escape(p.lines)}: " + ("removed" if to is None else f"becomes {_pre(to)}")
            + (_pre(p.text) if to is None else "") + "</li>"
            for p, to in sorted(edits, key=lambda e: e[0].start)]
    return f"<p>It changes these lines of {html.escape(f.target.file)}:</p><ul>{''.join(rows)}</ul>"


def _pre(text: str) -> str:
    """An entry as written, its long lines wrapped to the pane (no sideways scrolling)."""
    return f'<pre style="white-space: pre-wrap">{html.escape(text)}</pre>'
