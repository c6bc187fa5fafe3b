"""Settings → Memory: the Dream knobs of config.json. An edit only changes the form (each changed
field marked); Apply writes every changed key in one write through the engine's config funnel
(unknown keys kept, the review floor confirmed first), Revert puts the form back to config.json.
Next to each budget, always visible, where the file stands against the value in the field. And
the model Dream uses. A home whose assistant keeps its own memory settings (OpenClaw's) shows
those instead (own_settings_group.py)."""

from __future__ import annotations

from dreamdesk.engine.home import config as config_mod
from dreamdesk.engine.dream import write_scope
from dreamdesk.engine.home import token_ceiling
from dreamdesk.engine.home.config import REVIEW_FLOOR
from dreamdesk.engine.core.rules import BUDGET_KEYS, MEMORY, NEAR, OVER, SOUL, UNBUDGETED, USER, budget_state
from dreamdesk.engine.jobs.scheduler import floor_confirmation_text
from dreamdesk.engine.home.workspace import Workspace

from ..app import settings_store
from ..operations.run import Initiator
from ..operations.settings import change_scope, set_ceiling, set_settings
from ..qt import (QCheckBox, QDoubleSpinBox, QEvent, QFont, QFontMetrics, QFormLayout, QGroupBox, QHBoxLayout, QLabel,
                  QLineEdit, QMessageBox, QObject, QPushButton, QScrollArea, QSpinBox, Qt, QVBoxLayout, QWidget, Signal)
from ..widgets.gauge import STATE_COLOURS
from ..context.worker import JobLanes
from ..context.workspace_state import WorkspaceState
from .own_settings_group import OwnSettingsGroup
from .setting_fields import check_field, number_field, show_pending

BUDGET_FILES = tuple((rel, BUDGET_KEYS[rel]) for rel in (MEMORY, USER, SOUL))   # the order the form shows


def _rule(key: str):
    """The engine's row for a key of agents.defaults.dream."""
    return config_mod.BY_PATH[f"agents.defaults.dream.{key}"]
PASSES = ("review", "consolidation", "deduction", "induction")


def budget_line(chars: int, budget: int) -> tuple[str, str]:
    """(text, state) for a file of `chars` characters under `budget`."""
    state = budget_state(chars, budget)
    if state == UNBUDGETED:
        return f"now {chars:,} — measured only, never refused", state
    tail = {OVER: f"over by {chars - budget:,}", NEAR: "near"}.get(state, "under")
    return f"now {chars:,} of {budget:,} — {tail}", state


class FloorDialogs:
    """Asks before a review cadence below the floor is written; tests replace it."""

    def confirm_below_floor(self, parent: QWidget, value: int) -> bool:
        box = QMessageBox(QMessageBox.Icon.Warning, "Review pass below the floor", floor_confirmation_text(value),
                          parent=parent)
        yes = box.addButton(f"Yes, review every {value} run{'s' if value != 1 else ''}",
                            QMessageBox.ButtonRole.AcceptRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        return box.clickedButton() is yes


class HoursSpin(QDoubleSpinBox):
    """Hours as typed (2 decimals accepted, so a fraction can be refused with its reason), shown
    without a decimal tail when whole: "2 h", not "2.00 h"."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setDecimals(2)

    def textFromValue(self, value: float) -> str:
        return f"{value:g}" if float(value).is_integer() else f"{value:.2f}"


class EnterApplies(QObject):
    """Enter (or Return) in a field of the form presses Apply, as in a dialog (issue 25.12): what
    is typed is taken first; a value Apply would refuse (its button is off then) applies nothing."""

    def __init__(self, parent: QWidget, button: QPushButton):
        super().__init__(parent)
        self.button = button

    def eventFilter(self, field, event) -> bool:  # noqa: N802
        if event.type() == QEvent.Type.KeyPress and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            field.interpretText()
            if self.button.isEnabled():
                self.button.click()
        return False


SCHEDULE_TIP = ("Off by default: the assistant normally runs its own Dream. Turn this on only if it does not, so "
                "the two never race.")
WATCH_TIP = ("Off by default. While Dreamdesk is open, every entry another writer (the assistant's Dream, a chat "
             "turn, an editor) removes from USER.md or MEMORY.md is added to the Archive (reason: outside). "
             "Nothing is restored by itself.")


class SettingsView(QWidget):
    changed = Signal()                    # config.json was written
    status = Signal(str)
    scheduleToggled = Signal(bool)
    watchToggled = Signal(bool)
    modelChanged = Signal()
    pendingBudgets = Signal(dict)         # budgets typed, not applied (file -> chars): Charts' what-if line

    def __init__(self, engine: JobLanes, parent: QWidget | None = None):
        super().__init__(parent)
        self.engine = engine
        self.ws: Workspace | None = None
        self.cfg = None
        self.state = None
        self.dialogs = FloorDialogs()
        self._loading = False
        self._applying = False
        self._write_error = ""      # why the last Apply wrote nothing
        self._shown: dict[str, object] = {}    # what each config field showed when loaded from config.json
        self._flags_for = None      # the workspace whose per-workspace flags (schedule, watch) the boxes show

        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        body = QWidget()
        scroll.setWidget(body)
        outer = QVBoxLayout(self)
        outer.addWidget(scroll)
        lay = QVBoxLayout(body)

        self.memory_box = self._memory_group()
        lay.addWidget(self.memory_box)
        # a home whose assistant keeps its memory settings in its own config (OpenClaw's): those, instead
        self.own_box = OwnSettingsGroup(self._by)
        self.own_box.hide()
        lay.addWidget(self.own_box)
        self._form_changed()
        lay.addWidget(self._jobs_group())

        lay.addWidget(self._model_group())
        lay.addStretch(1)
        self._load_override()

    def _memory_group(self) -> QGroupBox:
        """The Dream knobs of config.json, Apply and Revert."""
        memory = QGroupBox("Memory (config.json: agents.defaults.dream)")
        form = QFormLayout(memory)
        self.fields: dict[str, QWidget] = {}        # config key -> its field
        self.row_labels: dict[str, QLabel] = {}     # config key -> the label its modified mark goes on
        # every field from its row of the engine's key table (setting_fields): kind, range, unit, doc
        self.enabled = check_field(_rule("enabled"), "Dream runs on its own")
        self._field(form, "enabled", _rule("enabled").label, self.enabled)
        # a fraction can be typed, and the engine's refusal (nanobot takes whole hours only) is
        # shown below rather than the digits silently merged
        self.interval = number_field(_rule("intervalH"), HoursSpin())
        self._field(form, "intervalH", _rule("intervalH").label, self.interval)
        self.review = number_field(_rule("reviewEveryRuns"))
        self._field(form, "reviewEveryRuns", _rule("reviewEveryRuns").label, self.review)
        self.review_note = QLabel(f"Below {REVIEW_FLOOR} asks for confirmation when applied.")
        self.review_note.setWordWrap(True)
        form.addRow("", self.review_note)
        self.budget_spins: dict[str, QSpinBox] = {}
        self.budget_now: dict[str, QLabel] = {}
        for rel, key in BUDGET_FILES:
            spin = number_field(_rule(key))
            now = QLabel()
            now.setWordWrap(True)
            row = QHBoxLayout()
            row.addWidget(spin)
            row.addWidget(now, 1)
            self.budget_spins[key] = spin
            self.budget_now[rel] = now
            self._field(form, key, f"{rel} budget", spin, row)
        self.passes: dict[str, QCheckBox] = {}
        prow = QHBoxLayout()
        for name in PASSES:
            cb = check_field(_rule(f"passes.{name}"), name)
            self.passes[name] = cb
            self.fields[f"passes.{name}"] = cb
            cb.toggled.connect(self._form_changed)
            prow.addWidget(cb)
        prow.addStretch(1)
        form.addRow("Passes", prow)
        self.error = QLabel()
        self.error.setStyleSheet("color: #d64541;")
        self.error.setWordWrap(True)
        self.range_note = QLabel()
        self.range_note.setWordWrap(True)
        self.range_note.hide()
        notes = QVBoxLayout()           # one row: no empty gap while both are hidden
        notes.setContentsMargins(0, 0, 0, 0)
        notes.addWidget(self.error)
        notes.addWidget(self.range_note)
        form.addRow("", notes)
        self.pending_line = QLabel()     # "2 unapplied changes", or that the form is config.json
        self.apply_button = QPushButton("&Apply")           # Alt+A
        self.apply_button.setToolTip("Write every changed setting to config.json, in one write")
        self.apply_button.clicked.connect(self.apply)
        self._enter_applies = EnterApplies(self, self.apply_button)
        for field in self.fields.values():
            if not isinstance(field, QCheckBox):
                field.installEventFilter(self._enter_applies)
        self.revert_button = QPushButton("Re&vert")         # Alt+V
        self.revert_button.setToolTip("Put the form back to what config.json holds")
        self.revert_button.clicked.connect(self.revert)
        brow = QHBoxLayout()
        brow.addWidget(self.pending_line, 1)
        brow.addWidget(self.revert_button)
        brow.addWidget(self.apply_button)
        form.addRow("", brow)
        return memory

    def _jobs_group(self) -> QGroupBox:
        """Who runs the jobs here: the schedule, the watch, the scope and the ceiling."""
        sched = QGroupBox("Who runs the jobs")
        sl = QVBoxLayout(sched)
        self.schedule_here = QCheckBox("Dreamdesk schedules Dream for this workspace")
        self.schedule_here.setToolTip(SCHEDULE_TIP)
        self.schedule_here.toggled.connect(self._schedule_toggled)
        sl.addWidget(self.schedule_here)
        self.watch_here = QCheckBox("Watch this workspace: archive what other writers remove")
        self.watch_here.setToolTip(WATCH_TIP)
        self.watch_here.toggled.connect(self._watch_toggled)
        sl.addWidget(self.watch_here)
        sl.addLayout(self._scope_row())
        sl.addLayout(self._ceiling_row())
        return sched

    def _model_group(self) -> QGroupBox:
        """The model Dream uses: config.json's, or this machine's own."""
        model = QGroupBox("Model")
        ml = QFormLayout(model)
        self.model_from_config = QLabel()
        self.model_from_config.setWordWrap(True)
        self.model_from_config.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        ml.addRow("From config.json", self.model_from_config)
        self.override = QCheckBox("Use a different model on this machine")
        ml.addRow("", self.override)
        self.o_base = QLineEdit()
        self.o_base.setPlaceholderText("http://127.0.0.1:11434/v1")
        self.o_model = QLineEdit()
        self.o_key = QLineEdit()
        self.o_key.setEchoMode(QLineEdit.EchoMode.Password)
        self.o_key.setPlaceholderText("kept in the system keyring, never in the workspace")
        self.o_key_note = QLabel()       # where the key is kept when that is not the keyring
        self.o_key_note.setWordWrap(True)
        self.o_key_note.setVisible(False)
        ml.addRow("Base URL", self.o_base)
        ml.addRow("Model", self.o_model)
        ml.addRow("API key", self.o_key)
        ml.addRow("", self.o_key_note)
        self.o_save = QPushButton("&Save model override")      # Alt+S
        self.o_save.clicked.connect(self._save_override)
        ml.addRow("", self.o_save)
        return model

    def _field(self, form: QFormLayout, key: str, label: str, widget: QWidget, row=None) -> None:
        """A config.json field: its row, and every change of it re-reads the form."""
        self.fields[key] = widget
        text = self.row_labels[key] = QLabel(label)
        text.setProperty("plain", label)
        bold = QFont(text.font())
        bold.setBold(True)
        text.setMinimumWidth(QFontMetrics(bold).horizontalAdvance(f"{label} *") + 2)   # room for the mark
        form.addRow(text, row if row is not None else widget)
        (widget.toggled if isinstance(widget, QCheckBox) else widget.valueChanged).connect(self._form_changed)

    # -- filling ----------------------------------------------------------------------------
    @staticmethod
    def _num(v: float):
        return int(v) if float(v).is_integer() else v

    def _value(self, key: str):
        """What the field for `key` holds now, typed as config.json would hold it."""
        w = self.fields[key]
        if isinstance(w, QCheckBox):
            return w.isChecked()
        return self._num(w.value()) if w is self.interval else w.value()

    def _put(self, key: str, value) -> None:
        w = self.fields[key]
        w.setChecked(bool(value)) if isinstance(w, QCheckBox) else w.setValue(value)

    def _from_config(self, key: str):
        d = self.cfg.dream
        return bool(d.get(key, True)) if key.startswith("passes.") or key == "enabled" else int(d[key])

    def changes(self) -> dict[str, object]:
        """The keys whose field differs from what it showed of config.json, with the field's value."""
        return {k: self._value(k) for k in self.fields if k in self._shown and self._value(k) != self._shown[k]}

    def set_state(self, ws: Workspace, state: WorkspaceState) -> None:
        """Fill the form from a fresh read. A field changed here and not applied keeps its value
        (a refresh never eats an edit), unless another workspace was opened: its edits are dropped."""
        other = self.ws is not None and ws.root != self.ws.root
        dropped = len(self.changes()) if other else 0
        self.ws, self.state, self.cfg = ws, state, state.status.config
        dropped += self._show_own(ws, state)
        boxes = (*self.fields.values(), self.schedule_here, self.watch_here)
        self._loading = True
        try:
            for w in boxes:
                w.blockSignals(True)
            outside = []
            for key, widget in self.fields.items():
                pending = key in self._shown and not other and self._value(key) != self._shown[key]
                typed = self._value(key)
                value = self._from_config(key)
                self._put(key, value)
                # what the field shows: unchanged, it writes nothing, even when the field had to
                # clamp or round what config.json holds
                self._shown[key] = self._value(key)
                if pending:
                    self._put(key, typed)
                if not isinstance(widget, QCheckBox) and self._shown[key] != value:
                    outside.append(f"{key} is {value:,} in config.json; the field shows {self._shown[key]:,}")
            self.range_note.setText(("Left as they are unless you change them: " + "; ".join(outside) + ".")
                                    if outside else "")
            self.range_note.setVisible(bool(outside))
            if self._flags_for != ws.root:      # only this window writes them: read once per workspace
                self._flags_for = ws.root
                self.schedule_here.setChecked(settings_store.schedules(str(ws.root)))
                self.watch_here.setChecked(settings_store.watches(str(ws.root)))
            self._show_jobs(state.status.assistant)
        finally:
            for w in boxes:
                w.blockSignals(False)
            self._loading = False
        self._show_scope(state)
        if other:
            self._write_error = ""
        if dropped:
            self.status.emit(f"{dropped} unapplied setting change{'s' if dropped != 1 else ''} dropped: "
                             "another workspace was opened")
        self._form_changed()
        cfg = self.cfg
        provs = cfg.providers()
        prov = cfg.get("provider") or "(not set)"
        model = cfg.get("model") or "(not set)"
        key = provs.get(cfg.get("provider") or "", {}).get("apiKey") or "(no key)"
        self.model_from_config.setText(f"{model} via {prov}, key {key}. Dream uses the main agent's model.")

    def _show_own(self, ws: Workspace, state: WorkspaceState) -> int:
        """The assistant's own settings in place of config.json's, when it has some; returns how many
        of their unapplied edits another workspace dropped."""
        own = state.own
        self.memory_box.setVisible(own is None)
        self.own_box.setVisible(own is not None)
        return self.own_box.set_own(ws, own) if own is not None else self.own_box.clear()

    def unapplied(self) -> int:
        """Every field changed here and not applied, in whichever form is shown."""
        return len(self.changes()) + len(self.own_box.changes())

    # -- the form against config.json ---------------------------------------------------------
    def _form_changed(self, *_) -> None:
        """After any edit: the modified marks, a value config.json may not take, the buttons,
        the count of unapplied changes and the budget labels."""
        if self._loading:
            return
        changes = self.changes()
        for key in self.fields:
            self._mark(key, key in changes)
        note = self.state.status.assistant.config_note if self.state is not None else None
        refused = next((config_mod.find_setting(k).refusal(v, note=note(config_mod.find_setting(k).path, v)
                                                            if note else None)
                        for k, v in changes.items() if config_mod.find_setting(k).check_write(v)), None)
        show_pending(self.error, self.pending_line, (self.apply_button, self.revert_button), len(changes), refused,
                     self._write_error, self._applying)
        for rel, key in BUDGET_FILES:
            self._show_budget(rel, self.budget_spins[key].value())
        self.pendingBudgets.emit(self.pending_budgets())

    def pending_budgets(self) -> dict[str, int]:
        """The budgets typed here and not applied yet, by file."""
        changes = self.changes()
        return {rel: changes[key] for rel, key in BUDGET_FILES if key in changes}

    def _mark(self, key: str, on: bool) -> None:
        """A changed field's label (or, for a pass, its box) in bold with a star."""
        w = self.row_labels.get(key) or self.fields[key]
        plain = w.property("plain") or key.removeprefix("passes.")
        w.setText(f"{plain} *" if on else plain)
        w.setStyleSheet("font-weight: bold;" if on else "")
        w.setToolTip(f"Changed here, not applied yet (config.json: {self._shown[key]})" if on
                     else w.property("tip") or "")

    def _show_budget(self, rel: str, budget: int) -> None:
        """Where the file stands against the budget in the field, coloured like its gauge; while
        the field differs from config.json, how many recent Dream writes it would have refused."""
        label = self.budget_now[rel]
        if self.state is None:
            label.setText("")
            return
        chars = next((f.chars for f in self.state.status.files if f.path == rel), 0)
        text, state = budget_line(chars, budget)
        writes = [(b, a) for f, b, a in self.state.recent_writes if f == rel]
        if writes and budget != self.cfg.budget_for(rel):
            refused = sum(1 for b, a in writes if budget and a > budget and a > b)
            text += (f"; {refused} of the {len(writes)} writes the last {self.state.recent_runs} run(s) made to it "
                     f"would have been refused")
        label.setText(text)
        label.setStyleSheet(f"color: {STATE_COLOURS[state]};")

    # -- writing ----------------------------------------------------------------------------
    def apply(self) -> None:
        """Write every changed key in one config.json write; a review cadence below the floor
        is confirmed first (No: nothing is written, the cadence field goes back)."""
        changes = self.changes()
        if not changes or self.ws is None or self._applying:
            return
        review = changes.get("reviewEveryRuns")
        confirm = review is not None and review < REVIEW_FLOOR
        self._applying = True
        try:
            if confirm and not self.dialogs.confirm_below_floor(self, review):
                self._put("reviewEveryRuns", self._shown["reviewEveryRuns"])
                self.status.emit(f"Nothing applied: the review pass stays every {self._shown['reviewEveryRuns']} runs")
                return
        finally:
            self._applying = False
        ws = self.ws
        self._applying = True
        self._form_changed()

        def done(result) -> None:
            self._applying = False
            if ws is self.ws:
                self.cfg = result.value
                self._shown.update(changes)
                self._write_error = ""
                self._form_changed()
            self.changed.emit()

        def failed(message: str) -> None:
            self._applying = False
            self._write_error = f"Not written: {message}"
            self._form_changed()
            self.changed.emit()   # re-read the file; the edits stay in the form

        set_settings(self._by(), ws, changes, confirm, done=done, failed=failed)

    def _by(self) -> Initiator:
        return Initiator(self.engine, "settings", self.status.emit)

    def revert(self) -> None:
        """The form back to what config.json holds."""
        for key in self.changes():
            self._put(key, self._shown[key])
        self._write_error = ""
        self._form_changed()
        self.status.emit("Settings reverted to config.json")

    # -- Dream's scope: which files Dreamdesk's Dream may write here (Dreamdesk's own state) ----
    def _scope_row(self) -> QHBoxLayout:
        row = QHBoxLayout()
        row.addWidget(QLabel("Dreamdesk's Dream may write:"))
        self.scope_boxes: dict[str, QCheckBox] = {}
        for area in write_scope.AREAS:
            box = self.scope_boxes[area] = QCheckBox(area)
            box.setChecked(True)
            box.setEnabled(False)        # until a workspace's scope is read
            box.setToolTip(f"Unticked: Dreamdesk's Dream never writes {area} in this workspace (refused in every "
                           "pass, and said in the run's outcome). The assistant's own Dream is not affected.")
            box.toggled.connect(lambda on, area=area: self._scope_toggled(area, on))
            row.addWidget(box)
        row.addStretch(1)
        return row

    def _ceiling_row(self) -> QHBoxLayout:
        row = QHBoxLayout()
        row.addWidget(QLabel("Token ceiling per Dream run:"))
        self.ceiling = QSpinBox()
        self.ceiling.setRange(0, token_ceiling.HIGHEST)
        self.ceiling.setSingleStep(10_000)
        self.ceiling.setSpecialValueText("none")      # 0: no ceiling
        self.ceiling.setSuffix(" tokens")
        self.ceiling.setGroupSeparatorShown(True)
        self.ceiling.setToolTip("Past it, a run of Dreamdesk's Dream stops cleanly: what it wrote stays, the cursor "
                                f"is held and the outcome says why. From {token_ceiling.LOWEST:,} tokens; "
                                "none: a run ends when its passes do.")
        self.ceiling.valueChanged.connect(lambda _v: self._ceiling_changed())
        self.ceiling_button = QPushButton("Set")        # explicit: leaving the field writes nothing
        self.ceiling_button.clicked.connect(self.set_ceiling)
        row.addWidget(self.ceiling)
        row.addWidget(self.ceiling_button)
        row.addStretch(1)
        return row

    def _show_scope(self, state: WorkspaceState) -> None:
        for area, box in self.scope_boxes.items():
            box.blockSignals(True)
            box.setChecked(area not in state.scope.closed)
            box.setEnabled(state.scope_error is None)
            box.blockSignals(False)
        self.ceiling.blockSignals(True)
        self.ceiling.setValue(state.ceiling or 0)
        self.ceiling.blockSignals(False)
        self.ceiling.setEnabled(state.scope_error is None)
        self._ceiling_changed()

    def _ceiling_changed(self) -> None:
        saved = (self.state.ceiling or 0) if self.state is not None else 0
        value = self.ceiling.value()
        self.ceiling_button.setEnabled(self.ws is not None and value != saved and (value == 0 or
                                                                                  value >= token_ceiling.LOWEST))

    def set_ceiling(self) -> None:
        ws, value = self.ws, self.ceiling.value()
        if ws is None:
            return
        self.ceiling_button.setEnabled(False)
        set_ceiling(self._by(), ws, value or None, failed=lambda _msg: self._ceiling_changed())

    def _scope_toggled(self, area: str, on: bool) -> None:
        ws = self.ws
        if ws is None:
            return
        for box in self.scope_boxes.values():
            box.setEnabled(False)            # one change at a time: the next read shows the result

        def failed(_message: str) -> None:
            if self.state is not None:
                self._show_scope(self.state)
        # (its change record, Dreamdesk's state, brings the next read and with it the boxes)
        change_scope(self._by(), ws, area, on, failed=failed)

    def _show_jobs(self, assistant) -> None:
        """Where the home's assistant dreams itself (OpenClaw), scheduling and the watch are off and
        say why."""
        refused = None if assistant is None or assistant.runs_dreamdesk_jobs else assistant.jobs_refused
        unwatched = None if assistant is None or assistant.watches else assistant.jobs_refused
        for box, tip, refused in ((self.schedule_here, SCHEDULE_TIP, refused), (self.watch_here, WATCH_TIP, unwatched)):
            box.setEnabled(not refused)
            box.setToolTip(refused + "." if refused else tip)
            if refused:
                box.setChecked(False)

    def _schedule_toggled(self, on: bool) -> None:
        if self.ws is not None:
            settings_store.set_schedules(str(self.ws.root), on)
            self.scheduleToggled.emit(on)

    def _watch_toggled(self, on: bool) -> None:
        if self.ws is not None:
            settings_store.set_watches(str(self.ws.root), on)
            self.watchToggled.emit(on)

    def _load_override(self) -> None:
        o = settings_store.model_override()
        self.override.setChecked(o.enabled)
        self.o_base.setText(o.base_url)
        self.o_model.setText(o.model)
        self.o_key.setText(o.api_key)

    def _save_override(self) -> None:
        kept = settings_store.set_model_override(settings_store.ModelOverride(
            self.override.isChecked(), self.o_base.text().strip(), self.o_model.text().strip(), self.o_key.text()))
        self.o_key_note.setText(kept.note)
        self.o_key_note.setVisible(bool(kept.note))
        where = "its API key in the system keyring" if kept.in_keyring else "its API key for this session only"
        self.status.emit(f"Model override saved in Dreamdesk's settings, {where} (not in the workspace)")
        self.modelChanged.emit()
