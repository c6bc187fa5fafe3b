"""A diff of memory files: per file a header, per hunk a header with a "Restore this hunk" link,
added and removed lines on coloured backgrounds with the changed words (engine.diffs.intraline)
marked, markdown highlighted, in a unified or a side-by-side layout.

One QTextBrowser showing a document built with QTextCursor (gui.widgets.diff_document), so a long
diff costs text, not widgets. The expensive part (lexing every line, marking changed words,
pairing rows) is engine.prepared_diff.prepare, which `load` runs on the engine's reader thread;
the widget only lays the immutable PreparedDiff out with palette-aware colours. The shown layout
is built at once; the other one in short steps while the event loop is idle, and both are kept
while the diff is shown, so a toggle swaps documents. Each layout is a fresh document that
replaces the shown one: Qt lays a new document out lazily (what is visible first, the rest in
short steps between events), where rebuilding the shown one would lay it all out at once.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Callable

from dreamdesk.engine.text.prepared_diff import PreparedDiff, PreparedFile, prepare

from ..qt import (QEvent, QFontDatabase, QMenu, QRect, QStyle, QTextBrowser, QTextCursor, QTextOption, QTimer, Signal,
                  isValid)
from ..context.worker import Latest
from .diff_document import FILE_HREF, HUNK_HREF, SPLIT, UNIFIED, DiffDocument, layout_key
from .diff_look import DiffColours, DiffLook
from .context_menu import show_and_free

__all__ = ["DiffColours", "DiffView", "PREPARING", "SPLIT", "UNIFIED"]

RESIZE_DEBOUNCE_MS = 120    # side by side wraps each half itself: redrawn once a resize settles
IDLE_STEP_S = 0.008         # the hidden layout is built in steps this long, between events
PREPARING = "Preparing diff…"
NO_DIFF = PreparedDiff(())


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
        self._look: DiffLook | None = None     # formats for the palette and font; rebuilt when either changes
        self._docs: dict[tuple, DiffDocument] = {}  # the shown diff's documents, by layout_key
        self._shown: DiffDocument | None = None
        self.truncated = 0                      # lines not rendered (beyond MAX_LINES)
        self.documents_built = 0                # structure, for tests: a toggle back builds nothing
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
        self._rewrap.timeout.connect(self._resized)
        self._idle = QTimer(self)               # builds the hidden layout between events
        self._idle.setSingleShot(True)
        self._idle.setInterval(0)
        self._idle.timeout.connect(self._build_idle)

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

        latest = self._token                 # a Python object: safe to look at from the reader thread
        engine.read("prepare diff", lambda ctx: compute() if latest.current(token) else None,   # superseded: skip
                    lambda prepared: wanted() and prepared is not None and self.set_prepared(prepared, restorable,
                                                                                             empty_text),
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

    def building(self) -> bool:
        """The layout not shown is still being built, in steps while the event loop is idle."""
        return self._idle.isActive()

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
        ranges = self._hunk_ranges
        i = bisect_right([r[0] for r in ranges], p) - 1
        if i >= 0 and ranges[i][0] <= p <= ranges[i][1]:
            return ranges[i][2], ranges[i][3]
        return None

    @property
    def _hunk_ranges(self) -> list[tuple[int, int, str, int]]:
        """(start, end, path, hunk) of each restorable hunk in the shown document."""
        return self._shown.hunk_ranges if self._shown is not None else []

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
        show_and_free(menu, event.globalPos())

    def changeEvent(self, event) -> None:  # noqa: N802
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.FontChange):
            self._look = None
            self._drop_documents()
            if self._prepared or self._message:
                self._render()
        super().changeEvent(event)

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        if self._prepared and self._measure_half() != self._half_width:
            self._rewrap.start()

    def _resized(self) -> None:
        """A resize settled: side by side is drawn again at the new width; while unified is shown,
        the side by side built for the old width gives way to one built in idle time."""
        if self._mode == SPLIT:
            self._render()
            return
        self._half_width = self._measure_half()
        self._drop_documents(keep=self._fitting())
        self._idle.start()

    # -- rendering --------------------------------------------------------------------------------
    def _show(self, prepared: PreparedDiff, restorable: bool, message: str) -> None:
        self._prepared, self._restorable, self._message = prepared, restorable, message
        self._drop_documents()
        self._render()

    def _render(self) -> None:
        """Show the current layout: the document built for it if there is one, else built now."""
        self._half_width = self._measure_half()
        self._rewrap.stop()
        self._idle.stop()
        if self._look is None:
            self._look = DiffLook(self.palette(), self.font(), self.fontMetrics())
        key = layout_key(self._mode, self._half_width)
        shown = self._docs.get(key) or self._new_document(self._mode)
        self._docs[key] = shown.finish()
        self._drop_documents(keep=self._fitting())
        vbar = self.verticalScrollBar().value()
        old = self.document()
        # ours and not kept; the first belongs to the text control, which frees it
        free = old.parent() is self and all(d.doc is not old for d in self._docs.values())
        self.setDocument(shown.doc)
        if free:
            old.deleteLater()
        self._shown = shown
        self.truncated = shown.truncated
        # the view's own cursor at the start, or a new diff opens scrolled to its last file
        start = self.textCursor()
        start.movePosition(QTextCursor.MoveOperation.Start)
        self.setTextCursor(start)
        self.verticalScrollBar().setValue(vbar)
        if self._prepared and self._pending() is not None:
            self._idle.start()

    def _new_document(self, mode: str) -> DiffDocument:
        self.documents_built += 1
        return DiffDocument(self, self._look, self._prepared, self._restorable, self._message, mode, self._half_width)

    def _pending(self) -> DiffDocument | None:
        """The other layout's document, started if need be, while it is not complete."""
        other = SPLIT if self._mode == UNIFIED else UNIFIED
        key = layout_key(other, self._half_width)
        if key not in self._docs:
            self._docs[key] = self._new_document(other)
        return None if self._docs[key].done else self._docs[key]

    def _build_idle(self) -> None:
        pending = self._pending()
        if pending is not None and not pending.step(IDLE_STEP_S):
            self._idle.start()

    def _fitting(self) -> set[tuple]:
        """The keys of the documents that fit the view as it is."""
        return {layout_key(UNIFIED, self._half_width), layout_key(SPLIT, self._half_width)}

    def _drop_documents(self, keep=()) -> None:
        """Forget the documents built for other keys (another diff, look or width); free those not shown."""
        for key in [k for k in self._docs if k not in keep]:
            doc = self._docs.pop(key).doc
            if doc is not self.document():
                doc.deleteLater()

    def _measure_half(self) -> float:
        """Half the text width, as if the vertical scroll bar were shown (a long diff shows it)."""
        width = self.viewport().width() - 2 * 6 - 2
        if not self.verticalScrollBar().isVisible():
            width -= self.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent)
        return max(width, 200) / 2
