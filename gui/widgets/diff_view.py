"""A diff of memory files: per file a header, per hunk a header with a "Restore this hunk" link,
added and removed lines on coloured backgrounds with the changed words (engine.diffs.intraline)
marked, markdown highlighted with pygments, in a unified or a side-by-side layout.

One QTextBrowser whose document is built with QTextCursor (one table per file), so a long
diff costs text, not widgets. The expensive part — lexing every line and pairing removed with
added lines for the intraline marks — is `prepare_diffs`, plain Python that the view runs on the
reader thread; the widget only lays the prepared lines out with palette-aware colours.
"""

from __future__ import annotations

import difflib
from bisect import bisect_right
from dataclasses import dataclass, field

from pygments.lexers.markup import MarkdownLexer
from pygments.token import Token

from engine.diffs import FileDiff, intraline

from ..qt import (QColor, QFont, QFontDatabase, QMenu, QPalette, QRect, QTextBlockFormat, QTextBrowser,
                  QTextCharFormat, QTextCursor, QTextLength, QTextOption, QTextTableCellFormat, QTextTableFormat,
                  Qt, QEvent, Signal)
from .highlighter import _formats as markdown_formats

UNIFIED, SPLIT = "unified", "split"
MAX_LINES = 6000            # rendered lines across all files; the rest is summarised, never silently cut
MAX_SPLIT_ROWS = 1500       # side-by-side rows (tables lay out slower than lines)
MIN_PAIR_SIMILARITY = 0.3   # below this, a removed/added pair is two different lines: no word marks
SPLIT_TABLE_ROWS = 100      # side-by-side rows per table
HUNK_HREF, FILE_HREF = "restore-hunk:", "restore-file:"

# one segment of a line: (text, pygments token type or None, changed within its pair)
Segment = tuple[str, object, bool]


@dataclass(slots=True)
class PLine:
    kind: str                       # " ", "-", "+"
    old_no: int | None
    new_no: int | None
    segs: list[Segment]
    eol: bool                       # the line ended with a newline


@dataclass(slots=True)
class PHunk:
    index: int                      # 1-based, as in the FileDiff (and restore_snapshot)
    header: str
    added: int
    removed: int
    lines: list[PLine]


@dataclass(slots=True)
class PFile:
    path: str
    old_exists: bool
    new_exists: bool
    added: int
    removed: int
    hunks: list[PHunk] = field(default_factory=list)


# -- preparing (no Qt; runs on the reader thread) ----------------------------------------------

def _tokens(lexer: MarkdownLexer, text: str) -> list[tuple[int, object]]:
    """(start, token type) runs of one line."""
    out: list[tuple[int, object]] = []
    if not text:
        return out
    for index, ttype, value in lexer.get_tokens_unprocessed(text + "\n"):
        if value and index < len(text):
            out.append((index, ttype))
    return out


def _segments(lexer: MarkdownLexer, text: str, marks: list[tuple[int, int]]) -> list[Segment]:
    """Split a line at token boundaries and at the edges of the changed spans."""
    toks = _tokens(lexer, text)
    cuts = {0, len(text)}
    cuts.update(start for start, _ in toks)
    for a, b in marks:
        cuts.update((a, b))
    cuts = sorted(c for c in cuts if 0 <= c <= len(text))
    starts = [s for s, _ in toks]
    segs: list[Segment] = []
    m = 0
    for a, b in zip(cuts, cuts[1:]):
        if a == b:
            continue
        i = bisect_right(starts, a) - 1
        ttype = toks[i][1] if i >= 0 else None
        while m < len(marks) and marks[m][1] <= a:
            m += 1
        changed = m < len(marks) and marks[m][0] <= a < marks[m][1]
        if segs and segs[-1][1] is ttype and segs[-1][2] == changed:
            segs[-1] = (segs[-1][0] + text[a:b], ttype, changed)
        else:
            segs.append((text[a:b], ttype, changed))
    return segs


def _spans(parts: list[tuple[str, str]], kind: str) -> list[tuple[int, int]]:
    spans, pos = [], 0
    for k, t in parts:
        if k == kind and t.strip():
            spans.append((pos, pos + len(t)))
        pos += len(t)
    return spans


def _strip(text: str) -> tuple[str, bool]:
    if text.endswith("\n"):
        return text[:-1].removesuffix("\r"), True
    return text, False


def change_pairs(kinds: list[str]) -> list[tuple[int | None, int | None]]:
    """Rows of a side-by-side hunk as (left line index, right line index): context lines on both
    sides, each run of removed lines paired with the run of added lines that follows it."""
    rows: list[tuple[int | None, int | None]] = []
    i = 0
    while i < len(kinds):
        if kinds[i] == " ":
            rows.append((i, i))
            i += 1
            continue
        minus, plus = [], []
        while i < len(kinds) and kinds[i] == "-":
            minus.append(i)
            i += 1
        while i < len(kinds) and kinds[i] == "+":
            plus.append(i)
            i += 1
        for k in range(max(len(minus), len(plus))):
            rows.append((minus[k] if k < len(minus) else None, plus[k] if k < len(plus) else None))
    return rows


def prepare_diffs(diffs: list[FileDiff]) -> list[PFile]:
    """Lex every line and mark the changed words of each removed/added pair."""
    lexer = MarkdownLexer()
    files: list[PFile] = []
    for d in diffs:
        pf = PFile(d.path, d.old_exists, d.new_exists, d.added, d.removed)
        for h in d.hunks:
            texts = [_strip(x.text) for x in h.lines]
            marks: dict[int, list[tuple[int, int]]] = {}
            for left, right in change_pairs([x.kind for x in h.lines]):
                if left is None or right is None or left == right:
                    continue
                a, b = texts[left][0], texts[right][0]
                if difflib.SequenceMatcher(None, a, b, autojunk=False).quick_ratio() < MIN_PAIR_SIMILARITY:
                    continue
                la, rb = intraline(a, b)
                same = sum(len(t) for k, t in la if k == "=")
                if same < MIN_PAIR_SIMILARITY * max(len(a), len(b), 1):
                    continue
                marks[left] = _spans(la, "-")
                marks[right] = _spans(rb, "+")
            lines = [PLine(x.kind, x.old_no, x.new_no, _segments(lexer, texts[i][0], marks.get(i, [])), texts[i][1])
                     for i, x in enumerate(h.lines)]
            pf.hunks.append(PHunk(h.index, h.header, h.added, h.removed, lines))
        files.append(pf)
    return files


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
    """Shows a list[FileDiff]. With `restorable`, each file header and hunk header carries a
    restore link (and the context menu on a hunk the same actions)."""

    hunkRestoreRequested = Signal(str, int)     # path, 1-based hunk index
    fileRestoreRequested = Signal(str)          # path

    def __init__(self, parent=None):
        super().__init__(parent)
        self._files: list[PFile] = []
        self._restorable = False
        self._mode = UNIFIED
        self._message = ""
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

    # -- public -------------------------------------------------------------------------------
    def mode(self) -> str:
        return self._mode

    def set_mode(self, mode: str) -> None:
        if mode not in (UNIFIED, SPLIT):
            raise ValueError(mode)
        if mode != self._mode:
            self._mode = mode
            self._render()

    def set_diffs(self, diffs: list[FileDiff], prepared: list[PFile] | None = None, restorable: bool = False,
                  empty_text: str = "No differences.") -> None:
        self._files = prepared if prepared is not None else prepare_diffs(diffs)
        self._restorable = restorable
        self._message = "" if self._files else empty_text
        self._render()

    def set_message(self, text: str) -> None:
        """No diff, just a line of text (loading, empty, nothing selected)."""
        self._files = []
        self._restorable = False
        self._message = text
        self._render()

    def files(self) -> list[PFile]:
        return list(self._files)

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
        if href.startswith(HUNK_HREF):
            fi, _, n = href[len(HUNK_HREF):].partition("/")
            if fi.isdigit() and n.isdigit() and int(fi) < len(self._files):
                self.hunkRestoreRequested.emit(self._files[int(fi)].path, int(n))
        elif href.startswith(FILE_HREF):
            fi = href[len(FILE_HREF):]
            if fi.isdigit() and int(fi) < len(self._files):
                self.fileRestoreRequested.emit(self._files[int(fi)].path)

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
            if self._files or self._message:
                self._render()
        super().changeEvent(event)

    # -- rendering --------------------------------------------------------------------------------
    def _char(self, key, build) -> QTextCharFormat:
        fmt = self._fmt_cache.get(key)
        if fmt is None:
            fmt = self._fmt_cache[key] = build()
        return fmt

    def _render(self) -> None:
        colours = DiffColours.from_palette(self.palette())
        self._colours = colours
        self._fmt_cache.clear()
        self._right = QTextBlockFormat()
        self._right.setAlignment(Qt.AlignmentFlag.AlignRight)
        self._tokfmts = markdown_formats(colours.dark)
        vbar = self.verticalScrollBar().value()
        doc = self.document()
        doc.clear()
        self._hunk_ranges = []
        self.truncated = 0
        cur = QTextCursor(doc)
        self._fresh = True          # the cursor's block is empty and may take the next block's format
        cur.beginEditBlock()
        base = QTextCharFormat()
        base.setForeground(colours.text)
        self._base = base
        if not self._files:
            bf = QTextBlockFormat()
            bf.setTopMargin(12)
            cur.setBlockFormat(bf)
            cur.insertText(self._message, self._dim())
            cur.endEditBlock()
            return
        budget = MAX_SPLIT_ROWS if self._mode == SPLIT else MAX_LINES
        for fi, f in enumerate(self._files):
            self._file_header(cur, fi, f, base)
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
        cur.endEditBlock()
        # the view's own cursor at the start, or a new diff opens scrolled to its last file
        start = self.textCursor()
        start.movePosition(QTextCursor.MoveOperation.Start)
        self.setTextCursor(start)
        self.verticalScrollBar().setValue(vbar)

    def _block(self, cur: QTextCursor, fmt: QTextBlockFormat) -> None:
        """Start a new block with this format at the end of the document."""
        if self._fresh:
            cur.movePosition(QTextCursor.MoveOperation.End)
            cur.setBlockFormat(fmt)
            self._fresh = False
        else:
            cur.insertBlock(fmt)

    def _dim(self) -> QTextCharFormat:
        return self._char("dim", lambda: self._with_fg(self._base, self._colours.dim))

    def _link(self, base: QTextCharFormat, href: str) -> QTextCharFormat:
        f = QTextCharFormat(base)
        f.setAnchor(True)
        f.setAnchorHref(href)
        f.setForeground(self._colours.link)
        f.setFontUnderline(True)
        f.setFontWeight(QFont.Weight.Normal)
        return f

    def _file_header(self, cur: QTextCursor, fi: int, f: PFile, base: QTextCharFormat) -> None:
        c = self._colours
        bf = QTextBlockFormat()
        bf.setBackground(c.file_bg)
        bf.setTopMargin(10 if fi else 0)
        bf.setBottomMargin(2)
        self._block(cur, bf)
        bold = QTextCharFormat(base)
        bold.setFontWeight(QFont.Weight.Bold)
        cur.insertText(" " + f.path, bold)
        plus = QTextCharFormat(base)
        plus.setForeground(c.add_sign)
        minus = QTextCharFormat(base)
        minus.setForeground(c.del_sign)
        cur.insertText("   ", base)
        cur.insertText(f"+{f.added}", plus)
        cur.insertText(" ", base)
        cur.insertText(f"−{f.removed}", minus)
        dim = QTextCharFormat(base)
        dim.setForeground(c.dim)
        if not f.old_exists:
            cur.insertText("   (not in this snapshot: a restore leaves it as it is)" if self._restorable
                           else "   (only in the newer snapshot)", dim)
        elif not f.new_exists:
            cur.insertText("   (deleted since the snapshot: restoring the file brings it back)" if self._restorable
                           else "   (only in the older snapshot)", dim)
        if self._restorable and f.old_exists:
            cur.insertText("   ", base)
            cur.insertText("↶ Restore this file", self._link(base, f"{FILE_HREF}{fi}"))

    def _hunk(self, cur: QTextCursor, fi: int, f: PFile, h: PHunk, budget: int) -> int:
        c = self._colours
        restorable = self._restorable and f.old_exists
        hb = self._char("hunk-block", lambda: self._block_fmt(c.hunk_bg, top=2))
        self._block(cur, hb)
        start = cur.position()
        dim = self._dim()
        cur.insertText(" " + h.header, dim)
        cur.insertText(f"   hunk {h.index} of {len(f.hunks)} · ", dim)
        cur.insertText(f"+{h.added}", self._sign_fmt(self._base, "+"))
        cur.insertText(" ", dim)
        cur.insertText(f"−{h.removed}", self._sign_fmt(self._base, "-"))
        if restorable:
            cur.insertText("   ", dim)
            cur.insertText("↶ Restore this hunk", self._link(self._base, f"{HUNK_HREF}{fi}/{h.index}"))
        if self._mode == SPLIT:
            rows = change_pairs([x.kind for x in h.lines])
        else:
            rows = [(i, i) for i in range(len(h.lines))]
        if len(rows) > budget:
            self.truncated += len(rows) - budget
            rows = rows[:budget]
        digits = max([len(str(n)) for x in f.hunks[-1].lines for n in (x.old_no, x.new_no) if n] or [1])
        if self._mode == SPLIT:
            for k in range(0, len(rows), SPLIT_TABLE_ROWS):      # a QTextTable lays out as a whole: keep them short
                self._split_table(cur, h, rows[k:k + SPLIT_TABLE_ROWS], digits)
        else:
            for i, _ in rows:
                self._unified_line(cur, h.lines[i], digits)
        if restorable:
            self._hunk_ranges.append((start, cur.position(), f.path, h.index))
        return budget - len(rows)

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

    def _unified_line(self, cur: QTextCursor, line: PLine, digits: int) -> None:
        """One line as one block: numbers and sign, then the text; wrapped lines hang under the text."""
        prefix_chars = 2 * digits + 5
        key = ("line-block", line.kind, prefix_chars)
        bf = self._char(key, lambda: self._block_fmt(self._bg(line.kind),
                                                     hang=self.fontMetrics().horizontalAdvance("0" * prefix_chars)))
        self._block(cur, bf)
        old = "" if line.old_no is None else str(line.old_no)
        new = "" if line.new_no is None else str(line.new_no)
        cur.insertText(f"{old:>{digits}} {new:>{digits}} ", self._dim())
        if line.kind == " ":
            cur.insertText("  ", self._base)
        else:
            cur.insertText(line.kind if line.kind == "+" else "−", self._sign_fmt(self._base, line.kind))
            cur.insertText(" ", self._base)
        cur.insertText(" ", self._base)
        self._line_text(cur, line, self._base)

    def _split_table(self, cur: QTextCursor, h: PHunk, rows, digits: int) -> None:
        """The hunk's rows as one table: older side left, newer side right (one table per hunk keeps
        the document's layout incremental)."""
        if not rows:
            return
        fm = self.fontMetrics()
        num_w = fm.horizontalAdvance("0" * digits) + 8
        sign_w = fm.horizontalAdvance("+") + 6
        tf = QTextTableFormat()
        tf.setBorder(0)
        tf.setBorderStyle(QTextTableFormat.BorderStyle.BorderStyle_None)
        tf.setCellSpacing(0)
        tf.setCellPadding(1)
        tf.setMargin(0)
        tf.setWidth(QTextLength(QTextLength.Type.PercentageLength, 100))
        tf.setColumnWidthConstraints([
            QTextLength(QTextLength.Type.FixedLength, num_w), QTextLength(QTextLength.Type.FixedLength, sign_w),
            QTextLength(QTextLength.Type.PercentageLength, 50),
            QTextLength(QTextLength.Type.FixedLength, num_w), QTextLength(QTextLength.Type.FixedLength, sign_w),
            QTextLength(QTextLength.Type.PercentageLength, 50)])
        cur.movePosition(QTextCursor.MoveOperation.End)
        table = cur.insertTable(len(rows), 6, tf)
        cells: dict = {}

        def cell_fmt(bg: QColor | None) -> QTextTableCellFormat:
            key = None if bg is None else bg.rgba()
            if key not in cells:
                cf = QTextTableCellFormat()
                if bg is not None:
                    cf.setBackground(bg)
                cf.setLeftPadding(3)
                cf.setRightPadding(3)
                cells[key] = cf
            return cells[key]

        for r, (left, right) in enumerate(rows):
            self._side(table, r, 0, h.lines[left] if left is not None else None, "old", self._base, cell_fmt)
            self._side(table, r, 3, h.lines[right] if right is not None else None, "new", self._base, cell_fmt)
        cur.movePosition(QTextCursor.MoveOperation.End)
        self._fresh = True

    def _sign_fmt(self, base: QTextCharFormat, kind: str) -> QTextCharFormat:
        def build():
            f = QTextCharFormat(base)
            f.setForeground(self._colours.add_sign if kind == "+" else self._colours.del_sign)
            f.setFontWeight(QFont.Weight.Bold)
            return f
        return self._char(("sign", kind), build)

    def _bg(self, kind: str) -> QColor | None:
        c = self._colours
        return c.add_bg if kind == "+" else c.del_bg if kind == "-" else None

    def _side(self, table, row: int, col: int, line: PLine | None, side: str, base, cell_fmt) -> None:
        c = self._colours
        if line is None:
            for k in range(3):
                table.cellAt(row, col + k).setFormat(cell_fmt(c.filler))
            return
        bg = self._bg(line.kind)
        no = line.old_no if side == "old" else line.new_no
        dim = self._char("dim", lambda: self._with_fg(base, c.dim))
        nc = table.cellAt(row, col)
        nc.setFormat(cell_fmt(bg))
        if no is not None:
            self._number(nc, no, dim)
        sc = table.cellAt(row, col + 1)
        sc.setFormat(cell_fmt(bg))
        if line.kind != " ":
            sc.firstCursorPosition().insertText(line.kind if line.kind == "+" else "−", self._sign_fmt(base, line.kind))
        tc = table.cellAt(row, col + 2)
        tc.setFormat(cell_fmt(bg))
        self._line_text(tc.firstCursorPosition(), line, base)

    def _number(self, cell, value: int, fmt: QTextCharFormat) -> None:
        cur = cell.firstCursorPosition()
        cur.setBlockFormat(self._right)
        cur.insertText(str(value), fmt)

    @staticmethod
    def _with_fg(base: QTextCharFormat, colour: QColor) -> QTextCharFormat:
        f = QTextCharFormat(base)
        f.setForeground(colour)
        return f

    def _token_fmt(self, ttype):
        while ttype is not None:
            if ttype in self._tokfmts:
                return self._tokfmts[ttype]
            ttype = ttype.parent
        return None

    def _line_text(self, cur: QTextCursor, line: PLine, base: QTextCharFormat) -> None:
        c = self._colours
        for text, ttype, changed in line.segs:
            key = ("seg", ttype, changed, line.kind)

            def build(ttype=ttype, changed=changed):
                f = QTextCharFormat(base)
                tf = self._token_fmt(ttype) if ttype is not None and ttype is not Token.Text else None
                if tf is not None:
                    f.merge(tf)
                if changed:
                    f.setBackground(c.add_mark if line.kind == "+" else c.del_mark)
                return f
            cur.insertText(text.replace("\t", "    "), self._char(key, build))
        if not line.eol:
            cur.insertText("  ⏎ no newline at end of file", self._char("dim", lambda: self._with_fg(base, c.dim)))
