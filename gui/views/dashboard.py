"""Budgets dashboard: one gauge per memory file, history and cursors, and why Dream is or is
not running, in plain words."""

from __future__ import annotations

import json
from html import escape
from typing import TYPE_CHECKING

from dreamdesk.engine.core import clock
from dreamdesk.engine.home.layout import DAILY
from dreamdesk.engine.jobs.scheduler import DISABLED
from dreamdesk.engine.overview.status import next_words

from ..qt import (QComboBox, QFrame, QGridLayout, QGroupBox, QHBoxLayout, QLabel, QListWidget, QListWidgetItem, QPushButton,
                  QScrollArea, Qt, QVBoxLayout, QWidget, Signal)
from ..widgets.gauge import Gauge
from .pins_panel import PinAlertBox, PinListBox

if TYPE_CHECKING:      # (importing it would load the whole engine before the window paints)
    from ..context.workspace_state import WorkspaceState


class Dashboard(QWidget):
    reapplyRequested = Signal()     # write back the settings config.json lost
    forgetRequested = Signal()      # stop offering them
    restoreSinceRequested = Signal(str, object)   # (file, engine.entries.Removal): put it back
    gotItRequested = Signal()       # "Since you last looked" acknowledged
    agentChosen = Signal(str)       # show another of the home's agents

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.gauges: dict[str, Gauge] = {}
        outer = QVBoxLayout(self)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        outer.addWidget(scroll)
        body = QWidget()
        scroll.setWidget(body)
        lay = QVBoxLayout(body)

        # before any workspace is read: what is happening instead ("Preparing the demo…", or why not)
        self.notice = QLabel()
        self.notice.setObjectName("notice")
        self.notice.setWordWrap(True)
        self.notice.setContentsMargins(8, 16, 8, 16)
        self.notice.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.notice.hide()
        lay.addWidget(self.notice)

        self.assistant = QLabel()
        self.assistant.setWordWrap(True)
        self.assistant.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.assistant.setAccessibleName("Assistant")
        lay.addWidget(self.assistant)
        lay.addLayout(self._agent_row())
        # settings Dreamdesk wrote that config.json no longer holds (an assistant's own save
        # dropped them): said here, written back only when asked
        lay.addWidget(self._lost_settings_box())
        # a pinned entry another writer removed or changed: here until Restore or Unpin
        self.pin_alerts = PinAlertBox()
        lay.addWidget(self.pin_alerts)

        self.since_box = SinceBox()
        self.since_box.restoreRequested.connect(self.restoreSinceRequested)
        self.since_box.gotIt.clicked.connect(self.gotItRequested)
        lay.addWidget(self.since_box)

        self.files_box = QGroupBox("Memory files")
        self.files_layout = QVBoxLayout(self.files_box)
        self.cuts: dict[str, QLabel] = {}        # under a gauge: the entries the assistant's cut hides
        self.notes = QLabel()                    # the dated notes, folded into one line
        self.notes.setWordWrap(True)
        self.notes.setAccessibleName("Daily notes")
        self.notes.hide()
        lay.addWidget(self.files_box)
        self.pin_list = PinListBox()
        lay.addWidget(self.pin_list)

        lay.addLayout(self._history_and_dream_row())

        self.problems_box = QGroupBox("Problems")
        pl = QVBoxLayout(self.problems_box)
        self.problems = QListWidget()
        self.problems.setMinimumHeight(90)
        self.problems.setAlternatingRowColors(True)
        pl.addWidget(self.problems)
        lay.addWidget(self.problems_box, 1)

    def _agent_row(self) -> QHBoxLayout:
        """A home with several agents: which one is shown, and the others to switch to."""
        row = QHBoxLayout()
        self.agent_label = QLabel("<b>Show agent:</b>")
        self.agent_choice = QComboBox()
        self.agent_choice.setAccessibleName("Agent")
        self.agent_choice.setToolTip("The home's agents: each keeps its own workspace. Dreamdesk remembers the one "
                                     "chosen for this home.")
        self.agent_choice.activated.connect(lambda i: self.agentChosen.emit(self.agent_choice.itemText(i)))
        row.addWidget(self.agent_label)
        row.addWidget(self.agent_choice)
        row.addStretch(1)
        self.agent_label.hide()
        self.agent_choice.hide()
        return row

    def _set_agents(self, a) -> None:
        agents, shown = a.agent_choice if a is not None else ((), None)
        self.agent_choice.blockSignals(True)
        self.agent_choice.clear()
        self.agent_choice.addItems(list(agents))
        if shown in agents:
            self.agent_choice.setCurrentIndex(agents.index(shown))
        self.agent_choice.blockSignals(False)
        self.agent_label.setVisible(bool(agents))
        self.agent_choice.setVisible(bool(agents))

    def _lost_settings_box(self) -> QGroupBox:
        self.lost_box = QGroupBox("Settings lost from config.json")
        ll = QVBoxLayout(self.lost_box)
        self.lost_text = QLabel()
        self.lost_text.setWordWrap(True)
        self.lost_text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        ll.addWidget(self.lost_text)
        self.lost_error = QLabel()
        self.lost_error.setWordWrap(True)
        self.lost_error.setStyleSheet("color: #d64541;")
        self.lost_error.hide()
        ll.addWidget(self.lost_error)
        buttons = QHBoxLayout()
        self.reapply = QPushButton("Re-apply to config.json")
        self.reapply.setToolTip("Write these values back to config.json (every other key is kept)")
        self.reapply.clicked.connect(self.reapplyRequested)
        self.forget = QPushButton("Forget them")
        self.forget.setToolTip("Keep the defaults and stop showing this; config.json is not touched")
        self.forget.clicked.connect(self.forgetRequested)
        buttons.addWidget(self.reapply)
        buttons.addWidget(self.forget)
        buttons.addStretch(1)
        ll.addLayout(buttons)
        self.lost_box.hide()
        return self.lost_box

    def _history_and_dream_row(self) -> QGridLayout:
        row = QGridLayout()
        self.history_box = QGroupBox("History")
        hl = QGridLayout(self.history_box)
        self.pending = QLabel()
        self.entries = QLabel()
        self.cursors = QLabel()
        self.prompt = QLabel()
        self.history_rows: list[QWidget] = []     # hidden for a home with no history.jsonl
        for i, (name, w) in enumerate((("Pending for Dream", self.pending), ("Entries", self.entries),
                                       ("Cursors", self.cursors), ("Next chat's prompt", self.prompt))):
            label = QLabel(name + ":")
            hl.addWidget(label, i, 0)
            w.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            hl.addWidget(w, i, 1)
            if w is not self.prompt:
                self.history_rows += [label, w]
        hl.setColumnStretch(1, 1)
        row.addWidget(self.history_box, 0, 0)

        self.dream_box = QGroupBox("Dream")
        dl = QVBoxLayout(self.dream_box)
        self.schedule = QLabel()
        self.schedule.setWordWrap(True)
        self.last_run = QLabel()
        self.last_run.setWordWrap(True)
        self.alarm = QLabel()
        self.alarm.setWordWrap(True)
        self.alarm.setStyleSheet("color: #d64541; font-weight: bold;")
        for w in (self.schedule, self.last_run, self.alarm):
            w.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            dl.addWidget(w)
        row.addWidget(self.dream_box, 0, 1)
        row.setColumnStretch(0, 2)
        row.setColumnStretch(1, 3)
        return row

    def show_lost_error(self, message: str) -> None:
        self.lost_error.setText(message)
        self.lost_error.setVisible(bool(message))

    def show_notice(self, text: str, error: bool = False) -> None:
        """A line in large type above everything, until a workspace's state is shown."""
        self.notice.setStyleSheet("font-size: 15pt;" + (" color: #d64541;" if error else ""))
        self.notice.setText(text)
        self.notice.show()

    def _set_files(self, st) -> None:
        """One gauge per memory file (the dated notes folded into one line: a home may hold
        hundreds), each with the limits it is held to and the entries its cut hides, then the totals."""
        seen = set()
        files = [f for f in st.files if f.kind != DAILY]
        for f in files:
            g = self._gauge(f.path)
            g.set_value(f.chars, f.budget, f.state, f.exists)
            g.set_details(limits_text(f), f.note)
            self._set_cut(f)
            seen.add(f.path)
        for t in st.totals:
            g = self._gauge(t.name)
            g.set_value(t.chars, t.budget, t.state)
            g.set_details(f"{t.key}: {t.budget:,}" if t.key else "", t.note)
            seen.add(t.name)
        for path in list(self.gauges):
            if path not in seen:   # a skill that went away
                self.gauges.pop(path).deleteLater()
                cut = self.cuts.pop(path, None)
                if cut is not None:
                    cut.deleteLater()
        notes = [f for f in st.files if f.kind == DAILY]
        self.notes.setText(f"<b>Daily notes:</b> {len(notes)}, {sum(f.chars for f in notes):,} characters in all"
                           f"{', the newest ' + escape(notes[0].path) if notes else ''} <span style='color: gray'>— "
                           f"{escape(notes[0].note)}</span>" if notes else "")
        self.notes.setVisible(bool(notes))
        self.files_layout.addWidget(self.notes)          # (kept last)

    def _gauge(self, path: str) -> Gauge:
        g = self.gauges.get(path)
        if g is None:
            g = self.gauges[path] = Gauge(path)
            self.files_layout.addWidget(g)
        return g

    def _set_cut(self, f) -> None:
        """Under an over-cap file's gauge: the entries its assistant's cut hides from the model."""
        label = self.cuts.get(f.path)
        if not f.cut:
            if label is not None:
                label.hide()
            return
        if label is None:
            label = self.cuts[f.path] = QLabel()
            label.setWordWrap(True)
            label.setTextFormat(Qt.TextFormat.RichText)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            label.setAccessibleName(f"{f.path}: entries in the cut")
            self.files_layout.insertWidget(self.files_layout.indexOf(self.gauges[f.path]) + 1, label)
        label.setText(cut_text(f))
        label.setToolTip("\n".join(f"line {c.line}{'' if c.whole else ' (in part)'}: {c.text}" for c in f.cut))
        label.show()

    def _set_assistant(self, a) -> None:
        if a is None:
            return
        more = f" (and {len(a.why) - 1} more sign{'s' if len(a.why) > 2 else ''})" if len(a.why) > 1 else ""
        roster = f"<br><b>Agent:</b> {escape(a.roster)}" if a.roster else ""
        self.assistant.setText(f"<b>Assistant:</b> {a.label} <span style='color: gray'>— "
                               f"{escape(a.why[0])}{more}</span>{roster}")
        self.assistant.setToolTip("Why Dreamdesk thinks so:\n" + "\n".join(f"• {w}" for w in a.why))

    def set_state(self, state: WorkspaceState) -> None:
        self.notice.hide()
        st = state.status
        self._set_files(st)
        a = st.assistant
        self._set_assistant(a)
        self._set_agents(a)
        h = st.history
        carries = a is None or a.history_in_prompt
        for row in self.history_rows:
            row.setVisible(st.keeps_history)
        self.pending.setText(f"{st.pending} entr{'y' if st.pending == 1 else 'ies'}"
                             + ((f" ({len(state.in_prompt)} in the next prompt)" if carries else
                                 f" (not in {a.name}'s prompt)")
                                if st.pending else ""))
        self.entries.setText(f"{len(h.entries):,} readable, {len(h.bad_lines)} unreadable line(s)")
        self.cursors.setText(f".cursor {st.cursor}   ·   .dream_cursor {st.dream_cursor}")
        self.prompt.setText(f"{state.prompt.total_chars:,} characters, ~{state.prompt.total_tokens:,} tokens")
        sc = state.schedule
        self.schedule.setText(sc.text + (" Turn it on under Settings → Memory." if sc.state == DISABLED else ""))
        if st.whats_next is not None:             # the assistant's own dreaming: what it does next
            self.last_run.setText(next_words(st.whats_next))
        elif sc.last_run:
            self.last_run.setText(f"Last run {clock.show_iso(sc.last_run.get('finished'))}: "
                                  f"{sc.last_run.get('outcome', '')}")
        else:
            self.last_run.setText("No Dream run recorded by Dreamdesk yet.")
        alarms = []
        if sc.stuck:
            alarms.append(f"Stuck alarm: entries {sc.stuck['batch'][0]}–{sc.stuck['batch'][1]} were held "
                          f"{sc.stuck['held_runs']} runs in a row.")
        alarms += sc.warnings
        if sc.last_error:
            alarms.append(f"Last error: {sc.last_error}")
        self.alarm.setText("\n".join(alarms))
        self.alarm.setVisible(bool(alarms))
        lost = st.lost_settings
        if lost:
            rows = [f"• {x.path} = {json.dumps(x.value, ensure_ascii=False)}  (now the default "
                    f"{json.dumps(x.default, ensure_ascii=False)})" for x in lost]
            self.lost_text.setText(
                f"Dreamdesk wrote {'this setting' if len(lost) == 1 else f'these {len(lost)} settings'} to "
                "config.json and the file no longer holds them: a config save by the assistant itself drops the "
                "keys it does not know. Until they are re-applied, the defaults are used.\n" + "\n".join(rows))
        self.lost_box.setVisible(bool(lost))
        self.reapply.setEnabled(bool(lost))
        self.forget.setEnabled(bool(lost))
        self.pin_alerts.set_pins(state.pins, state.pins_error)
        self.pin_list.set_pins(state.pins)
        self.since_box.set_since(state.since)
        self.problems.clear()
        for p in st.problems:
            item = QListWidgetItem(f"{p.severity.upper():<8} {p}")
            item.setToolTip(str(p))
            self.problems.addItem(item)
        if not st.problems:
            self.problems.addItem("No problems found.")
        self.problems_box.setTitle(f"Problems ({len(st.problems)})")


MAX_SINCE_ROWS = 40
MAX_CUT_ROWS = 4        # entries named under a gauge; its tooltip has them all


def limits_text(f) -> str:
    """The limits a file is held to, in a line (the one its gauge shows first)."""
    return " · ".join(f"{x.what} {x.chars:,}" + (f" ({x.key})" if x.key else "") for x in f.limits)


def cut_text(f) -> str:
    """The entries a file's cut hides, as the Dashboard lists them under its gauge."""
    cut = f.cut
    rows = []
    for c in cut[:MAX_CUT_ROWS]:
        first = " ".join(c.text.split())
        first = first if len(first) <= 90 else first[:89] + "…"
        rows.append(f"line {c.line}{'' if c.whole else ' (in part)'}: {escape(first)}")
    if len(cut) > MAX_CUT_ROWS:
        rows.append(f"… and {len(cut) - MAX_CUT_ROWS} more (all of them in the tooltip)")
    one = len(cut) == 1
    binding = next((x for x in f.limits if x.chars == f.budget), None)     # the limit that bites
    limit = (f"{binding.what} of {f.budget:,}" + (f" ({escape(binding.key)})" if binding.key else "")
             if binding else f"limit of {f.budget:,}")
    head = (f"<span style='color: #d64541'>Over its {limit}: <b>{len(cut)} entr"
            f"{'y falls' if one else 'ies fall'} into the cut</b> (the model never sees "
            f"{'it' if one else 'them'}):</span>")
    return "<br>".join([head, *rows])


class SinceBox(QGroupBox):
    """"Since you last looked": what any writer removed or added in USER.md / MEMORY.md since
    the versions last acknowledged, each removal with Restore; "Got it" acknowledges them."""

    restoreRequested = Signal(str, object)

    def __init__(self, parent: QWidget | None = None):
        super().__init__("Since you last looked", parent)
        lay = QVBoxLayout(self)
        self.intro = QLabel()
        self.intro.setWordWrap(True)
        lay.addWidget(self.intro)
        self.rows = QVBoxLayout()
        self.rows.setSpacing(2)
        lay.addLayout(self.rows)
        buttons = QHBoxLayout()
        self.gotIt = QPushButton("Got it")
        self.gotIt.setToolTip("These versions become the ones you last looked at; the list empties")
        buttons.addWidget(self.gotIt)
        buttons.addStretch(1)
        lay.addLayout(buttons)
        self.restore_buttons: list[QPushButton] = []
        self._shown: tuple | None = None
        self.hide()

    def set_since(self, since) -> None:
        key = None if since is None or since.empty else tuple(
            (f.file, tuple(r.entry.text for r in f.removed), tuple(e.text for e in f.added)) for f in since.files)
        if key == self._shown:
            return                   # the same list: the buttons (and the focus) stay
        self._shown = key
        while self.rows.count():
            w = self.rows.takeAt(0).widget()
            if w is not None:
                w.deleteLater()
        self.restore_buttons = []
        self.setVisible(key is not None)
        if key is None:
            return
        removed = sum(len(f.removed) for f in since.files)
        added = sum(len(f.added) for f in since.files)
        when = min((t for t in since.looked_at.values() if t), default="")
        self.intro.setText(f"Since you last looked{' (' + clock.show_iso(when) + ')' if when else ''}, "
                           f"{removed} entr{'y was' if removed == 1 else 'ies were'} removed and "
                           f"{added} added in USER.md and MEMORY.md, by any writer.")
        shown = 0
        for f in since.files:
            for r in f.removed:
                if shown < MAX_SINCE_ROWS:
                    self.rows.addWidget(self._row(f.file, r.entry.text, r.entry.heading, r))
                shown += 1
            for e in f.added:
                if shown < MAX_SINCE_ROWS:
                    self.rows.addWidget(self._row(f.file, e.text, e.heading, None))
                shown += 1
        if shown > MAX_SINCE_ROWS:
            self.rows.addWidget(QLabel(f"… and {shown - MAX_SINCE_ROWS} more"))

    def _row(self, file: str, text: str, heading: str | None, removal) -> QWidget:
        row = QWidget()
        h = QHBoxLayout(row)
        h.setContentsMargins(0, 0, 0, 0)
        sign, colour = ("−", "#d64541") if removal is not None else ("+", "#2e8b57")
        where = f"{file}" + (f", under {heading.splitlines()[0]}" if heading else "")
        label = QLabel(f"<span style='color:{colour}; font-weight:bold'>{sign}</span> {escape(text).replace(chr(10), '<br>')}"
                       f" <span style='color: gray'>— {escape(where)}</span>")
        label.setWordWrap(True)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        h.addWidget(label, 1)
        if removal is not None:
            button = QPushButton("Restore")
            button.setToolTip(f"Put this entry back into {file} under its heading (a snapshot is taken first)")
            button.clicked.connect(lambda _=False, f=file, r=removal: self.restoreRequested.emit(f, r))
            h.addWidget(button)
            self.restore_buttons.append(button)
        return row
