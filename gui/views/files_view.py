"""View and edit the memory files: markdown highlighting, a size/budget line that follows the
typing, and a hash-checked save that offers Reload / Overwrite / Compare on a conflict."""

from __future__ import annotations

import html

from dataclasses import dataclass
from typing import Callable

from dreamdesk.engine.assistants import assistant_of
from dreamdesk.engine.home.budgets import budget_state, percent_label
from dreamdesk.engine.text.diffs import diff_texts
from dreamdesk.engine.disk.files import read_state
from dreamdesk.engine.text.prepared_diff import prepare
from dreamdesk.engine.disk.read_only import ReadOnly, ReadOnlyKind
from dreamdesk.engine.ops.edit import Saved
from dreamdesk.engine.ops.result import OpResult
from dreamdesk.engine.text.textform import BOM, normalise, prompt_chars
from dreamdesk.engine.home.workspace import Workspace

from ..operations.edit import save_edit
from ..operations.pin import pin_entry, unpin_entry
from ..operations.run import Initiator
from ..models.base import blend, theme
from ..qt import (QDialog, QDialogButtonBox, QFontDatabase, QHBoxLayout, QLabel, QMessageBox, QPalette, QPlainTextEdit,
                  QPushButton, QSplitter, Qt, QTextCursor, QTextEdit, QTextFormat, QTimer, QVBoxLayout, QWidget,
                  Signal)
from ..operations.edit import apply_action
from ..widgets.context_menu import show_and_free
from .entry_actions import ASKS, TextAsks, add_actions, directive_at
from ..widgets.file_list import FileList
from ..widgets.gauge import STATE_COLOURS, STATE_WORDS
from ..widgets.highlighter import MarkdownHighlighter
from ..context.worker import JobLanes, Latest
from .common import read_latest
from .promoted_panel import PANEL_WIDTH, PromotedPanel, source_html

# Memory files are a few thousand characters (Dream's absolute cap is 64,000); far above that,
# markdown highlighting is switched off so a huge file opens at once.
HIGHLIGHT_LIMIT = 200_000
BLAME_DELAY_MS = 120


@dataclass
class Loaded:
    path: str
    text: str                        # as the editor shows it (\n endings, no BOM): dirty compares with this
    hash: str
    read_only: str | None = None     # why this file is shown but never written (None: editable)
    bom: bool = False                # the file starts with a BOM (the editor hides it; it counts in the size)
    notes: tuple = ()                # what the assistant's own records say of its entries (base.EntryNote)
    actions: tuple = ()              # the structured edits the assistant defines for it (Assistant.edit_actions)


_READ_ONLY_WORDS = {
    ReadOnlyKind.LINK_OUTSIDE: "{path} is a symlink leading outside the workspace ({detail}); shown read-only, "
                               "Dreamdesk never writes through it",
    ReadOnlyKind.FOLDER: "{path} is a folder, not a file",
    ReadOnlyKind.UNREADABLE: "{path} cannot be read ({detail})",
    ReadOnlyKind.HOME: "{detail}",
    ReadOnlyKind.NOT_UTF8: "{detail}: shown with replacement characters, and saving would replace those bytes. "
                           "Fix its encoding outside Dreamdesk first.",
}


def read_only_text(why: ReadOnly | None) -> str | None:
    """The engine's reason a file is shown but never saved, in the editor's words."""
    return None if why is None else _READ_ONLY_WORDS[why.kind].format(path=why.path, detail=why.detail)



def assistant_note_html(line_no: int, note) -> str:
    """The blame line for an entry the assistant's own records tell of (engine.assistants.base.EntryNote):
    its title, its source lines as a link that opens them, its details."""
    out = f"Line {line_no + 1}: {html.escape(note.title)}"
    if note.source is not None:
        out += " · from " + source_html(note.source, note.promoted.source_exists if note.promoted else None)
    if note.details:
        out += "<br>" + "<br>".join(html.escape(d) for d in note.details)
    return out

class ConflictDialogs:
    """The questions the editor asks; tests replace them. Each dialog is built by its own method
    so a test can look at what a person would see (buttons, default, the diff) without exec."""

    def __init__(self, engine: JobLanes):
        self.engine = engine                # the compare's diff is prepared on its reader thread

    def conflict(self, parent: QWidget, path: str) -> str:
        box, choices = self.conflict_box(parent, path)
        box.exec()
        return choices.get(box.clickedButton(), "cancel")

    @staticmethod
    def conflict_box(parent: QWidget | None, path: str) -> tuple[QMessageBox, dict]:
        box = QMessageBox(QMessageBox.Icon.Warning, "File changed on disk",
                          f"{path} changed on disk since you opened it (the assistant or Dream may have "
                          "written it).\n\nReload: drop your edit and load the file as it is now.\n"
                          "Overwrite: save your text over it (entries it removes go to the archive first).\n"
                          "Compare: see the differences first.", parent=parent)
        reload_b = box.addButton("Reload", QMessageBox.ButtonRole.DestructiveRole)
        over_b = box.addButton("Overwrite", QMessageBox.ButtonRole.AcceptRole)
        cmp_b = box.addButton("Compare", QMessageBox.ButtonRole.ActionRole)
        cancel_b = box.addButton(QMessageBox.StandardButton.Cancel)
        # Enter must not overwrite the assistant's write: the safe choice is the default
        box.setDefaultButton(cmp_b)
        box.setEscapeButton(cancel_b)
        return box, {reload_b: "reload", over_b: "overwrite", cmp_b: "compare"}

    def compare(self, parent: QWidget, path: str, disk: str, mine: str) -> str:
        """The coloured diff (on disk → your edit) with the same choices; "back" asks again."""
        dlg, _view, choices = self.compare_dialog(parent, path, disk, mine, self.engine)
        dlg.exec()
        return choices.get(getattr(dlg, "chosen", None), "back")

    @staticmethod
    def compare_dialog(parent: QWidget | None, path: str, disk: str, mine: str, engine: JobLanes):
        """The dialog opens at once saying "Preparing diff…"; the buttons work before the diff is in."""
        from ..widgets.diff_view import DiffView
        dlg = QDialog(parent)
        dlg.setWindowTitle(f"{path}: on disk → your edit")
        lay = QVBoxLayout(dlg)
        view = DiffView()
        view.load(engine, lambda: prepare([d for d in [diff_texts(disk, mine, path)] if d.changed]),
                  empty_text="Your edit and the file on disk are the same.")
        lay.addWidget(view)
        bb = QDialogButtonBox()
        reload_b = bb.addButton("Reload from disk", QDialogButtonBox.ButtonRole.DestructiveRole)
        over_b = bb.addButton("Overwrite with my edit", QDialogButtonBox.ButtonRole.AcceptRole)
        back_b = bb.addButton("Back", QDialogButtonBox.ButtonRole.RejectRole)
        for b in (reload_b, over_b):
            b.setAutoDefault(False)           # Enter never reloads or overwrites, even with focus there
        back_b.setDefault(True)
        view.setFocus()                       # keys scroll the diff first
        for b in (reload_b, over_b, back_b):
            b.clicked.connect(lambda _=False, b=b: (setattr(dlg, "chosen", b), dlg.accept()))
        lay.addWidget(bb)
        dlg.resize(820, 560)
        return dlg, view, {reload_b: "reload", over_b: "overwrite", back_b: "back"}


def _note_bar(background: str) -> QLabel:
    """A hidden one-line notice above the editor, shown when it has something to say."""
    bar = QLabel()
    bar.setWordWrap(True)
    bar.setStyleSheet(f"background: {background}; color: black; padding: 4px;")
    bar.hide()
    return bar


class FilesView(QWidget):
    unsavedChanged = Signal(bool)         # the editor now holds (or no longer holds) an unsaved edit
    historyCursorRequested = Signal(int)  # a blame link to a history entry
    status = Signal(str)                  # a status-bar message
    pinsChanged = Signal()                # an entry was pinned or unpinned here

    def __init__(self, engine: JobLanes, parent: QWidget | None = None):
        super().__init__(parent)
        self.engine = engine
        self.ws: Workspace | None = None
        self.budgets: dict[str, int] = {}
        self.loaded: Loaded | None = None
        self._savable = False                 # what unsavedChanged last said
        self.dialogs = ConflictDialogs(engine)
        self.entry_asks = TextAsks()           # the text an assistant's structured edit asks for (tests replace it)
        self._token = Latest()
        self._disk_changed = False
        self._pin_busy = False

        self.list = FileList()
        self.list.setMaximumWidth(320)
        # whole names fit by default ("memory/MEMORY.md", a skill's folder); longer ones are
        # elided in the middle, never cut off behind a scroll bar, and shown whole as a tooltip
        self.list.setMinimumWidth(self.list.fontMetrics().horizontalAdvance("skills/weekly-review/SKILL.md") + 16)
        self.list.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.pathChosen.connect(self._open_selected)
        self.editor = QPlainTextEdit()
        self.editor.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        # wrapped to its width: a line longer than the editor is never cut off behind a scroll bar
        # (issue 25.6; a hand-wrapped file wider than the editor gets short tails instead)
        self.editor.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.editor.textChanged.connect(self._update_size)
        self.highlighter = MarkdownHighlighter(self.editor.document(), self.palette())
        self.size_line = QLabel()
        self.size_line.setTextFormat(Qt.TextFormat.RichText)
        self.size_line.setWordWrap(True)      # (one line wide would keep the panel beside the editor narrow)
        self.blame = QLabel()
        self.blame.setTextFormat(Qt.TextFormat.RichText)
        self.blame.setWordWrap(True)
        self.blame.linkActivated.connect(self._blame_link)
        self.provenance: dict = {}
        self._go_to_lines: tuple[str, int, int] | None = None   # a file's lines to select once it is loaded
        self.promoted = PromotedPanel()          # the entries the assistant's dreaming promoted into the file
        self.promoted.lineChosen.connect(self.go_to_line)
        self.promoted.linkActivated.connect(self._blame_link)
        # the blame line follows the cursor a moment later (one split of the file per edit, not
        # one per keystroke: a 2 MB file made every arrow key cost ~100 ms)
        self._entries_cache: tuple[int, list] | None = None
        self._blame_timer = QTimer(self)
        self._blame_timer.setSingleShot(True)
        self._blame_timer.setInterval(BLAME_DELAY_MS)
        self._blame_timer.timeout.connect(self._update_blame)
        self.editor.cursorPositionChanged.connect(self._blame_timer.start)
        self.pinned: set[tuple[str, str]] = set()      # (file, text) of every pin
        self.pin_button = QPushButton("Pin entry")
        self.pin_button.clicked.connect(self.toggle_pin)
        self.editor.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.editor.customContextMenuRequested.connect(
            lambda pos: show_and_free(self.context_menu(), self.editor.mapToGlobal(pos)))
        self.banner = _note_bar("#e0a100")            # the file changed on disk under an edit
        self.read_only_note = _note_bar("#c9d7e8")    # why this file opens read-only
        self.save_button = QPushButton("Save")
        self.save_button.setToolTip("Save (Ctrl+S): hash-checked; removed entries go to the archive first")
        self.save_button.clicked.connect(self.save)
        self.reload_button = QPushButton("Reload")
        self.reload_button.clicked.connect(self.reload)

        self._lay_out()
        self._update_size()
        self._update_pin_action()

    def _lay_out(self) -> None:
        """The file list left; right of it the notices, the editor with the promoted entries
        beside it, the blame line and the size line with the buttons."""
        # the promoted entries beside the editor, in a splitter of their own: the remembered one
        # (window_layout) keeps its two panes whether or not a file has any
        self.beside = QSplitter(Qt.Orientation.Horizontal)
        self.beside.setObjectName("promotedSplitter")
        self.beside.setChildrenCollapsible(False)
        self.beside.addWidget(self.editor)
        self.beside.addWidget(self.promoted)
        self.beside.setStretchFactor(0, 1)
        self.beside.splitterMoved.connect(lambda *_: setattr(self, "_beside_moved", True))
        self._beside_moved = False
        right = QWidget()
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addWidget(self.banner)
        rl.addWidget(self.read_only_note)
        rl.addWidget(self.beside, 1)
        rl.addWidget(self.blame)
        bottom = QHBoxLayout()
        bottom.addWidget(self.size_line, 1)
        bottom.addWidget(self.pin_button)
        bottom.addWidget(self.reload_button)
        bottom.addWidget(self.save_button)
        rl.addLayout(bottom)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.list)
        self.splitter.addWidget(right)
        self.splitter.setStretchFactor(1, 1)
        lay = QVBoxLayout(self)
        lay.addWidget(self.splitter)

    # -- state ------------------------------------------------------------------------------
    @property
    def dirty(self) -> bool:
        return self.loaded is not None and self.editor_text() != self.loaded.text

    def editor_text(self) -> str:
        """The editor's text exactly: toPlainText would turn no-break spaces into spaces, so an
        untouched line holding one would read as edited (and be saved changed)."""
        return self.editor.document().toRawText().replace("\u2029", "\n")

    def set_workspace(self, ws: Workspace, files: list[str], budgets: dict[str, int],
                      provenance: dict | None = None) -> None:
        new_ws = self.ws is None or ws.root != self.ws.root
        if provenance is not None:
            self.provenance = provenance
        self.ws = ws
        self.budgets = budgets
        current = self.list.current_path()
        if self.list.fill(files) and current in files and not new_ws:
            self.list.select(current, quietly=True)
        self._list_notes(ws)         # (again on each change: a note's size may have changed)
        if new_ws or self.list.currentItem() is None:
            self.loaded = None
            self.promoted.set_notes(())
            self.editor.blockSignals(True)
            self.editor.setPlainText("")      # never the last workspace's text under this one's name
            self.editor.blockSignals(False)
            if files:
                self.list.select(files[0], quietly=True)   # the same row in the last workspace sends no signal
                self._load(files[0])
        self._update_size()

    def _list_notes(self, ws: Workspace) -> None:
        """The assistant's dated notes, read off the GUI thread, listed apart with their day and size."""
        def done(notes) -> None:
            if notes is not None:
                self.list.show_notes(notes)
        self.engine.read("list the daily notes", lambda ctx: assistant_of(ws).listed_notes(ws), done,
                         wanted=lambda: self.ws is ws)

    def files_changed(self, paths: set[str]) -> None:
        """Writes to the files (another writer's from the watcher, Dreamdesk's from their job's
        change record): reload a clean editor, warn a dirty one. Our own save comes back here
        too: the bytes are what the editor holds, so nothing is reloaded (undo and the cursor stay)."""
        if self.loaded is None or self.loaded.path not in paths:
            return
        if self.dirty:
            self._check_disk()
            return
        ws, loaded = self.ws, self.loaded

        def job(ctx):
            return read_state(ws.root / loaded.path).hash

        def done(h) -> None:
            if h != loaded.hash and self.loaded is loaded and not self.dirty:
                self._load(loaded.path, keep_view=True)
        self.engine.read("check file", job, done)

    def _check_disk(self) -> None:
        ws, loaded = self.ws, self.loaded

        def job(ctx):
            return read_state(ws.root / loaded.path).hash
        # a check that finishes after a save or reload compared the old text: dropped
        self.engine.read("check file", job,
                         lambda h: self._show_banner(h != loaded.hash) if self.loaded is loaded else None)

    def _show_banner(self, changed: bool) -> None:
        self._disk_changed = changed
        if changed and self.loaded:
            self.banner.setText(f"{self.loaded.path} changed on disk while you were editing. Saving will ask "
                                "whether to reload, overwrite or compare.")
        self.banner.setVisible(changed)

    # -- loading ----------------------------------------------------------------------------
    def open_path(self, path: str) -> None:
        self.list.select(path)

    def _open_selected(self, path: str) -> None:
        if not path or self.ws is None:
            return
        if self.loaded and path == self.loaded.path:
            return
        if self.dirty and not self._confirm_discard():
            self.list.select(self.loaded.path, quietly=True)
            return
        self._load(path)

    def _confirm_discard(self) -> bool:
        answer = QMessageBox.question(self, "Unsaved edit", f"Discard your unsaved edit of {self.loaded.path}?")
        return answer == QMessageBox.StandardButton.Yes

    def reload(self) -> None:
        if self.loaded:
            self._load(self.loaded.path)

    def _load(self, path: str, keep_view: bool = False) -> None:
        """Load `path` into the editor; `keep_view`: the same file changed on disk, so keep the
        cursor and scroll position where they were."""
        def job(ws):
            state, _, why = ws.read_for_edit(path)
            who = assistant_of(ws)
            # the editor shows \n text; a save puts the file's own line endings and BOM back
            return Loaded(path, normalise(state.text), state.hash, read_only_text(why),
                          state.text.startswith(BOM), tuple(who.entry_notes(ws, path)), tuple(who.edit_actions(path)))

        def done(loaded: Loaded) -> None:
            self.loaded = loaded
            pos = self.editor.textCursor().position() if keep_view else 0
            scroll = self.editor.verticalScrollBar().value() if keep_view else 0
            # pygments on every line of a huge file would hold the GUI for seconds: plain text there
            big = len(loaded.text) > HIGHLIGHT_LIMIT
            self.highlighter.setDocument(None if big else self.editor.document())
            self.editor.blockSignals(True)
            self.editor.setPlainText(loaded.text)
            self.editor.blockSignals(False)
            loaded.text = self.editor_text()     # what the editor made of it is the unedited state
            if keep_view:
                cursor = self.editor.textCursor()
                cursor.setPosition(min(pos, len(loaded.text)))
                self.editor.setTextCursor(cursor)
                self.editor.verticalScrollBar().setValue(scroll)
            self.editor.setReadOnly(loaded.read_only is not None)
            self.read_only_note.setText(f"Read-only: {loaded.read_only}" if loaded.read_only else "")
            self.read_only_note.setVisible(loaded.read_only is not None)
            self.editor.document().setModified(False)
            self._show_promoted(loaded.notes)
            if self._go_to_lines is not None and self._go_to_lines[0] == loaded.path:
                self.go_to_line(*self._go_to_lines[1:])
            self._go_to_lines = None
            self._show_banner(False)
            self._update_size()
            self._blame_timer.start()        # the blame line is this file's, even with the cursor where it was

        read_latest(self, self._token, f"load {path}", job, done,
                    lambda msg: self.status.emit(f"Could not read {path}: {msg}"))

    def _notes_again(self, ws: Workspace, path: str, saved_hash: str) -> None:
        """The saved file's entry notes, read off the GUI thread: shown while the editor still
        holds what was saved."""
        def wanted() -> bool:
            loaded = self.loaded
            return self.ws is ws and loaded is not None and (loaded.path, loaded.hash) == (path, saved_hash) \
                and not self.dirty

        def done(notes) -> None:
            if self.loaded is not None and notes is not None:
                self.loaded.notes = tuple(notes)
                self._show_promoted(self.loaded.notes)
        self.engine.read(f"notes of {path}", lambda ctx: assistant_of(ws).entry_notes(ws, path), done,
                         wanted=wanted)

    def _show_promoted(self, notes) -> None:
        """The promoted entries of the file loaded beside the editor; the panel, when it comes,
        PANEL_WIDTH wide until the person moves the splitter between them."""
        shown = self.promoted.isVisibleTo(self)
        self.promoted.set_notes(notes)
        if self.promoted.isVisibleTo(self) and not shown and not self._beside_moved:
            total = sum(self.beside.sizes()) or self.beside.width()
            self.beside.setSizes([max(total - PANEL_WIDTH, 0), PANEL_WIDTH])

    def changeEvent(self, event) -> None:  # noqa: N802
        from ..qt import QEvent
        if event.type() == QEvent.Type.PaletteChange:
            # the highlighter's colours follow a live switch to or from a dark palette
            self.highlighter.setDocument(None)
            self.highlighter = MarkdownHighlighter(self.editor.document(), self.palette())
            if self.loaded is not None and len(self.loaded.text) > HIGHLIGHT_LIMIT:
                self.highlighter.setDocument(None)
        super().changeEvent(event)

    # -- blame ------------------------------------------------------------------------------
    def entry_at(self, line_no: int):
        """The entry of the editor's text holding line `line_no` (0-based), or None."""
        from dreamdesk.engine.text.entries import split_entries
        if self.loaded is None:
            return None
        rev = self.editor.document().revision()
        if self._entries_cache is None or self._entries_cache[0] != rev:
            self._entries_cache = (rev, split_entries(self.editor.toPlainText()))
        return next((e for e in self._entries_cache[1] if e.start <= line_no < e.end), None)

    def blame_line(self, line_no: int) -> str:
        """Who put line `line_no` (0-based) of the editor's text there, in plain words (HTML)."""
        if self.loaded is None:
            return ""
        note = next((n for n in self.loaded.notes if n.start_line <= line_no + 1 <= n.end_line), None)
        if note is not None:
            return assistant_note_html(line_no, note)
        entry = self.entry_at(line_no)
        if entry is None:
            return f"Line {line_no + 1}: structure (a heading or a blank line)."
        pinned = " <b>Pinned</b>: Dreamdesk's Dream keeps it as it is." \
            if (self.loaded.path, entry.text) in self.pinned else ""
        who = self.provenance.get((self.loaded.path, entry.text))
        if who is None:
            return (f"Line {line_no + 1}: written by hand, or before Dreamdesk recorded Dream runs "
                    "(no run record created it)." + pinned)
        links = ", ".join(f"<a href='cursor:{c}'>{c}</a>" for c in who.sources) or "no history entry"
        return (f"Line {line_no + 1}: added by Dream run <b>{who.run}</b> ({who.pass_name} pass, {who.kind}) "
                f"from history {links}." + pinned)

    def _update_blame(self) -> None:
        line = self.editor.textCursor().blockNumber()
        self.blame.setText(self.blame_line(line))
        self.promoted.follow(line + 1)
        self._mark_entry()
        self._update_pin_action()

    def _mark_entry(self) -> None:
        """The entry chosen in the promoted entries, shaded in the editor (nothing when none is)."""
        lines = self.promoted.current_lines()
        marks = []
        if lines is not None:
            doc = self.editor.document()
            first, last = doc.findBlockByNumber(lines[0] - 1), doc.findBlockByNumber(lines[1] - 1)
            mark = QTextEdit.ExtraSelection()
            _text, base, _dark = theme(self.editor.palette())
            mark.format.setBackground(blend(base, self.editor.palette().color(QPalette.ColorRole.Highlight), 0.18))
            mark.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
            mark.cursor = QTextCursor(first)
            last = last if last.isValid() else first
            mark.cursor.setPosition(last.position() + last.length() - 1, QTextCursor.MoveMode.KeepAnchor)
            marks.append(mark)
        self.editor.setExtraSelections(marks)

    # -- pins -------------------------------------------------------------------------------
    def set_pins(self, states: list) -> None:
        self.pinned = {(s.pin.file, s.pin.text) for s in states}
        self._update_blame()

    def _pin_target(self) -> tuple[object | None, str]:
        """The entry at the cursor and the action's label; why not, when it cannot be pinned."""
        line = self.editor.textCursor().blockNumber()
        entry = self.entry_at(line)
        if self.loaded is None or entry is None:
            return None, "Place the cursor on an entry (a list item or a paragraph) to pin it"
        if self.dirty:
            return None, "Save your edit first: a pin names the entry as it is in the file"
        return entry, ""

    def _update_pin_action(self) -> None:
        entry, why = self._pin_target()
        pinned = entry is not None and (self.loaded.path, entry.text) in self.pinned
        self.pin_button.setText("Unpin entry" if pinned else "Pin entry")
        self.pin_button.setEnabled(entry is not None and not self._pin_busy)
        self.pin_button.setToolTip(why or ("Stop keeping this entry as it is" if pinned else
                                           "Keep this entry as it is: Dreamdesk's Dream may not remove or reword "
                                           "it, and the Dashboard says when anything else does"))

    def context_menu(self):
        """The editor's own menu with Pin / Unpin for the entry at the cursor."""
        menu = self.editor.createStandardContextMenu()
        menu.addSeparator()
        action = menu.addAction(self.pin_button.text())
        action.setObjectName("pinAction")
        action.setEnabled(self.pin_button.isEnabled())
        action.setToolTip(self.pin_button.toolTip())
        action.triggered.connect(self.toggle_pin)
        if self.loaded is not None:
            at = directive_at(self.loaded.notes, self.editor.textCursor().blockNumber() + 1)
            add_actions(menu, self.loaded.actions, at, self.dirty, self.run_entry_action)
        return menu

    def run_entry_action(self, action: str, n: int | None) -> None:
        """One of the assistant's structured edits (asking for its text first), then the file again."""
        ws, loaded = self.ws, self.loaded
        if ws is None or loaded is None:
            return
        text = ""
        if action in ASKS:
            text = self.entry_asks.text(self, *ASKS[action])
            if text is None:
                self.status.emit("Cancelled; nothing was written")
                return
        path = loaded.path
        apply_action(Initiator(self.engine, "files", self.status.emit), ws, path, action, {"n": n, "text": text},
                     done=lambda _result: self._load(path, keep_view=True))    # the cursor stays where it was

    def toggle_pin(self) -> None:
        """Pin (or unpin) the entry at the cursor, on the writer lane."""
        entry, why = self._pin_target()
        ws, path = self.ws, self.loaded.path if self.loaded else None
        if entry is None or ws is None or self._pin_busy:
            if why:
                self.status.emit(why)
            return
        text, line = entry.text, entry.start + 1
        unpin = (path, text) in self.pinned

        def done(result) -> None:
            p = result.value if unpin else result.value[0]
            self._set_pin_busy(False)
            (self.pinned.discard if unpin else self.pinned.add)((p.file, p.text))
            self._update_blame()
            self.pinsChanged.emit()

        self._set_pin_busy(True)
        by = Initiator(self.engine, "files", self.status.emit)
        if unpin:
            unpin_entry(by, ws, path, text, done=done, failed=lambda _msg: self._set_pin_busy(False))
        else:
            pin_entry(by, ws, path, line, done=done, failed=lambda _msg: self._set_pin_busy(False))

    def _set_pin_busy(self, busy: bool) -> None:
        self._pin_busy = busy
        self._update_pin_action()

    def _blame_link(self, href: str) -> None:
        if href.startswith("cursor:"):
            self.historyCursorRequested.emit(int(href.split(":", 1)[1]))
        elif href.startswith("lines:"):           # a note an entry came from, at its lines (promoted_panel.lines_href)
            rest, _, end = href[len("lines:"):].rpartition(":")
            path, _, start = rest.rpartition(":")
            self.open_lines(path, int(start), int(end))

    def open_lines(self, path: str, start: int, end: int) -> None:
        """Open `path` in the editor with its lines start–end (1-based) selected."""
        if self.loaded is not None and self.loaded.path == path:
            self.go_to_line(start, end)
            return
        self._go_to_lines = (path, start, end)
        self.open_path(path)

    def go_to_line(self, line: int, end: int | None = None) -> None:
        """Put the cursor on line `line` (1-based) of the file shown, and show it; with `end`,
        lines line–end selected (the cursor at their start, so they show from the top)."""
        doc = self.editor.document()
        block = doc.findBlockByNumber(max(0, line - 1))
        cursor = self.editor.textCursor()
        if end is not None:
            last = doc.findBlockByNumber(min(max(end, line), doc.blockCount()) - 1)
            cursor.setPosition(last.position() + last.length() - 1)
            cursor.setPosition(block.position(), cursor.MoveMode.KeepAnchor)
        else:
            cursor.setPosition(block.position())
        self.editor.setTextCursor(cursor)
        self.editor.centerCursor()

    # -- size line --------------------------------------------------------------------------
    def _update_size(self) -> None:
        if self.loaded is None:
            self.size_line.setText("")
            self._set_savable(False)
            return
        chars = prompt_chars((BOM if self.loaded.bom else "") + self.editor_text())
        budget = self.budgets.get(self.loaded.path, 0)
        state = budget_state(chars, budget)
        colour = STATE_COLOURS[state]
        if budget:
            text = f"{chars:,} / {budget:,} characters ({percent_label(chars, budget)}) — {STATE_WORDS[state]}"
        else:
            text = f"{chars:,} characters — {STATE_WORDS[state]}"
        if state == "over":
            text += ". Advisory only: your own edits are never refused."
        mark = " · unsaved" if self.dirty else ""
        if self.loaded is not None and len(self.loaded.text) > HIGHLIGHT_LIMIT:
            mark += " · highlighting off for a file this large"
        self.size_line.setText(f"<span style='color:{colour}; font-weight:bold'>■</span> {text}{mark}")
        self._set_savable(self.dirty and self.loaded.read_only is None)

    def _set_savable(self, savable: bool) -> None:
        self.save_button.setEnabled(savable)
        if savable != self._savable:
            self._savable = savable
            self.unsavedChanged.emit(savable)

    # -- saving -----------------------------------------------------------------------------
    def save(self, *, overwrite_hash: str | None = None, on_saved: Callable[[], None] | None = None) -> None:
        if self.loaded is None or self.ws is None:
            return
        if self.loaded.read_only:
            self.status.emit(f"Not saved: {self.loaded.read_only}")
            return
        if not self.dirty and overwrite_hash is None:
            # no change, no write: the same bytes with a new mtime would wake the assistant's watcher
            self.status.emit(f"Nothing to save: {self.loaded.path} has no unsaved change")
            return
        ws, path, text, bom = self.ws, self.loaded.path, self.editor_text(), self.loaded.bom
        expected = overwrite_hash or self.loaded.hash

        def done(result: OpResult[Saved]) -> None:
            saved, disk = result.value.edit, result.value.conflict
            current = self.ws is ws and self.loaded is not None and self.loaded.path == path
            if disk is not None:
                if current:
                    self._conflict(disk.text, disk.hash, disk.bom, on_saved)
                return
            if current and saved is not None:   # the editor still shows what was saved (not another file or workspace)
                self.loaded = Loaded(path, text, saved.hash, bom=bom, actions=self.loaded.actions)
                self.promoted.set_notes(())    # (its lines were the file's before the edit)
                self._notes_again(ws, path, saved.hash)
                if self.editor_text() == text:
                    self.editor.document().setModified(False)
                self._show_banner(False)
                self._update_size()
            if on_saved:
                on_saved()
        # (a failure leaves the edit in the editor, unsaved)
        save_edit(Initiator(self.engine, "files", self.status.emit), ws, path, text, expected, done=done)

    def _conflict(self, disk_text: str, disk_hash: str, disk_bom: bool,
                  on_saved: Callable[[], None] | None = None) -> None:
        assert self.loaded is not None
        while True:
            choice = self.dialogs.conflict(self, self.loaded.path)
            if choice == "compare":
                choice = self.dialogs.compare(self, self.loaded.path, disk_text, self.editor_text())
                if choice not in ("reload", "overwrite"):
                    continue                  # back to the question
            break
        if choice == "reload":
            self.loaded = Loaded(self.loaded.path, disk_text, disk_hash, bom=disk_bom, actions=self.loaded.actions)
            self.promoted.set_notes(())
            self.editor.setPlainText(disk_text)
            self.loaded.text = self.editor_text()
            self._show_banner(False)
            self.status.emit(f"Reloaded {self.loaded.path} from disk; your edit was dropped")
        elif choice == "overwrite":
            self.save(overwrite_hash=disk_hash, on_saved=on_saved)
        else:
            self.status.emit("Save cancelled; your edit is still in the editor")
        self._update_size()

    def rescue_text(self) -> tuple[str, str] | None:
        """(path, text) of an unsaved edit, for the crash handler."""
        if self.dirty and self.loaded:
            return self.loaded.path, self.editor_text()
        return None
