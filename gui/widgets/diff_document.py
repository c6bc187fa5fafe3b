"""One layout (unified or side by side) of a PreparedDiff drawn into a QTextDocument, one block
per line (side by side: per row, the newer half at a tab stop mid-width). The build runs in
steps, so a DiffView can draw the layout it does not show in idle time and a toggle finds it
ready; the shown one is built at once.
"""

from __future__ import annotations

import time

from dreamdesk.engine.text.prepared_diff import PreparedDiff, PreparedFile, PreparedHunk, PreparedLine, wrap_columns

from ..qt import QColor, QTextBlockFormat, QTextCharFormat, QTextCursor, QTextDocument
from .diff_look import DiffLook

UNIFIED, SPLIT = "unified", "split"
MAX_LINES = 6000            # rendered lines across all files; the rest is summarised, never silently cut
MAX_SPLIT_ROWS = 1500       # side-by-side rows
HUNK_HREF, FILE_HREF = "restore-hunk:", "restore-file:"


class DiffDocument:
    """A document being built (or built) for one layout of a diff or a message."""

    def __init__(self, parent, look: DiffLook, prepared: PreparedDiff, restorable: bool, message: str,
                 mode: str, half_width: float):
        self.look, self.prepared, self.restorable, self.message = look, prepared, restorable, message
        self.mode, self.half_width = mode, half_width
        self.key = layout_key(mode, half_width)
        self.hunk_ranges: list[tuple[int, int, str, int]] = []     # (start, end, path, hunk)
        self.truncated = 0                      # lines not drawn (beyond MAX_LINES or MAX_SPLIT_ROWS)
        self.doc = QTextDocument(parent)
        self.doc.setUndoRedoEnabled(False)
        self.doc.setDocumentMargin(6)
        self.doc.setDefaultFont(look.font)
        self._cur = QTextCursor(self.doc)
        self._fresh = True          # the cursor's block is empty and may take the next block's format
        self._cur.beginEditBlock()  # one change notice for the whole build, not one per insertion
        self._steps = self._draw()
        self.done = False

    def step(self, seconds: float) -> bool:
        """Build on for about `seconds`; True once the document is complete."""
        until = time.perf_counter() + seconds
        for _ in self._steps:
            if time.perf_counter() >= until:
                return False
        self._finished()
        return True

    def finish(self) -> "DiffDocument":
        if not self.done:
            for _ in self._steps:
                pass
            self._finished()
        return self

    def _finished(self) -> None:
        if not self.done:
            self.done = True
            self._cur.endEditBlock()

    # -- drawing (each yield is a place the build may pause) -------------------------------------
    def _draw(self):
        if not self.prepared:
            bf = QTextBlockFormat()
            bf.setTopMargin(12)
            self._cur.setBlockFormat(bf)
            self._cur.insertText(self.message, self.look.dim())
            return
        budget = MAX_SPLIT_ROWS if self.mode == SPLIT else MAX_LINES
        for fi, f in enumerate(self.prepared.files):
            self._file_header(fi, f)
            for h in f.hunks:
                if budget <= 0:
                    self.truncated += len(h.lines)
                    continue
                budget = yield from self._hunk(fi, f, h, budget)
        if self.truncated:
            self._block(QTextBlockFormat())
            more = " (Unified shows more)" if self.mode == SPLIT else ""
            self._cur.insertText(f"… {self.truncated:,} more diff lines not shown{more}: the diff is longer than "
                                 "this view draws. A restore still applies the whole hunk or file.", self.look.dim())

    def _block(self, fmt: QTextBlockFormat) -> None:
        """Start a new block with this format at the end of the document."""
        if self._fresh:
            self._cur.movePosition(QTextCursor.MoveOperation.End)
            self._cur.setBlockFormat(fmt)
            self._fresh = False
        else:
            self._cur.insertBlock(fmt)

    def _file_header(self, fi: int, f: PreparedFile) -> None:
        look, c, cur = self.look, self.look.colours, self._cur
        bf = QTextBlockFormat()
        bf.setBackground(c.file_bg)
        bf.setTopMargin(10 if fi else 0)
        bf.setBottomMargin(2)
        self._block(bf)
        cur.insertText(" " + f.path, look.bold())
        cur.insertText("   ", look.base)
        cur.insertText(f"+{f.added}", look.with_fg(c.add_sign))
        cur.insertText(" ", look.base)
        cur.insertText(f"−{f.removed}", look.with_fg(c.del_sign))
        if not f.old_exists:
            cur.insertText("   (not in this snapshot: a restore leaves it as it is)" if self.restorable
                           else "   (only in the newer snapshot)", look.dim())
        elif not f.new_exists:
            cur.insertText("   (deleted since the snapshot: restoring the file brings it back)" if self.restorable
                           else "   (only in the older snapshot)", look.dim())
        if self.restorable and f.old_exists:
            cur.insertText("   ", look.base)
            cur.insertText("↶ Restore this file", look.link(f"{FILE_HREF}{fi}"))

    def _hunk(self, fi: int, f: PreparedFile, h: PreparedHunk, budget: int):
        look, cur = self.look, self._cur
        restorable = self.restorable and f.old_exists
        self._block(look.hunk_block())
        start = cur.position()
        dim = look.dim()
        cur.insertText(" " + h.header + f"   hunk {h.index} of {len(f.hunks)} · ", dim)
        cur.insertText(f"+{h.added}", look.sign("+"))
        cur.insertText(" ", dim)
        cur.insertText(f"−{h.removed}", look.sign("-"))
        if restorable:
            cur.insertText("   ", dim)
            cur.insertText("↶ Restore this hunk", look.link(f"{HUNK_HREF}{fi}/{h.index}"))
        count = len(h.rows) if self.mode == SPLIT else len(h.lines)
        shown = min(count, budget)
        self.truncated += count - shown
        if self.mode == SPLIT:
            yield from self._split_rows(h, h.rows[:shown], f.digits)
        else:
            for line in h.lines[:shown]:
                self._unified_line(line, f.digits)
                yield
        if restorable:
            self.hunk_ranges.append((start, cur.position(), f.path, h.index))
        return budget - shown

    def _prefix(self, numbers: str, kind: str, bg: QColor | None = None) -> list[tuple[str, QTextCharFormat]]:
        """Line numbers dimmed, then the sign."""
        if kind == " ":
            return [(numbers + "   ", self.look.dim(bg))]
        return [(numbers, self.look.dim(bg)), (("+" if kind == "+" else "−") + "  ", self.look.sign(kind, bg))]

    def _unified_line(self, line: PreparedLine, digits: int) -> None:
        """One line as one block: numbers and sign, then the text."""
        cur = self._cur
        self._block(self.look.hanging(line.kind, 2 * digits + 5))
        old = "" if line.old_no is None else str(line.old_no)
        new = "" if line.new_no is None else str(line.new_no)
        for text, fmt in self._prefix(f"{old:>{digits}} {new:>{digits}} ", line.kind):
            cur.insertText(text, fmt)
        for text, fmt in self._text_runs(line):
            cur.insertText(text, fmt)

    def _split_rows(self, h: PreparedHunk, rows, digits: int):
        """Rows of two halves in one block each, the older side left and the newer right, the
        right one starting at a tab stop mid-width. Each half wraps its own text (in the
        fixed-pitch font's columns) into more blocks, so both stay side by side: plain blocks
        lay out far faster than a table's cells."""
        cur = self._cur
        cols = self.look.split_cols(self.half_width, digits)
        bf = self.look.split_block(self.half_width)
        filler = [("\t", self.look.plain(self.look.colours.filler))]
        for row in rows:
            halves = [self._half(h.lines[i], side, digits, cols) if i is not None else ([], filler)
                      for side, i in enumerate(row)]
            for k in range(max(len(halves[0][0]), len(halves[1][0]))):
                self._block(bf)
                for blocks, rest in halves:
                    for text, fmt in blocks[k] if k < len(blocks) else rest:
                        cur.insertText(text, fmt)
            yield

    def _half(self, line: PreparedLine, side: int, digits: int, cols: int):
        """One half of a row: the runs of each block its text wraps into (the number and sign on
        the first, then that piece of the text, then a tab that carries the half's background to
        the middle or the right edge), and the runs of a block below it while the other half
        still wraps. Adjacent runs of one format are joined: one insertion each."""
        bg = self.look.bg(line.kind)
        plain = self.look.span(None, False, line.kind, bg)      # an unstyled piece's own format: they join
        no = line.old_no if side == 0 else line.new_no
        indent = " " * (digits + 3)
        blocks = []
        for k, (a, b) in enumerate(wrap_columns(line.text, cols)):
            runs = self._prefix(f"{'' if no is None else no:>{digits}}", line.kind, bg) if k == 0 else [(indent, plain)]
            for text, fmt in self._text_runs(line, bg, a, b):
                _join(runs, text, fmt)
            _join(runs, "\t", plain)
            blocks.append(runs)
        return blocks, [(indent + "\t", plain)]

    def _text_runs(self, line: PreparedLine, bg: QColor | None = None, begin: int = 0, end: int | None = None):
        """The line's text (or its [begin, end) piece) in its style runs, as (text, format)."""
        text, tabs, span = line.text, "\t" in line.text, self.look.span
        end = len(text) if end is None else end
        for start, length, style, changed in line.spans:
            a, b = max(start, begin), min(start + length, end)
            if a < b:
                piece = text[a:b]
                yield piece.replace("\t", "    ") if tabs else piece, span(style, changed, line.kind, bg)
        if not line.eol and end == len(text):
            yield "  ⏎ no newline at end of file", self.look.dim(bg)


def layout_key(mode: str, half_width: float) -> tuple:
    """What a built document depends on besides the diff and the look: side by side wraps each
    half to the width; unified leaves wrapping to Qt."""
    return (mode, half_width if mode == SPLIT else None)


def _join(runs: list[tuple[str, QTextCharFormat]], text: str, fmt: QTextCharFormat) -> None:
    """Append a run, joined to the last one when it has the very same format."""
    if runs and runs[-1][1] is fmt:
        runs[-1] = (runs[-1][0] + text, fmt)
    else:
        runs.append((text, fmt))
