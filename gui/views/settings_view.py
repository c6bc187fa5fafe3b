"""Settings → Memory: the Dream knobs of config.json, written through the engine's one config
funnel (unknown keys kept), with the review floor's confirmation; and the model Dream uses."""

from __future__ import annotations

from engine import config as config_mod
from engine.config import REVIEW_FLOOR
from engine.rules import BUDGET_KEYS, MEMORY, SOUL, USER
from engine.scheduler import floor_confirmation_text
from engine.workspace import Workspace

from .. import settings_store
from ..qt import (QCheckBox, QDoubleSpinBox, QFormLayout, QGroupBox, QHBoxLayout, QLabel, QLineEdit,
                  QMessageBox, QPushButton, QScrollArea, QSpinBox, Qt, QVBoxLayout, QWidget, Signal)
from ..worker import Engine
from ..workspace_state import WorkspaceState

BUDGET_FILES = tuple((rel, BUDGET_KEYS[rel]) for rel in (MEMORY, USER, SOUL))   # the order the form shows


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


class SettingsView(QWidget):
    changed = Signal()                    # config.json was written
    status = Signal(str)
    scheduleToggled = Signal(bool)
    watchToggled = Signal(bool)
    modelChanged = Signal()

    def __init__(self, engine: Engine, parent: QWidget | None = None):
        super().__init__(parent)
        self.engine = engine
        self.ws: Workspace | None = None
        self.cfg = None
        self.state = None
        self._asking = False
        self.dialogs = FloorDialogs()
        self._loading = False
        self._shown: dict[str, float | int] = {}    # what each number field showed when loaded
        self._flags_for = None      # the workspace whose per-workspace flags (schedule, watch) the boxes show

        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        body = QWidget()
        scroll.setWidget(body)
        outer = QVBoxLayout(self)
        outer.addWidget(scroll)
        lay = QVBoxLayout(body)

        memory = QGroupBox("Memory (config.json: agents.defaults.dream)")
        form = QFormLayout(memory)
        self.enabled = QCheckBox("Dream runs on its own (applies at once)")
        self.enabled.toggled.connect(lambda on: self._set("enabled", on))
        form.addRow("Periodic consolidation", self.enabled)
        # the range of the engine's key table; a fraction can be typed, and the engine's refusal
        # (nanobot takes whole hours only) is shown below rather than the digits silently merged
        rule = config_mod.find_setting("intervalH")
        self.interval = HoursSpin()
        self.interval.setRange(rule.minimum, rule.maximum)
        self.interval.setSuffix(" h")
        self.interval.setMaximumWidth(216)
        self.interval.setToolTip(f"Hours between runs: {rule.describe_range()}")
        self.interval.editingFinished.connect(lambda: self._edited("intervalH", self.interval,
                                                                   self._num(self.interval.value())))
        form.addRow("Every", self.interval)
        self.review = QSpinBox()
        self.review.setRange(1, 10_000)
        self.review.setSuffix(" runs")
        self.review.setMaximumWidth(216)
        self.review.editingFinished.connect(self._review_edited)
        form.addRow("Review pass every", self.review)
        self.review_note = QLabel(f"Below {REVIEW_FLOOR} asks for confirmation first.")
        self.review_note.setWordWrap(True)
        form.addRow("", self.review_note)
        self.budget_spins: dict[str, QSpinBox] = {}
        self.budget_now: dict[str, QLabel] = {}
        for rel, key in BUDGET_FILES:
            spin = QSpinBox()
            spin.setRange(0, 1_000_000)
            spin.setSingleStep(100)
            spin.setSuffix(" chars")
            spin.setSpecialValueText("0 — measure only, never refuse")
            spin.setGroupSeparatorShown(True)
            spin.editingFinished.connect(lambda k=key, s=spin: self._edited(k, s, s.value()))
            spin.valueChanged.connect(lambda v, r=rel: self._what_if(r, v))
            now = QLabel()
            now.setWordWrap(True)
            row = QHBoxLayout()
            row.addWidget(spin)
            row.addWidget(now, 1)
            self.budget_spins[key] = spin
            self.budget_now[rel] = now
            form.addRow(f"{rel} budget", row)
        self.passes: dict[str, QCheckBox] = {}
        prow = QHBoxLayout()
        for name in ("review", "consolidation", "deduction", "induction"):
            cb = QCheckBox(name)
            cb.toggled.connect(lambda on, n=name: self._set(f"passes.{n}", on))
            self.passes[name] = cb
            prow.addWidget(cb)
        prow.addStretch(1)
        form.addRow("Passes", prow)
        self.error = QLabel()
        self.error.setStyleSheet("color: #d64541;")
        self.error.setWordWrap(True)
        form.addRow("", self.error)
        self.range_note = QLabel()
        self.range_note.setWordWrap(True)
        self.range_note.hide()
        form.addRow("", self.range_note)
        lay.addWidget(memory)

        sched = QGroupBox("Who runs the jobs")
        sl = QVBoxLayout(sched)
        self.schedule_here = QCheckBox("Dreamdesk schedules Dream for this workspace")
        self.schedule_here.setToolTip("Off by default: the assistant normally runs its own Dream. Turn this on "
                                      "only if it does not, so the two never race.")
        self.schedule_here.toggled.connect(self._schedule_toggled)
        sl.addWidget(self.schedule_here)
        self.watch_here = QCheckBox("Watch this workspace: archive what other writers remove")
        self.watch_here.setToolTip("Off by default. While Dreamdesk is open, every entry another writer (the "
                                   "assistant's Dream, a chat turn, an editor) removes from USER.md or MEMORY.md "
                                   "is added to the Archive (reason: outside). Nothing is restored by itself.")
        self.watch_here.toggled.connect(self._watch_toggled)
        sl.addWidget(self.watch_here)
        lay.addWidget(sched)

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
        lay.addWidget(model)
        lay.addStretch(1)
        self._load_override()

    # -- filling ----------------------------------------------------------------------------
    @staticmethod
    def _num(v: float):
        return int(v) if float(v).is_integer() else v

    def set_state(self, ws: Workspace, state: WorkspaceState) -> None:
        self.ws = ws
        self.state = state
        cfg = state.status.config
        self.cfg = cfg
        d = cfg.dream
        self._loading = True
        try:
            for w in (self.enabled, self.interval, self.review, *self.budget_spins.values(), *self.passes.values(),
                      self.schedule_here, self.watch_here):
                w.blockSignals(True)
            self.enabled.setChecked(bool(d["enabled"]))
            outside = []
            for key, spin, value in (("intervalH", self.interval, int(d["intervalH"])),
                                     ("reviewEveryRuns", self.review, int(d["reviewEveryRuns"])),
                                     *((key, self.budget_spins[key], int(d[key])) for _, key in BUDGET_FILES)):
                if spin.hasFocus():
                    continue
                spin.setValue(value)
                # what the field shows: leaving it unchanged writes nothing, even when the field
                # had to clamp or round what config.json holds
                self._shown[key] = spin.value()
                if spin.value() != value:
                    outside.append(f"{key} is {value:,} in config.json; the field shows {spin.value():,}")
            self.range_note.setText(("Left as they are unless you change them: " + "; ".join(outside) + ".")
                                    if outside else "")
            self.range_note.setVisible(bool(outside))
            sizes = {f.path: f.chars for f in state.status.files}
            for rel, label in self.budget_now.items():
                label.setText(f"now {sizes.get(rel, 0):,} characters")
            for name, cb in self.passes.items():
                cb.setChecked(bool(d.get(f"passes.{name}", True)))
            if self._flags_for != ws.root:      # only this window writes them: read once per workspace
                self._flags_for = ws.root
                self.schedule_here.setChecked(settings_store.schedules(str(ws.root)))
                self.watch_here.setChecked(settings_store.watches(str(ws.root)))
        finally:
            for w in (self.enabled, self.interval, self.review, *self.budget_spins.values(), *self.passes.values(),
                      self.schedule_here, self.watch_here):
                w.blockSignals(False)
            self._loading = False
        provs = cfg.providers()
        prov = cfg.get("provider") or "(not set)"
        model = cfg.get("model") or "(not set)"
        key = provs.get(cfg.get("provider") or "", {}).get("apiKey") or "(no key)"
        self.model_from_config.setText(f"{model} via {prov}, key {key}. Dream uses the main agent's model.")

    # -- writing ----------------------------------------------------------------------------
    def _edited(self, key: str, spin, value) -> None:
        """A field lost focus: write only if the person changed what it showed (tabbing through
        the form never rewrites config.json)."""
        if self._shown.get(key) == spin.value():
            return
        self._set(key, value)
        self._shown[key] = spin.value()

    def _set(self, key: str, value, confirm: bool = False) -> None:
        if self._loading or self.ws is None or self.cfg is None:
            return
        setting = config_mod.find_setting(key)
        if self.cfg.values.get(setting.path) == value:
            return
        ws = self.ws

        def job(ctx):
            return config_mod.write_settings(ws, {key: value}, confirm_below_floor=confirm)

        def done(cfg) -> None:
            self.cfg = cfg
            self.error.setText("")
            self.status.emit(f"{setting.name} = {value} written to {cfg.path}")
            self.changed.emit()

        def failed(message: str, tb: str) -> None:
            self.error.setText(f"Not written: {message}")
            self.changed.emit()   # refresh the fields from the file

        self.engine.write(f"set {setting.name}", job, done, failed)

    def _what_if(self, rel: str, budget: int) -> None:
        """While a budget is edited: the file's state under it, and how many of the writes the
        recent runs made to it would have been refused."""
        if self._loading or self.state is None:
            return
        from engine.budgets import budget_state
        label = self.budget_now[rel]
        chars = next((f.chars for f in self.state.status.files if f.path == rel), 0)
        current = self.cfg.budget_for(rel) if self.cfg else 0
        if budget == current:
            label.setText(f"now {chars:,} characters")
            return
        state = budget_state(chars, budget)
        words = {"ok": "within it", "near": "near it (≥ 90%)", "over": "over it", "unbudgeted": "measured only"}[state]
        writes = [(b, a) for f, b, a in self.state.recent_writes if f == rel]
        refused = sum(1 for b, a in writes if budget and a > budget and a > b)
        text = f"now {chars:,} characters — {words} at {budget:,}" if budget else f"now {chars:,} characters — never refused"
        if writes:
            text += (f"; {refused} of the {len(writes)} writes the last {self.state.recent_runs} run(s) made to it "
                     f"would have been refused")
        label.setText(text)

    def _review_edited(self) -> None:
        value = self.review.value()
        current = int(self.cfg.get("reviewEveryRuns")) if self.cfg else REVIEW_FLOOR
        if value == current or value == self._shown.get("reviewEveryRuns") or self._asking:
            return   # unchanged; or editingFinished again as the dialog takes the focus: ask once
        if value < REVIEW_FLOOR:
            self._asking = True
            try:
                yes = self.dialogs.confirm_below_floor(self, value)
            finally:
                self._asking = False
            if not yes:
                self.review.blockSignals(True)
                self.review.setValue(current)
                self.review.blockSignals(False)
                self.status.emit("Review cadence unchanged")
                return
            self._set("reviewEveryRuns", value, confirm=True)
        else:
            self._set("reviewEveryRuns", value)

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
