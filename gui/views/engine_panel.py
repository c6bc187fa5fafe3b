"""The engine panel: Dream now / Dry run / Review now / Compact now on the writer thread,
progress (pass, iteration, tokens), Cancel (which holds the cursor), a live log, and the outcome
note as the seed words it."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

from dreamdesk.engine.llm import LLMError
from dreamdesk.engine.llm.machine import MachineModel, choose_for_machine, describe_choice
from dreamdesk.engine.home.workspace import Workspace

from ..app import settings_store
from ..operations.run import Initiator
from ..qt import (QDialog, QDialogButtonBox, QFontDatabase, QGridLayout, QHBoxLayout, QLabel, QPlainTextEdit,
                  QProgressBar, QPushButton, Qt, QToolButton, QVBoxLayout, QWidget, Signal)
from ..widgets.follow import EndFollow
from ..context.worker import JobLanes

log = logging.getLogger(__name__)

# The panel is in the first window; Dream, the Consolidator and the diff widget (pygments) are
# imported by the jobs and the dry-run dialog that use them, off the path to the first paint.


def machine_model() -> MachineModel:
    """This machine's model setting, as the engine takes it. Called in the jobs, off the GUI thread:
    the first keyring read may wait on the OS (QSettings is safe there: one instance per call)."""
    o = settings_store.model_override(with_key=False)
    if o.enabled:                        # the key is asked of the keyring only when it is used
        o = settings_store.model_override()
    return MachineModel(o.enabled, o.base_url, o.model, o.api_key)


class DryRunDialog(QDialog):
    """What a dry run would change, as the snapshot view shows a diff (highlighted, intraline,
    unified or side by side), with Apply / Discard."""

    def __init__(self, outcome: str, diffs: list, engine: JobLanes, parent: QWidget | None = None):
        super().__init__(parent)
        from ..widgets.diff_view import SPLIT, UNIFIED, DiffView
        self.setWindowTitle("Dry run: what Dream would change")
        self.unified = "".join(d.unified("before", "after") for d in diffs)
        lay = QVBoxLayout(self)
        note = QLabel(outcome)
        note.setWordWrap(True)
        lay.addWidget(note)
        self.diff = DiffView()
        self.diff.setAccessibleName("Dry-run diff")
        self.diff.load_diffs(engine, diffs, empty_text="No file would change.")
        modes = QHBoxLayout()
        modes.addWidget(QLabel("Apply writes exactly this, or refuses if a file changed since."), 1)
        for label, mode, key in (("Unified", UNIFIED, "Alt+U"), ("Side by side", SPLIT, "Alt+S")):
            b = QToolButton()
            b.setText(label)
            b.setCheckable(True)
            b.setAutoExclusive(True)
            b.setChecked(mode == UNIFIED)
            b.setShortcut(key)
            b.clicked.connect(lambda _=False, m=mode: self.diff.set_mode(m))
            modes.addWidget(b)
        lay.addLayout(modes)
        lay.addWidget(self.diff, 1)
        self.buttons = QDialogButtonBox()
        self.apply_button = self.buttons.addButton("Apply", QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.addButton("Discard", QDialogButtonBox.ButtonRole.RejectRole)
        self.apply_button.setEnabled(bool(diffs))
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        lay.addWidget(self.buttons)
        self.resize(860, 600)


LOG_LINES = 5000      # the log keeps this many lines per workspace


@dataclass
class Shown:
    """What the panel shows for one workspace. Kept per workspace: a job's lines and outcome
    belong to the workspace it ran on, never to the one open when it ends."""
    progress: str = "Idle."
    outcome: str = ""
    log: list[str] = field(default_factory=list)


class EnginePanel(QWidget):
    finished = Signal(str)                  # what ran; the window refreshes
    status = Signal(str)

    def __init__(self, engine: JobLanes, parent: QWidget | None = None):
        super().__init__(parent)
        self.engine = engine
        self.ws: Workspace | None = None
        self.job = None
        self.last_status: str | None = None     # status of the last Dream run ("failed", ...)
        self.last_outcome = ""                  # and its outcome note (the workspace shown may differ)
        self._job_ws: Workspace | None = None   # the workspace the running job works on
        self._previewing = False                # the dry-run dialog is open
        self._shown: dict[Path, Shown] = {}     # by workspace root
        self.refused: str | None = None         # why Dreamdesk's jobs do not run on this home (its assistant's own)
        self.ask_apply = lambda dlg: dlg.exec() == QDialog.DialogCode.Accepted   # tests replace it
        lay = QVBoxLayout(self)
        self.setMinimumWidth(260)
        row = QGridLayout()
        self.dream_button = QPushButton("Dream now")
        self.dry_button = QPushButton("Dry run")
        self.review_button = QPushButton("Review now")
        self.compact_button = QPushButton("Compact now")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip("Cancel the running job; Dream holds its cursor (Esc)")
        for i, b in enumerate((self.dream_button, self.dry_button, self.review_button, self.compact_button)):
            row.addWidget(b, i // 2, i % 2)
        row.addWidget(self.cancel_button, 2, 0, 1, 2)
        lay.addLayout(row)
        self.dream_button.clicked.connect(lambda: self.run_dream())
        self.dry_button.clicked.connect(lambda: self.run_dream(dry_run=True))
        self.review_button.clicked.connect(lambda: self.run_dream(review=True))
        self.compact_button.clicked.connect(self.run_compact)
        self.cancel_button.clicked.connect(self.cancel)
        self.progress_bar = QProgressBar()
        self.progress_bar.setRange(0, 0)
        self.progress_bar.setMaximumHeight(10)
        self.progress_bar.setTextVisible(False)
        self.progress_bar.hide()
        lay.addWidget(self.progress_bar)
        self.progress = QLabel("Idle.")
        self.progress.setWordWrap(True)      # "consolidation pass · iteration 3/12 · 40,000 tokens" in a narrow dock
        lay.addWidget(self.progress)
        self.model_label = QLabel()
        self.model_label.setWordWrap(True)
        lay.addWidget(self.model_label)
        self.scope_label = QLabel()        # which files Dream may write here (Settings → Memory changes it)
        self.scope_label.setObjectName("scope")
        self.scope_label.setWordWrap(True)
        lay.addWidget(self.scope_label)
        self.outcome = QLabel()
        self.outcome.setWordWrap(True)
        self.outcome.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.outcome.setStyleSheet("font-weight: bold;")
        lay.addWidget(self.outcome)
        self.log = QPlainTextEdit()
        self.log.setReadOnly(True)
        self.log.setMaximumBlockCount(LOG_LINES)
        self.log.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.log.setPlaceholderText("The live log of Dream and Compact runs appears here.")
        self.log_follow = EndFollow(self.log)        # at its newest line, it stays there
        lay.addWidget(self.log, 1)
        self._set_running(False)

    def set_workspace(self, ws: Workspace) -> None:
        switched = self.ws is None or self.ws.root != ws.root
        self.ws = ws
        if switched:
            self.refused = None                 # until this workspace's first read says
        self._set_running(self.running)
        if switched:
            shown = self._shown.setdefault(ws.root, Shown())
            self.progress.setText(shown.progress)
            self.outcome.setText(shown.outcome)
            self.log.setPlainText("\n".join(shown.log))
            self.model_label.setText("")        # the last workspace's model, until this one's is read
            self.scope_label.setText("")
        demo = settings_store.demo_home()

        def describe(ctx) -> str:   # reads config.json: off the GUI thread like every disk read
            try:
                return describe_choice(choose_for_machine(ws, machine_model(), demo)[0])
            except LLMError as exc:
                return (f"Model: not configured ({exc}). Set one in config.json, or a model for this machine "
                        "under Settings → Memory → Model.")

        def show(text: str) -> None:
            if not self.refused:
                self.model_label.setText(text)

        self.engine.read("describe the model", describe, show, wanted=lambda: ws is self.ws)

    def show_scope(self, scope, ceiling: int | None, error: str | None) -> None:
        """The workspace's Dream scope (write_scope.Scope) and token ceiling, or why they cannot be read."""
        if self.refused:
            return                  # (show_jobs says why no Dream of Dreamdesk's runs here)
        if error:
            self.scope_label.setText(f"Scope: {error}")
            return
        limit = f" Each run stops after {ceiling:,} tokens." if ceiling else ""
        change = " Change it under Settings → Memory." if scope.closed or ceiling else ""
        self.scope_label.setText("Scope: " + scope.describe() + limit + change)

    def show_jobs(self, assistant) -> None:
        """The home's assistant (from a state read): where it runs its own dreaming (OpenClaw), the
        buttons are off and say why."""
        refused = None if assistant is None or assistant.runs_dreamdesk_jobs else assistant.jobs_refused
        if refused != self.refused:
            self.refused = refused
            self._set_running(self.running)
        if refused:      # no model nor scope of Dreamdesk's to speak of here: the reason instead
            self.model_label.setText("")
            self.scope_label.setText(refused[0].upper() + refused[1:] + ".")

    def _set_running(self, running: bool) -> None:
        for b, tip in ((self.dream_button, "Run Dream once now (Ctrl+D)"),
                       (self.dry_button, "See what Dream would change, touching nothing (Ctrl+Shift+D)"),
                       (self.review_button, "Run Dream with the review (shrinking) pass first (Ctrl+R)"),
                       (self.compact_button, "Run the Consolidator now: old chat -> history (Ctrl+K)")):
            b.setEnabled(not running and self.ws is not None and not self.refused)
            b.setToolTip(self.refused + "." if self.refused else tip)
        self.cancel_button.setEnabled(running)
        self.progress_bar.setVisible(running)

    @property
    def running(self) -> bool:
        # the dry-run dialog counts: a scheduled run must not start under a preview
        return self.job is not None or self._previewing

    def _say(self, ws: Workspace | None, *, progress: str | None = None, outcome: str | None = None,
             line: str | None = None) -> None:
        """Tell `ws`'s panel state; the widgets show it only while `ws` is the open workspace."""
        if ws is None:
            return
        shown = self._shown.setdefault(ws.root, Shown())
        here = self.ws is not None and self.ws.root == ws.root
        if progress is not None:
            shown.progress = progress
            if here:
                self.progress.setText(progress)
        if outcome is not None:
            shown.outcome = outcome
            if here:
                self.outcome.setText(outcome)
        if line is not None:
            shown.log.append(line)
            del shown.log[:-LOG_LINES]
            if here:
                self.log.appendPlainText(line)

    # -- jobs -------------------------------------------------------------------------------
    def run_dream(self, dry_run: bool = False, review: bool = False, trigger: str = "manual") -> None:
        if self.ws is None or self.running or self.refused:
            return
        from ..operations.dream import run_dream
        ws = self.ws
        what = "Dry run" if dry_run else "Review" if review else "Dream"
        self._say(ws, line=f"— {what} started", outcome="", progress=f"{what}: starting…")
        self._job_ws = ws
        self._set_running(True)

        def done(r) -> None:
            d = r.value
            log.info("%s (%s) of %s with %s: %s, %s tokens; %s", what, trigger, ws.root, (d.record or {}).get("model"),
                     d.status, d.tokens.total, d.outcome)
            self._dream_done(d, dry_run, ws)

        self.job = run_dream(self._by(ws), ws, self._chooser(ws), what, trigger=trigger, dry_run=dry_run, review=review,
                             done=done, failed=lambda msg: self._failed(msg, ws),
                             progress=lambda ev: self._on_progress(ev, ws))

    def _by(self, ws: Workspace) -> Initiator:
        """The panel as the operations' initiator: what it is told goes to the status bar only while
        `ws` is the workspace shown."""
        def status(text: str) -> None:
            if self.ws is not None and ws.root == self.ws.root:
                self.status.emit(text)
        return Initiator(self.engine, "engine", status)

    @staticmethod
    def _chooser(ws: Workspace):
        demo = settings_store.demo_home()
        return lambda: choose_for_machine(ws, machine_model(), demo)

    def _on_progress(self, ev: dict, ws: Workspace) -> None:
        if "pass" in ev:
            self._say(ws, progress=f"{ev['pass']} pass · iteration {ev['iteration']}/{ev['limit']} · "
                                   f"{ev.get('tokens', 0):,} tokens")
        first = (ev.get("message") or "").strip().split("\n", 1)[0][:160]
        if "tool" in ev:
            self._say(ws, line=f"  [{ev['pass']} {ev['iteration']}] {ev['tool']}: "
                               f"{'ok' if ev['ok'] else 'refused'} — {first}")
        elif first:
            self._say(ws, line=f"  [{ev['pass']}] {first}")

    def _dream_done(self, result, dry_run: bool, ws: Workspace) -> None:
        self.job = None
        self.last_status, self.last_outcome = result.status, result.outcome
        self._set_running(False)
        self._say(ws, progress=f"Idle. Last run used {result.tokens.total:,} tokens.", outcome=result.outcome,
                  line=f"— {result.outcome}")
        if dry_run and result.preview is not None and (self.ws is None or ws.root != self.ws.root):
            # the window moved to another workspace while the dry run ran: never offer to apply
            # a preview of one workspace while another is shown
            note = (f"The dry run of {ws.root} finished after you switched workspace; "
                    "nothing was applied. Run it again there to see it.")
            self._say(ws, outcome=note)
            self.status.emit(note)
        elif dry_run and result.preview is not None:
            dlg = DryRunDialog(result.outcome, result.diffs, self.engine, self)
            complete = result.status in ("completed", "wrote-nothing", "held")
            if not complete:
                # a failed or cancelled preview is partial: show it, never offer to apply it
                dlg.apply_button.setEnabled(False)
                dlg.apply_button.setToolTip("This dry run did not complete; its changes are partial")
            self._previewing = True
            try:
                apply = self.ask_apply(dlg)
            finally:
                self._previewing = False
            if apply and result.diffs and complete:
                self._apply(result.preview, ws)
        self.finished.emit("dry run" if dry_run else "dream")

    def _apply(self, preview: dict, ws: Workspace) -> None:
        from ..operations.dry_run import apply_dry_run
        self._job_ws = ws
        self._set_running(True)

        def done(result) -> None:
            self.job = None
            self._set_running(False)
            self._say(ws, outcome=result.message)     # the run it recorded says what the dry run said
            self.finished.emit("apply")

        self.job = apply_dry_run(self._by(ws), ws, preview, done=done, failed=lambda msg: self._failed(msg, ws))

    def run_compact(self) -> None:
        if self.ws is None or self.running or self.refused:
            return
        from ..operations.compact import compact
        ws = self.ws

        def done(result) -> None:
            self.job = None
            self._set_running(False)
            for line in result.value.log:
                self._say(ws, line="  " + line)
            self._say(ws, outcome=result.message, progress="Idle.")
            self.finished.emit("compact")

        self._say(ws, line="— Compact started", progress="Compacting…")
        self._job_ws = ws
        self._set_running(True)
        self.job = compact(self._by(ws), ws, self._chooser(ws), done=done, failed=lambda msg: self._failed(msg, ws))

    def cancel(self) -> None:
        if self.job is not None:
            self.job.cancel.set()
            self._say(self._job_ws, progress="Cancelling… (the cursor stays where it is)")

    def _failed(self, message: str, ws: Workspace) -> None:
        self.job = None
        self.last_status, self.last_outcome = "failed", f"Failed: {message}"
        self._set_running(False)
        self._say(ws, progress="Idle.", outcome=f"Failed: {message}", line=f"— failed: {message}")
        self.finished.emit("failed")
