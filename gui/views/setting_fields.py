"""A config.json setting's field, built from its row in the engine's table (engine/home/config.py
SETTINGS): the widget for its kind, its range, unit and step, its label, and its tooltip from its
doc and range. The form shows what the schema says; nothing is restated here."""

from __future__ import annotations

from dreamdesk.engine.home.config import Setting

from ..qt import QAbstractSpinBox, QCheckBox, QDoubleSpinBox, QLabel, QPushButton, QSpinBox, QWidget

FIELD_WIDTH = 216
_INT_MAX = 2 ** 31 - 1       # a QSpinBox holds a C int


def tooltip(s: Setting) -> str:
    return f"{s.doc} ({s.describe_range()}; config.json: {s.path})"


def number_field(s: Setting, spin: QAbstractSpinBox | None = None) -> QAbstractSpinBox:
    """A spin box for an int or number setting (`spin`: a subclass to fill, e.g. one that
    accepts a typed fraction so that the schema's refusal can say why)."""
    if spin is None:
        spin = QSpinBox() if s.kind == "int" else QDoubleSpinBox()
    low = s.minimum if s.minimum is not None else 0
    high = s.maximum if s.maximum is not None else s.form_max if s.form_max is not None else _INT_MAX
    spin.setRange(int(low) if isinstance(spin, QSpinBox) else low, int(high) if isinstance(spin, QSpinBox) else high)
    if s.unit:
        spin.setSuffix(f" {s.unit}")
    if s.step:
        spin.setSingleStep(int(s.step) if isinstance(spin, QSpinBox) else s.step)
    if s.zero_means and low == 0:
        spin.setSpecialValueText(f"0 — {s.zero_means}")
    if isinstance(spin, QSpinBox) and high >= 10_000:
        spin.setGroupSeparatorShown(True)
    spin.setMaximumWidth(FIELD_WIDTH)
    spin.setToolTip(tooltip(s))
    return spin


def check_field(s: Setting, text: str | None = None, parent: QWidget | None = None) -> QCheckBox:
    box = QCheckBox(text if text is not None else s.label, parent)
    box.setToolTip(tooltip(s))
    box.setProperty("tip", tooltip(s))      # what its tooltip goes back to once an edit is undone
    return box


def show_pending(error: QLabel, pending: QLabel, buttons: tuple[QPushButton, QPushButton], n: int,
                 refused: str | None, write_error: str, applying: bool) -> None:
    """A settings form after an edit: why it cannot be applied (or why the last Apply wrote
    nothing), how many changes wait, and its Apply and Revert buttons."""
    apply, revert = buttons
    error.setText(f"Cannot be applied: {refused}" if refused else write_error)
    error.setVisible(bool(error.text()))
    pending.setText(f"{n} unapplied change{'s' if n != 1 else ''}" if n else "")
    apply.setEnabled(bool(n) and not refused and not applying)
    revert.setEnabled(bool(n) and not applying)
