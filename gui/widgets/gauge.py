"""A file-size gauge: characters against budget, coloured by state. Painted, not composed of
child widgets, so a dashboard of many files stays cheap."""

from __future__ import annotations

from dreamdesk.engine.home.budgets import percent_label
from dreamdesk.engine.core.rules import NEAR_FRACTION

from ..qt import QColor, QPainter, QPalette, QSizePolicy, Qt, QWidget

STATE_COLOURS = {"ok": "#3fa34d", "near": "#e0a100", "over": "#d64541", "unbudgeted": "#7f8c8d"}
STATE_WORDS = {"ok": "within budget", "near": "near budget (≥ 90%)", "over": "over budget",
               "unbudgeted": "no budget (measured only)"}


class Gauge(QWidget):
    def __init__(self, path: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.path = path
        self.chars = 0
        self.budget = 0
        self.state = "unbudgeted"
        self.exists = True
        self.details = ""        # the limits the file is held to and how its assistant takes it
        self.setFixedHeight(self.fontMetrics().height() + 24)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def set_value(self, chars: int, budget: int, state: str, exists: bool = True) -> None:
        changed = (chars, budget, state, exists) != (self.chars, self.budget, self.state, self.exists)
        self.chars, self.budget, self.state, self.exists = chars, budget, state, exists
        self._say()
        if changed:
            self.update()

    def set_details(self, limits: str, note: str) -> None:
        """What the tooltip adds to the numbers: the limits that apply (an assistant's own caps) and
        how the assistant takes the file, in words."""
        self.details = "\n".join(x for x in (f"Limits: {limits}" if limits else "", note) if x)
        self._say()

    def _say(self) -> None:
        self.setToolTip(self.summary() + (f"\n{self.details}" if self.details else ""))
        self.setAccessibleName(f"{self.path}: {self.summary()}")
        self.setAccessibleDescription(self.details)

    @property
    def fraction(self) -> float | None:
        return self.chars / self.budget if self.budget > 0 else None

    def summary(self) -> str:
        if not self.exists:
            return "missing"
        if self.budget:
            return (f"{self.chars:,} / {self.budget:,} characters ({percent_label(self.chars, self.budget)}) — "
                    f"{STATE_WORDS[self.state]}")
        return f"{self.chars:,} characters — {STATE_WORDS['unbudgeted']}"

    def sizeHint(self):
        from ..qt import QtCore
        return QtCore.QSize(360, self.fontMetrics().height() + 24)

    def paintEvent(self, event) -> None:  # noqa: N802 (Qt name)
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        pal = self.palette()
        w, h = self.width(), self.height()
        fm = p.fontMetrics()
        text_h = fm.height()
        # first line: name on the left, numbers on the right
        p.setPen(pal.color(QPalette.ColorRole.WindowText))
        font = p.font()
        font.setBold(True)
        p.setFont(font)
        p.drawText(0, 0, w, text_h, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, self.path)
        font.setBold(False)
        p.setFont(font)
        right = self.summary().split(" — ")[0]
        p.drawText(0, 0, w, text_h, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, right)
        # the bar
        top = text_h + 6
        bar_h = max(8, h - top - 4)
        track = pal.color(QPalette.ColorRole.Mid)
        track.setAlpha(90)
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(track)
        p.drawRoundedRect(0, top, w, bar_h, 4, 4)
        colour = QColor(STATE_COLOURS.get(self.state, "#7f8c8d"))
        if self.budget:
            frac = min(self.fraction or 0.0, 1.0)
            p.setBrush(colour)
            p.drawRoundedRect(0, top, int(w * frac), bar_h, 4, 4)
            if (self.fraction or 0) > 1.0:   # the overflow, hatched
                p.setBrush(QColor(colour).darker(140))
                p.drawRoundedRect(w - 6, top, 6, bar_h, 2, 2)
            p.setPen(pal.color(QPalette.ColorRole.WindowText))
            p.drawLine(int(w * NEAR_FRACTION), top - 2, int(w * NEAR_FRACTION), top + bar_h + 2)   # the near mark
        else:
            # no budget: a bar would have a length that means nothing, so the track says so instead
            # (the size is in the numbers above)
            dim = pal.color(QPalette.ColorRole.PlaceholderText)
            p.setPen(dim)
            small = p.font()
            small.setPointSizeF(max(6.0, small.pointSizeF() * 0.85))
            p.setFont(small)
            p.drawText(8, top, w - 16, bar_h, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                       "no budget: size only")
        p.end()
