"""A diff of memory files: per file a header, per hunk a header with a "Restore this hunk" link,
added and removed lines on coloured backgrounds with the changed words (engine.diffs.intraline)
marked, markdown highlighted, in a unified or a side-by-side layout.

One QTextBrowser whose document is built with QTextCursor, one block per line (side by side: per
row, the newer half at a tab stop mid-width), so a long diff costs text, not widgets. The expensive part (lexing every line, marking
changed words, pairing rows) is engine.prepared_diff.prepare, which `load` runs on the engine's
reader thread; the widget only lays the immutable PreparedDiff out with palette-aware colours, and
toggling the layout draws the same value again. Each layout is built in a fresh document that
then replaces the shown one: Qt lays a new document out lazily (what is visible first, the rest
in short steps between events), where rebuilding the shown one would lay it all out at once.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from typing import Callable

from engine.prepared_diff import PreparedDiff, PreparedFile, PreparedHunk, PreparedLine, prepare, wrap_columns

from ..qt import (QColor, QFont, QFontDatabase, QFontMetricsF, QMenu, QPalette, QRect, QTextBlockFormat, QTextBrowser,
                  QTextCharFormat, QTextCursor, QTextDocument, QTextOption, QStyle, QTimer, QEvent, Signal, isValid)
from ..worker import Latest
from .highlighter import kind_formats

UNIFIED, SPLIT = "unified", "split"
MAX_LINES = 6000            # rendered lines across all files; the rest is summarised, never silently cut
MAX_SPLIT_ROWS = 1500       # side-by-side rows
RESIZE_DEBOUNCE_MS = 120    # side by side wraps each half itself: redrawn once a resize settles
HUNK_HREF, FILE_HREF = "restore-hunk:", "restore-file:"
PREPARING = "Preparing diff…"
NO_DIFF = PreparedDiff(())


# -- colours ----------------------------------------------------------------------------------

@dataclass
class DiffColours:
    dark: bool
    text: QColor
    dim: QColor
    link: QColor
    add_bg: QColor
    del_bg: QColor
    add_mark: QColor
    del_mark: QColor
    add_sign: QColor
    del_sign: QColor
    hunk_bg: QColor
    file_bg: QColor
    filler: QColor

    @classmethod
    def from_palette(cls, pal: QPalette) -> "DiffColours":
        base = pal.color(QPalette.ColorRole.Base)
        text = pal.color(QPalette.ColorRole.Text)
        dark = base.lightness() < 128

        def mix(a: QColor, b: QColor, t: float) -> QColor:
            return QColor(round(a.red() + (b.red() - a.red()) * t), round(a.green() + (b.green() - a.green()) * t),
                          round(a.blue() + (b.blue() - a.blue()) * t))
        if dark:
            return cls(True, text, mix(text, base, 0.45), QColor("#8ab4f8"),
                       QColor("#1d3a27"), QColor("#45242a"), QColor("#2e6b40"), QColor("#7d3039"),
                       QColor("#7ee2a0"), QColor("#ff9b9b"), QColor("#1d2f47"), mix(base, text, 0.10),
                       mix(base, text, 0.05))
        return cls(False, text, mix(text, base, 0.5), pal.color(QPalette.ColorRole.Link),
                   QColor("#e6ffec"), QColor("#ffebe9"), QColor("#abf2bc"), QColor("#ffc0bb"),
                   QColor("#1a7f37"), QColor("#cf222e"), QColor("#ddf4ff"), mix(base, text, 0.07),
                   mix(base, text, 0.035))


# -- the widget -------------------------------------------------------------------------------

class DiffView(QTextBrowser):
    """Shows a PreparedDiff. With `restorable`, each file header and hunk header carries a
    restore link (and the context menu on a hunk the same actions)."""

    hunkRestoreRequested = Signal(str, int)     # path, 1-based hunk index
    fileRestoreRequested = Signal(str)          # path

    def __init__(self, parent=None):
        super().__init__(parent)
        self._prepared = NO_DIFF
        self._restorable = False
        self._mode = UNIFIED
        self._message = ""
        self._token = Latest()                  # a newer load, diff or message supersedes a preparation
        self._hunk_ranges: list[tuple[int, int, str, int]] = []    # (start, end, path, hunk)
        self._fmt_cache: dict = {}
        self.truncated = 0                      # lines not rendered (beyond MAX_LINES)
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        self.setLineWrapMode(QTextBrowser.LineWrapMode.WidgetWidth)
        self.document().setUndoRedoEnabled(False)
        self.document().setDocumentMargin(6)
        self.anchorClicked.connect(self._on_anchor)
        self._half_width = 0.0
        self._rewrap = QTimer(self)
        self._rewrap.setSingleShot(True)
        self._rewrap.setInterval(RESIZE_DEBOUNCE_MS)
        self._rewrap.timeout.connect(self._render)

    # -- public -------------------------------------------------------------------------------
    def mode(self) -> str:
        return self._mode

    def set_mode(self, mode: str) -> None:
        """Draw the shown diff in the other layout: the same prepared value, never diffed or lexed again."""
        if mode not in (UNIFIED, SPLIT):
            raise ValueError(mode)
        if mode != self._mode:
            self._mode = mode
            self._render()

    def load(self, engine, compute: Callable[[], PreparedDiff], restorable: bool = False,
             empty_text: str = "No differences.") -> None:
        """Show "Preparing diff…" at once and the diff `compute` prepares on the reader thread,
        unless something newer was shown or asked for meanwhile (or the view is gone)."""
        token = self._token.next()
        self._show(NO_DIFF, False, PREPARING)

        def wanted() -> bool:
            return isValid(self) and self._token.current(token)

        engine.read("prepare diff", lambda ctx: compute(),
                    lambda prepared: wanted() and self.set_prepared(prepared, restorable, empty_text),
                    lambda msg, tb: wanted() and self.set_message(f"Could not prepare the diff: {msg}"))

    def load_diffs(self, engine, diffs: list, restorable: bool = False, empty_text: str = "No differences.") -> None:
        """`load` for FileDiffs already at hand."""
        self.load(engine, lambda: prepare(diffs), restorable, empty_text)

    def set_prepared(self, prepared: PreparedDiff, restorable: bool = False,
                     empty_text: str = "No differences.") -> None:
        """Draw a diff prepared off the GUI thread (engine.prepared_diff.prepare)."""
        self._token.next()
        self._show(prepared, restorable, "" if prepared else empty_text)

    def set_message(self, text: str) -> None:
        """No diff, just a line of text (loading, empty, nothing selected)."""
        self._token.next()
        self._show(NO_DIFF, False, text)

    def preparing(self) -> bool:
        return self._message == PREPARING

    def prepared(self) -> PreparedDiff:
        return self._prepared

    def files(self) -> list[PreparedFile]:
        return list(self._prepared.files)

    def text(self) -> str:
        return self.toPlainText()

    def hrefs(self) -> list[str]:
        """Every restore link in the document, in order."""
        out = []
        block = self.document().begin()
        while block.isValid():
            it = block.begin()
            while not it.atEnd():
                frag = it.fragment()
                if frag.isValid() and frag.charFormat().isAnchor():
                    out.append(frag.charFormat().anchorHref())
                it += 1
            block = block.next()
        return out

    def anchor_rect(self, href: str) -> QRect | None:
        """Where a link is on the viewport (scrolled into view first); None if absent."""
        block = self.document().begin()
        while block.isValid():
            it = block.begin()
            while not it.atEnd():
                frag = it.fragment()
                if frag.isValid() and frag.charFormat().anchorHref() == href:
                    cur = QTextCursor(self.document())
                    cur.setPosition(frag.position() + min(2, frag.length() - 1))
                    self.setTextCursor(cur)
                    self.ensureCursorVisible()
                    return self.cursorRect(cur)
                it += 1
            block = block.next()
        return None

    def hunk_at(self, pos) -> tuple[str, int] | None:
        """(path, hunk) under a viewport position, if it is a restorable hunk."""
        p = self.cursorForPosition(pos).position()
        starts = [r[0] for r in self._hunk_ranges]
        i = bisect_right(starts, p) - 1
        if i >= 0 and self._hunk_ranges[i][0] <= p <= self._hunk_ranges[i][1]:
            return self._hunk_ranges[i][2], self._hunk_ranges[i][3]
        return None

    # -- interaction ----------------------------------------------------------------------------
    def _on_anchor(self, url) -> None:
        href = url.toString()
        files = self._prepared.files
        if href.startswith(HUNK_HREF):
            fi, _, n = href[len(HUNK_HREF):].partition("/")
            if fi.isdigit() and n.isdigit() and int(fi) < len(files):
                self.hunkRestoreRequested.emit(files[int(fi)].path, int(n))
        elif href.startswith(FILE_HREF):
            fi = href[len(FILE_HREF):]
            if fi.isdigit() and int(fi) < len(files):
                self.fileRestoreRequested.emit(files[int(fi)].path)

    def hunk_actions(self, pos, menu: QMenu) -> None:
        hit = self.hunk_at(pos)
        if hit is None:
            return
        path, n = hit
        menu.addSeparator()
        a = menu.addAction(f"Restore hunk {n} of {path}…")
        a.triggered.connect(lambda _=False: self.hunkRestoreRequested.emit(path, n))
        b = menu.addAction(f"Restore {path} from this snapshot…")
        b.triggered.connect(lambda _=False: self.fileRestoreRequested.emit(path))

    def contextMenuEvent(self, event) -> None:  # noqa: N802 (Qt name)
        menu = self.createStandardContextMenu(event.pos())
        self.hunk_actions(event.pos(), menu)
        menu.exec(event.globalPos())
        menu.deleteLater()

    def changeEvent(self, event) -> None:  # noqa: N802
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.FontChange):
            self._fmt_cache.clear()
            if self._prepared or self._message:
                self._render()
        super().changeEvent(event)

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        if self._mode == SPLIT and self._prepared and self._measure_half() != self._half_width:
            self._rewrap.start()

    # -- rendering --------------------------------------------------------------------------------
    def _show(self, prepared: PreparedDiff, restorable: bool, message: str) -> None:
        self._prepared, self._restorable, self._message = prepared, restorable, message
        self._render()

    def _char(self, key, build) -> QTextCharFormat:
        fmt = self._fmt_cache.get(key)
        if fmt is None:
            fmt = self._fmt_cache[key] = build()
        return fmt

    def _render(self) -> None:
        colours = DiffColours.from_palette(self.palette())
        self._colours = colours
        self._fmt_cache.clear()
        self._kindfmts = kind_formats(colours.dark)
        self._half_width = self._measure_half()
        self._rewrap.stop()
        vbar = self.verticalScrollBar().value()
        doc = QTextDocument(self)
        doc.setUndoRedoEnabled(False)
        doc.setDocumentMargin(6)
        doc.setDefaultFont(self.font())
        self._hunk_ranges = []
        self.truncated = 0
        cur = QTextCursor(doc)
        self._fresh = True          # the cursor's block is empty and may take the next block's format
        base = QTextCharFormat()
        base.setForeground(colours.text)
        self._base = base
        cur.beginEditBlock()        # one change notice for the whole build, not one per insertion
        if self._prepared:
            self._draw_files(cur)
        else:
            bf = QTextBlockFormat()
            bf.setTopMargin(12)
            cur.setBlockFormat(bf)
            cur.insertText(self._message, self._dim())
        cur.endEditBlock()
        self._replace_document(doc)
        # the view's own cursor at the start, or a new diff opens scrolled to its last file
        start = self.textCursor()
        start.movePosition(QTextCursor.MoveOperation.Start)
        self.setTextCursor(start)
        self.verticalScrollBar().setValue(vbar)

    def _replace_document(self, doc: QTextDocument) -> None:
        old = self.document()
        owned = old.parent() is self            # ours; the first one belongs to the text control, which frees it
        self.setDocument(doc)
        if owned:
            old.deleteLater()

    def _draw_files(self, cur: QTextCursor) -> None:
        budget = MAX_SPLIT_ROWS if self._mode == SPLIT else MAX_LINES
        for fi, f in enumerate(self._prepared.files):
            self._file_header(cur, fi, f, self._base)
            for h in f.hunks:
                if budget <= 0:
                    self.truncated += len(h.lines)
                    continue
                budget = self._hunk(cur, fi, f, h, budget)
        if self.truncated:
            self._block(cur, QTextBlockFormat())
            more = " (Unified shows more)" if self._mode == SPLIT else ""
            cur.insertText(f"… {self.truncated:,} more diff lines not shown{more}: the diff is longer than this view "
                           "draws. A restore still applies the whole hunk or file.", self._dim())

    def _block(self, cur: QTextCursor, fmt: QTextBlockFormat) -> None:
        """Start a new block with this format at the end of the document."""
        if self._fresh:
            cur.movePosition(QTextCursor.MoveOperation.End)
            cur.setBlockFormat(fmt)
            self._fresh = False
        else:
            cur.insertBlock(fmt)

    def _dim(self, bg: QColor | None = None) -> QTextCharFormat:
        return self._char(("dim", None if bg is None else bg.rgba()),
                          lambda: self._with_bg(self._with_fg(self._base, self._colours.dim), bg))

    def _link(self, base: QTextCharFormat, href: str) -> QTextCharFormat:
        f = QTextCharFormat(base)
        f.setAnchor(True)
        f.setAnchorHref(href)
        f.setForeground(self._colours.link)
        f.setFontUnderline(True)
        f.setFontWeight(QFont.Weight.Normal)
        return f

    def _file_header(self, cur: QTextCursor, fi: int, f: PreparedFile, base: QTextCharFormat) -> None:
        c = self._colours
        bf = QTextBlockFormat()
        bf.setBackground(c.file_bg)
        bf.setTopMargin(10 if fi else 0)
        bf.setBottomMargin(2)
        self._block(cur, bf)
        bold = QTextCharFormat(base)
        bold.setFontWeight(QFont.Weight.Bold)
        cur.insertText(" " + f.path, bold)
        cur.insertText("   ", base)
        cur.insertText(f"+{f.added}", self._with_fg(base, c.add_sign))
        cur.insertText(" ", base)
        cur.insertText(f"−{f.removed}", self._with_fg(base, c.del_sign))
        if not f.old_exists:
            cur.insertText("   (not in this snapshot: a restore leaves it as it is)" if self._restorable
                           else "   (only in the newer snapshot)", self._dim())
        elif not f.new_exists:
            cur.insertText("   (deleted since the snapshot: restoring the file brings it back)" if self._restorable
                           else "   (only in the older snapshot)", self._dim())
        if self._restorable and f.old_exists:
            cur.insertText("   ", base)
            cur.insertText("↶ Restore this file", self._link(base, f"{FILE_HREF}{fi}"))

    def _hunk(self, cur: QTextCursor, fi: int, f: PreparedFile, h: PreparedHunk, budget: int) -> int:
        c = self._colours
        restorable = self._restorable and f.old_exists
        hb = self._char("hunk-block", lambda: self._block_fmt(c.hunk_bg, top=2))
        self._block(cur, hb)
        start = cur.position()
        dim = self._dim()
        cur.insertText(" " + h.header + f"   hunk {h.index} of {len(f.hunks)} · ", dim)
        cur.insertText(f"+{h.added}", self._sign_fmt("+"))
        cur.insertText(" ", dim)
        cur.insertText(f"−{h.removed}", self._sign_fmt("-"))
        if restorable:
            cur.insertText("   ", dim)
            cur.insertText("↶ Restore this hunk", self._link(self._base, f"{HUNK_HREF}{fi}/{h.index}"))
        count = len(h.rows) if self._mode == SPLIT else len(h.lines)
        shown = min(count, budget)
        self.truncated += count - shown
        if self._mode == SPLIT:
            self._split_rows(cur, h, h.rows[:shown], f.digits)
        else:
            for line in h.lines[:shown]:
                self._unified_line(cur, line, f.digits)
        if restorable:
            self._hunk_ranges.append((start, cur.position(), f.path, h.index))
        return budget - shown

    @staticmethod
    def _block_fmt(bg: QColor | None, top: int = 0, hang: int = 0) -> QTextBlockFormat:
        bf = QTextBlockFormat()
        if bg is not None:
            bf.setBackground(bg)
        if top:
            bf.setTopMargin(top)
        if hang:
            bf.setLeftMargin(hang)
            bf.setTextIndent(-hang)
        return bf

    def _hanging(self, kind: str, prefix_chars: int, bg: bool) -> QTextBlockFormat:
        """A line's block: wrapped lines hang under its text, past the numbers and the sign."""
        return self._char(("line-block", kind, prefix_chars, bg), lambda: self._block_fmt(
            self._bg(kind) if bg else None, hang=self.fontMetrics().horizontalAdvance("0" * prefix_chars)))

    def _prefix(self, numbers: str, kind: str, bg: QColor | None = None) -> list[tuple[str, QTextCharFormat]]:
        """Line numbers dimmed, then the sign."""
        if kind == " ":
            return [(numbers + "   ", self._dim(bg))]
        return [(numbers, self._dim(bg)), (("+" if kind == "+" else "−") + "  ", self._sign_fmt(kind, bg))]

    def _unified_line(self, cur: QTextCursor, line: PreparedLine, digits: int) -> None:
        """One line as one block: numbers and sign, then the text."""
        self._block(cur, self._hanging(line.kind, 2 * digits + 5, True))
        old = "" if line.old_no is None else str(line.old_no)
        new = "" if line.new_no is None else str(line.new_no)
        for text, fmt in self._prefix(f"{old:>{digits}} {new:>{digits}} ", line.kind):
            cur.insertText(text, fmt)
        for text, fmt in self._text_runs(line):
            cur.insertText(text, fmt)

    def _split_rows(self, cur: QTextCursor, h: PreparedHunk, rows, digits: int) -> None:
        """Rows of two halves in one block each, the older side left and the newer right, the
        right one starting at a tab stop mid-width. Each half wraps its own text (in the
        fixed-pitch font's columns) into more blocks, so both stay side by side: plain blocks
        lay out far faster than a table's cells."""
        cols = self._split_cols(digits)
        bf = self._split_block()
        filler = [("\t", self._plain(self._colours.filler))]
        for row in rows:
            halves = [self._half(h.lines[i], side, digits, cols) if i is not None else ([], filler)
                      for side, i in enumerate(row)]
            for k in range(max(len(halves[0][0]), len(halves[1][0]))):
                self._block(cur, bf)
                for blocks, rest in halves:
                    for text, fmt in blocks[k] if k < len(blocks) else rest:
                        cur.insertText(text, fmt)

    def _measure_half(self) -> float:
        """Half the text width, as if the vertical scroll bar were shown (a long diff shows it)."""
        width = self.viewport().width() - 2 * 6 - 2
        if not self.verticalScrollBar().isVisible():
            width -= self.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent)
        return max(width, 200) / 2

    def _split_cols(self, digits: int) -> int:
        """Text columns in one half, after its number and sign."""
        advance = QFontMetricsF(self.font()).horizontalAdvance("0" * 10) / 10     # fractional: pixels add up
        return int(self._half_width / max(advance, 1.0)) - digits - 5

    def _split_block(self) -> QTextBlockFormat:
        def build():
            bf = QTextBlockFormat()
            bf.setNonBreakableLines(True)           # each half wraps itself; Qt must not wrap the row
            bf.setTabPositions([QTextOption.Tab(self._half_width, QTextOption.TabType.LeftTab),
                                QTextOption.Tab(2 * self._half_width, QTextOption.TabType.LeftTab)])
            return bf
        return self._char("split-block", build)

    def _half(self, line: PreparedLine, side: int, digits: int, cols: int):
        """One half of a row: the runs of each block its text wraps into (the number and sign on
        the first, then that piece of the text, then a tab that carries the half's background to
        the middle or the right edge), and the runs of a block below it while the other half
        still wraps. Adjacent runs of one format are joined: one insertion each."""
        bg = self._bg(line.kind)
        plain = self._span_fmt(None, False, line.kind, bg)      # an unstyled piece's own format: they join
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

    def _plain(self, bg: QColor | None) -> QTextCharFormat:
        return self._char(("plain", None if bg is None else bg.rgba()),
                          lambda: self._with_bg(QTextCharFormat(self._base), bg))

    @staticmethod
    def _with_bg(f: QTextCharFormat, bg: QColor | None) -> QTextCharFormat:
        if bg is not None:
            f.setBackground(bg)
        return f

    def _sign_fmt(self, kind: str, bg: QColor | None = None) -> QTextCharFormat:
        def build():
            f = self._with_fg(self._base, self._colours.add_sign if kind == "+" else self._colours.del_sign)
            f.setFontWeight(QFont.Weight.Bold)
            return self._with_bg(f, bg)
        return self._char(("sign", kind, bg is not None), build)

    def _bg(self, kind: str) -> QColor | None:
        c = self._colours
        return c.add_bg if kind == "+" else c.del_bg if kind == "-" else None

    @staticmethod
    def _with_fg(base: QTextCharFormat, colour: QColor) -> QTextCharFormat:
        f = QTextCharFormat(base)
        f.setForeground(colour)
        return f

    def _span_fmt(self, style: str | None, changed: bool, kind: str, bg: QColor | None) -> QTextCharFormat:
        key = ("span", style, changed, kind, bg is not None)
        fmt = self._fmt_cache.get(key)          # the hot path: thousands of pieces, a handful of formats
        if fmt is not None:
            return fmt

        def build():
            f = self._with_bg(QTextCharFormat(self._base), bg)
            if style in self._kindfmts:
                f.merge(self._kindfmts[style])
            if changed:
                f.setBackground(self._colours.add_mark if kind == "+" else self._colours.del_mark)
            return f
        return self._char(key, build)

    def _text_runs(self, line: PreparedLine, bg: QColor | None = None, begin: int = 0, end: int | None = None):
        """The line's text (or its [begin, end) piece) in its style runs, as (text, format)."""
        text, tabs = line.text, "\t" in line.text
        end = len(text) if end is None else end
        for start, length, style, changed in line.spans:
            a, b = max(start, begin), min(start + length, end)
            if a < b:
                piece = text[a:b]
                yield piece.replace("\t", "    ") if tabs else piece, self._span_fmt(style, changed, line.kind, bg)
        if not line.eol and end == len(text):
            yield "  ⏎ no newline at end of file", self._dim(bg)


def _join(runs: list[tuple[str, QTextCharFormat]], text: str, fmt: QTextCharFormat) -> None:
    """Append a run, joined to the last one when it has the very same format."""
    if runs and runs[-1][1] is fmt:
        runs[-1] = (runs[-1][0] + text, fmt)
    else:
        runs.append((text, fmt))
