"""Settings → Memory for a home whose assistant keeps its own memory settings in its own config
(OpenClaw's openclaw.json: its bootstrap caps and its dreaming), shown instead of config.json's
Dream settings. As there: an edit only changes the form (each changed field marked), Apply writes
every changed value in one write (engine/ops/settings.set_own_settings), Revert puts the form back;
below the fields, always, what the typed values would change before anything is written — what
the prompt would cut, file by file — from the engine's what-if on the files it read."""

from __future__ import annotations

from typing import Any

from dreamdesk.engine.assistants.own_settings import OwnSetting, OwnSettings

from ..operations.settings import set_own_settings
from ..qt import QCheckBox, QFormLayout, QGroupBox, QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget
from .setting_fields import check_field, number_field, show_pending

NOTE_STYLE = "color: palette(placeholder-text);"
MAX_DETAIL_ROWS = 3          # entries named per file under the what-if; its tooltip has them all


class OwnSettingsGroup(QGroupBox):
    """The fields of an assistant's own settings, their what-if, Apply and Revert."""

    def __init__(self, by, parent: QWidget | None = None):
        super().__init__(parent)
        self.by = by                           # () -> Initiator: who runs the write
        self.own: OwnSettings | None = None
        self.ws = None
        self.fields: dict[str, QWidget] = {}
        self.labels: dict[str, QLabel] = {}
        self._shown: dict[str, Any] = {}       # what each field showed of the file when filled
        self._applying = False
        self._write_error = ""
        lay = QVBoxLayout(self)
        self.form = QFormLayout()
        lay.addLayout(self.form)
        self.error = _label("color: #d64541;")
        self.what_if = _label()
        self.what_if.setObjectName("whatIf")
        lay.addWidget(self.error)
        lay.addWidget(self.what_if)
        self.pending_line = QLabel()
        self.apply_button = QPushButton("&Apply")
        self.apply_button.clicked.connect(self.apply)
        self.revert_button = QPushButton("Re&vert")
        self.revert_button.clicked.connect(self.revert)
        row = QHBoxLayout()
        row.addWidget(self.pending_line, 1)
        row.addWidget(self.revert_button)
        row.addWidget(self.apply_button)
        lay.addLayout(row)

    # -- filling --------------------------------------------------------------------------
    def _build(self, own: OwnSettings) -> None:
        """The form's rows, one per setting (built again only when the settings are others)."""
        self._build_rows_for_none()
        for s in own.settings:
            field = _field(s)
            note = QLabel()            # one line: a wrapped label under a narrow field would be clipped
            note.setStyleSheet(NOTE_STYLE)
            note.setObjectName(f"note:{s.key}")
            cell = QVBoxLayout()
            cell.setSpacing(1)
            cell.addWidget(field)
            cell.addWidget(note)
            label = QLabel(s.rule.label)
            label.setProperty("plain", s.rule.label)
            self.form.addRow(label, cell)
            self.fields[s.key], self.labels[s.key] = field, label
            if isinstance(field, QCheckBox):
                field.toggled.connect(self._changed)
            elif isinstance(field, QLineEdit):
                field.textChanged.connect(self._changed)
            else:
                field.valueChanged.connect(self._changed)

    def set_own(self, ws, own: OwnSettings) -> int:
        """Fill the form from a fresh read; a field changed here and not applied keeps its value
        unless another workspace was opened. Returns how many unapplied edits were dropped."""
        other = self.ws is not None and ws.root != self.ws.root
        dropped = len(self.changes()) if other else 0
        kept = {} if other else self.changes()
        if [s.key for s in own.settings] != list(self.fields):
            self._build(own)
        self.ws, self.own = ws, own
        self.setTitle(own.title)
        for s in own.settings:
            field = self.fields[s.key]
            field.blockSignals(True)
            _put(field, s.value)
            self._shown[s.key] = _value(field)
            if s.key in kept:
                _put(field, kept[s.key])
            field.blockSignals(False)
            refused = own.refused or s.refused
            field.setEnabled(not refused)
            note = self.findChild(QLabel, f"note:{s.key}")
            note.setText(f"{s.where}: {refused}" if refused else s.note)
        if other:
            self._write_error = ""
        self._changed()
        return dropped

    def clear(self) -> int:
        """No own settings (a home whose settings are config.json's): the form emptied; returns how
        many unapplied edits went with it."""
        dropped = len(self.changes())
        self._build_rows_for_none()
        return dropped

    def _build_rows_for_none(self) -> None:
        while self.form.rowCount():
            self.form.removeRow(0)
        self.fields, self.labels, self._shown = {}, {}, {}
        self.ws = self.own = None
        self._write_error = ""

    # -- the form against the file ------------------------------------------------------------
    def changes(self) -> dict[str, Any]:
        return {k: _value(w) for k, w in self.fields.items() if k in self._shown and _value(w) != self._shown[k]}

    def _changed(self, *_) -> None:
        """After any edit: the marks, a value the assistant would refuse, the what-if, the buttons."""
        if self.own is None:
            return
        changes = self.changes()
        for key, label in self.labels.items():
            on = key in changes
            label.setText(f"{label.property('plain')} *" if on else label.property("plain"))
            label.setStyleSheet("font-weight: bold;" if on else "")
        refused = next((why for k, v in changes.items() if (why := self.own.refusal(k, v))), None)
        show_pending(self.error, self.pending_line, (self.apply_button, self.revert_button), len(changes), refused,
                     self._write_error, self._applying)
        self._show_what_if(changes)

    def _show_what_if(self, changes: dict[str, Any]) -> None:
        """What the typed values would change; with none typed, what the values in effect do."""
        assert self.own is not None
        shown = changes or {s.key: s.value for s in self.own.settings}
        w = self.own.what_if(shown)
        head = "If applied:" if changes else "Now:"
        self.what_if.setText("<br>".join([f"<b>{head}</b>", *(_html(x) for x in w.lines), *_few(w.details)])
                             if w.lines else "")
        self.what_if.setToolTip("\n".join(w.details))
        self.what_if.setVisible(bool(w.lines))

    # -- writing ----------------------------------------------------------------------------
    def apply(self) -> None:
        """Every changed value in one write; the window reads the file again after it."""
        changes = self.changes()
        if not changes or self.ws is None or self._applying:
            return
        ws = self.ws
        self._applying = True
        self._changed()
        set_own_settings(self.by(), ws, changes, done=lambda _result: self._applied(ws, changes),
                         failed=self._not_applied)

    def _applied(self, ws, changes: dict[str, Any]) -> None:
        self._applying = False
        if ws is self.ws:
            self._shown.update(changes)
            self._write_error = ""
            self._changed()

    def _not_applied(self, message: str) -> None:
        """The edits stay in the form, with why they were not written."""
        self._applying = False
        self._write_error = f"Not written: {message}"
        self._changed()

    def revert(self) -> None:
        for key in self.changes():
            field = self.fields[key]
            _put(field, self._shown[key])
        self._write_error = ""
        self._changed()


def _label(style: str = "") -> QLabel:
    label = QLabel()
    label.setWordWrap(True)
    if style:
        label.setStyleSheet(style)
    return label


def _few(details: tuple[str, ...]) -> list[str]:
    """The details (a heading per file, its entries indented) with a few entries per file."""
    out: list[str] = []
    more = 0
    for line in (*details, ""):
        if line.startswith(" "):
            more += 1
            if more <= MAX_DETAIL_ROWS:
                out.append("&nbsp;&nbsp;&nbsp;&nbsp;" + _html(line.strip()))
            continue
        if more > MAX_DETAIL_ROWS:
            out.append(f"&nbsp;&nbsp;&nbsp;&nbsp;… and {more - MAX_DETAIL_ROWS} more (all in the tooltip)")
        more = 0
        if line:
            out.append(f"<i>{_html(line)}</i>")
    return out


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _field(s: OwnSetting) -> QWidget:
    if s.rule.kind == "bool":
        return check_field(s.rule, "on")
    if s.rule.kind in ("int", "number"):
        return number_field(s.rule)
    edit = QLineEdit()
    edit.setToolTip(f"{s.rule.doc} ({s.rule.describe_range()})")
    edit.setMaximumWidth(216)
    return edit


def _value(w: QWidget) -> Any:
    if isinstance(w, QCheckBox):
        return w.isChecked()
    if isinstance(w, QLineEdit):
        return w.text().strip()
    return w.value()


def _put(w: QWidget, value: Any) -> None:
    if isinstance(w, QCheckBox):
        w.setChecked(bool(value))
    elif isinstance(w, QLineEdit):
        w.setText(str(value))
    else:
        w.setValue(value)
