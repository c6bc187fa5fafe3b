"""Dream → Edit Dream Prompts…: what Dreamdesk's Dream tells each pass in this workspace, edited
per pass with Dreamdesk's default one click away; the rules every pass follows and the
assistant's own prompts/dream.md shown beside them, read-only. Reads and writes go through the
engine's lanes (engine/dream/prompt_edits.py decides; this only renders and dispatches)."""

from __future__ import annotations

from dreamdesk.engine.dream import prompt_edits
from dreamdesk.engine.llm.resolve import PROMPT_REL, assistant_dream_prompt
from dreamdesk.engine.home.workspace import Workspace

from ..operations.run import Initiator
from ..operations.settings import set_pass_prompt
from ..qt import (QDialog, QDialogButtonBox, QHBoxLayout, QLabel, QListWidget, QListWidgetItem, QMessageBox,
                  QPlainTextEdit, QPushButton, Qt, QVBoxLayout, QWidget)
from ..context.worker import JobLanes

RULES = "rules"                       # the list's first row: the shared rules (never edited here)
OWN = "own"                          # the assistant's prompts/dream.md, when it exists
SOURCES = prompt_edits.SOURCE_WORDS
SHORT = {prompt_edits.EDITED: "edited", prompt_edits.DEFAULT: "default", prompt_edits.ASSISTANTS: PROMPT_REL}


class DreamPromptsDialog(QDialog):
    def __init__(self, engine: JobLanes, ws: Workspace, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Dream prompts")
        self.engine, self.ws = engine, ws
        self.prompts: dict[str, prompt_edits.PassPrompt] = {}
        self.texts: dict[str, str] = {}          # RULES / OWN / pass -> the text shown
        self.drafts: dict[str, str] = {}         # pass -> an edit not saved yet
        self._showing: str | None = None
        self.ask_discard = self._ask_discard     # tests replace it
        self.list = QListWidget()
        self.list.setMaximumWidth(280)
        self.list.setWordWrap(True)
        self.list.currentItemChanged.connect(lambda cur, _prev: self._show(cur.data(Qt.ItemDataRole.UserRole)
                                                                           if cur else None))
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.editor = QPlainTextEdit()
        self.editor.textChanged.connect(self._edited)
        self.default_button = QPushButton("Restore &Default")
        self.default_button.setToolTip("Put Dreamdesk's own instructions for this pass in the editor (Save keeps them)")
        self.default_button.clicked.connect(self.restore_default)
        self.save_button = QPushButton("&Save")
        self.save_button.clicked.connect(self.save)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        close.rejected.connect(self.reject)
        right = QVBoxLayout()
        right.addWidget(self.note)
        right.addWidget(self.editor, 1)
        buttons = QHBoxLayout()
        buttons.addWidget(self.default_button)
        buttons.addStretch(1)
        buttons.addWidget(self.save_button)
        buttons.addWidget(close)
        right.addLayout(buttons)
        lay = QHBoxLayout(self)
        lay.addWidget(self.list)
        lay.addLayout(right, 1)
        self.resize(980, 560)
        self.note.setText("Reading…")
        self._set_editable(False)
        self.reload()

    # -- reading --------------------------------------------------------------------------------
    def reload(self) -> None:
        root = self.ws.root
        self.engine.read("read Dream prompts",
                         lambda ctx: (prompt_edits.pass_prompts(root), assistant_dream_prompt(root)),
                         self._loaded, lambda msg, tb: self.note.setText(f"The Dream prompts cannot be read: {msg}"))

    def _loaded(self, result) -> None:
        prompts, own = result
        keep = self._showing
        self.prompts = {p.name: p for p in prompts}
        self.texts = {RULES: prompt_edits.shared_rules(), **{p.name: p.text for p in prompts}}
        self.list.blockSignals(True)
        self.list.clear()
        self._add(RULES, "Rules every pass follows")
        for p in prompts:
            self._add(p.name, self._label(p.name))
        if own:
            self.texts[OWN] = own
            self._add(OWN, f"The assistant's own {PROMPT_REL}")
        self.list.blockSignals(False)
        rows = [self.list.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.list.count())]
        self.list.setCurrentRow(rows.index(keep) if keep in rows else 2)    # consolidation first
        self._show(self.list.currentItem().data(Qt.ItemDataRole.UserRole))

    def _add(self, key: str, label: str) -> None:
        item = QListWidgetItem(label)
        item.setData(Qt.ItemDataRole.UserRole, key)
        self.list.addItem(item)

    def _label(self, name: str) -> str:
        mark = " •" if name in self.drafts else ""
        return f"{name} ({SHORT[self.prompts[name].source]}){mark}"

    # -- showing and editing ----------------------------------------------------------------------
    def _show(self, key: str | None) -> None:
        self._showing = key
        if key is None:
            return
        self.editor.blockSignals(True)
        self.editor.setPlainText(self.drafts.get(key, self.texts.get(key, "")))
        self.editor.blockSignals(False)
        editable = key in self.prompts
        self._set_editable(editable)
        if key == RULES:
            self.note.setText("What every pass is told first: its tools, the budgets, never inventing facts. "
                              "Not editable: these rules keep Dream inside its sandbox.")
        elif key == OWN:
            self.note.setText(f"The assistant's own Dream prompt ({PROMPT_REL} in its workspace). Dreamdesk's "
                              "consolidation pass uses it unless you edit that pass here. Change it in the file.")
        else:
            p = self.prompts[key]
            self.note.setText(f"The {key} pass is told this after the rules ({SOURCES[p.source]}). "
                              "Save keeps it for this workspace only; the assistant's own Dream is not affected.")
        self._buttons()

    def _set_editable(self, on: bool) -> None:
        self.editor.setReadOnly(not on)
        self.default_button.setEnabled(on)
        self.save_button.setEnabled(on)

    def _edited(self) -> None:
        key = self._showing
        if key not in self.prompts:
            return
        text = self.editor.toPlainText()
        if text == self.texts[key]:
            self.drafts.pop(key, None)
        else:
            self.drafts[key] = text
        self.list.currentItem().setText(self._label(key))
        self._buttons()

    def _buttons(self) -> None:
        key = self._showing
        if key in self.prompts:
            self.save_button.setEnabled(key in self.drafts)
            self.default_button.setEnabled(self.editor.toPlainText().strip() != self.prompts[key].default.strip())

    def restore_default(self) -> None:
        if self._showing in self.prompts:
            self.editor.setPlainText(self.prompts[self._showing].default)   # (a draft until saved)

    def save(self) -> None:
        key = self._showing
        if key not in self.drafts:
            return
        text = self.drafts[key]
        self.save_button.setEnabled(False)

        def done(_result) -> None:
            self.drafts.pop(key, None)
            self.reload()
        # (the outcome, and why it failed, is said in the note under the list)
        set_pass_prompt(Initiator(self.engine, "prompts", self.note.setText), self.ws, key, text, done=done,
                        failed=lambda _msg: self._buttons())

    # -- closing --------------------------------------------------------------------------------
    def reject(self) -> None:
        if self.drafts and not self.ask_discard(sorted(self.drafts)):
            return
        super().reject()

    def _ask_discard(self, passes: list[str]) -> bool:
        answer = QMessageBox.question(
            self, "Unsaved prompt edits", f"Your edits of {', '.join(passes)} are not saved. Close and drop them?",
            QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Cancel)
        return answer == QMessageBox.StandardButton.Discard
