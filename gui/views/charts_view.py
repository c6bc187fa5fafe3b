"""Each memory file's size over time (from the snapshot size history) against its budget line,
with Dream and review runs marked; below it, the Dream tokens spent per day: the assistant's own
Dream (its usage store) beside Dreamdesk's runs."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from PySide6.QtCharts import (QBarCategoryAxis, QBarSeries, QBarSet, QChart, QChartView, QDateTimeAxis, QLineSeries,
                              QScatterSeries, QValueAxis)

from dreamdesk.engine.dream.records import list_runs
from dreamdesk.engine.dream.run_list import DayTokens, tokens_by_day, tokens_by_week
from dreamdesk.engine.versions.snapshots import SizePoint, SnapshotStore
from dreamdesk.engine.home.workspace import Workspace

from ..qt import (QColor, QComboBox, QHBoxLayout, QLabel, QPainter, QPalette, QSplitter, Qt, QVBoxLayout, QWidget,
                  QtCore)
from ..context.worker import JobLanes, Latest
from .common import read_latest


@dataclass
class ChartData:
    sizes: dict[str, list[SizePoint]]
    budgets: dict[str, int]
    runs: list[tuple[int, bool]]      # (finished, unix seconds; a review pass ran)
    tokens: list[DayTokens] = ()      # Dream tokens per day, both writers
    usage_note: str = ""              # the assistant's usage store in words (none / unreadable / recorded)


def read_chart_data(ws: Workspace, budgets: dict[str, int]) -> ChartData:
    store = SnapshotStore(ws)
    sizes = store.size_history() if store.exists() else {}
    runs = []
    records = list_runs(ws)[0]
    for rec in records:
        try:
            t = datetime.fromisoformat(rec.finished or rec.started or "")
        except ValueError:
            continue
        runs.append((int(t.timestamp()), rec.review is not None))
    tokens, usage = tokens_by_day(ws, runs=records)
    return ChartData(sizes, budgets, sorted(runs), tokens, usage.message)


EMPTY_TEXT = "No snapshots yet: sizes over time appear after the first Dream run, edit or restore."
NO_TOKENS = "No Dream tokens to chart: {note} Dreamdesk's own runs recorded none either."
MAX_DAYS = 60                     # bars stay readable; older days are left out (and said so)
MAX_WEEKS = 26
PER_DAY, PER_WEEK = "per day", "per week"
ASSISTANT_COLOR, DREAMDESK_COLOR = QColor("#9b59b6"), QColor("#5b8def")


class ChartsView(QWidget):
    def __init__(self, engine: JobLanes, parent: QWidget | None = None):
        super().__init__(parent)
        self.engine = engine
        self.ws: Workspace | None = None
        self.data: ChartData | None = None
        self._token = Latest()
        lay = QVBoxLayout(self)
        self.top_bar = QWidget()
        top = QHBoxLayout(self.top_bar)
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(QLabel("File:"))
        self.file_combo = QComboBox()
        self.file_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.file_combo.setMinimumContentsLength(28)
        self.file_combo.currentTextChanged.connect(lambda _t: self._draw())
        top.addWidget(self.file_combo)
        top.addStretch(1)
        self.legend = QLabel()
        top.addWidget(self.legend)
        lay.addWidget(self.top_bar)
        self.empty = QLabel(EMPTY_TEXT)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)
        self.chart = QChart()
        self.chart.legend().setAlignment(Qt.AlignmentFlag.AlignBottom)
        self.view = QChartView(self.chart)
        self.view.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.tokens_chart = QChart()
        self.tokens_chart.legend().setAlignment(Qt.AlignmentFlag.AlignBottom)
        self.tokens_view = QChartView(self.tokens_chart)
        self.tokens_view.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.tokens_empty = QLabel()
        self.tokens_empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.tokens_empty.setWordWrap(True)
        self.tokens_box = QWidget()
        box = QVBoxLayout(self.tokens_box)
        box.setContentsMargins(0, 0, 0, 0)
        span = QHBoxLayout()
        span.addWidget(QLabel("Dream tokens:"))
        self.token_span = QComboBox()
        self.token_span.addItems([PER_DAY, PER_WEEK])
        self.token_span.currentTextChanged.connect(lambda _t: self._draw_tokens())
        span.addWidget(self.token_span)
        span.addStretch(1)
        self.token_totals = QLabel()        # each writer's tokens in all, whatever the span shows
        span.addWidget(self.token_totals)
        box.addLayout(span)
        box.addWidget(self.tokens_view, 1)
        box.addWidget(self.tokens_empty, 1)
        sizes_box = QWidget()
        sizes = QVBoxLayout(sizes_box)
        sizes.setContentsMargins(0, 0, 0, 0)
        sizes.addWidget(self.empty, 1)
        sizes.addWidget(self.view, 1)
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(sizes_box)
        self.splitter.addWidget(self.tokens_box)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.splitter.setSizes([600, 400])        # scaled to the height it gets: sizes 3, tokens 2
        lay.addWidget(self.splitter, 1)
        self.series: dict[str, object] = {}
        self.pending: dict[str, int] = {}       # budgets typed in Settings → Memory, not applied yet
        self.token_sets: dict[str, QBarSet] = {}
        self.tokens_empty.hide()

    def set_workspace(self, ws: Workspace, budgets: dict[str, int]) -> None:
        self.ws = ws
        self.refresh(budgets)

    def set_pending(self, budgets: dict[str, int]) -> None:
        """Budgets typed but not applied (file -> chars): drawn as a what-if line, said so."""
        if budgets != self.pending:
            self.pending = dict(budgets)
            self._draw()

    def refresh(self, budgets: dict[str, int] | None = None) -> None:
        budgets = budgets if budgets is not None else (self.data.budgets if self.data else {})
        read_latest(self, self._token, "size history", lambda ws: read_chart_data(ws, budgets), self._loaded,
                    self._failed)

    def _level(self, name: str, value: int, span: tuple[float, float], axes, colour: str, style) -> QLineSeries:
        """A horizontal line across the chart (a budget, or a what-if one)."""
        line = QLineSeries()
        line.setName(name)
        pen = line.pen()
        pen.setStyle(style)
        pen.setColor(QColor(colour))
        pen.setWidth(2)
        line.setPen(pen)
        for t in span:
            line.append(t, value)
        self.chart.addSeries(line)
        for axis in axes:
            line.attachAxis(axis)
        return line

    def _failed(self, msg: str) -> None:
        self.data = None
        self.empty.setText(f"The size history cannot be read: {msg}")
        self._draw()

    def _loaded(self, data: ChartData) -> None:
        self.data = data
        self.empty.setText(EMPTY_TEXT)
        current = self.file_combo.currentText()
        self.file_combo.blockSignals(True)
        self.file_combo.clear()
        self.file_combo.addItems(list(data.sizes))
        if current in data.sizes:
            self.file_combo.setCurrentText(current)
        elif "memory/MEMORY.md" in data.sizes:
            self.file_combo.setCurrentText("memory/MEMORY.md")
        self.file_combo.blockSignals(False)
        self._draw()

    def _draw(self) -> None:
        self._draw_tokens()
        self.chart.removeAllSeries()
        for axis in list(self.chart.axes()):
            self.chart.removeAxis(axis)
        self.series = {}
        data, path = self.data, self.file_combo.currentText()
        has = bool(data and path and data.sizes.get(path))
        self.empty.setVisible(not has)
        self.view.setVisible(has)
        self.top_bar.setVisible(bool(data and data.sizes))
        if not has:
            return
        dark = self.palette().color(QPalette.ColorRole.Base).lightness() < 128
        self.chart.setTheme(QChart.ChartTheme.ChartThemeDark if dark else QChart.ChartTheme.ChartThemeLight)
        points = [p for p in data.sizes[path] if p.chars is not None]
        size = QLineSeries()
        size.setName(f"{path} (characters)")
        for p in points:
            size.append(p.time * 1000.0, p.chars)
        budget = data.budgets.get(path, 0)
        what_if = self.pending.get(path)
        what_if = what_if if what_if is not None and what_if != budget else None
        t0 = min(p.time for p in points)
        t1 = max(max(p.time for p in points), t0 + 60)
        x = QDateTimeAxis()
        x.setFormat("MMM d HH:mm")
        x.setRange(QtCore.QDateTime.fromSecsSinceEpoch(t0 - 60), QtCore.QDateTime.fromSecsSinceEpoch(t1 + 60))
        top = max([p.chars for p in points] + [budget, what_if or 0]) * 1.15 or 100
        y = QValueAxis()
        y.setRange(0, top)
        y.applyNiceNumbers()          # round ticks (0, 500, 1000, ...) instead of odd fractions
        y.setLabelFormat("%d")
        y.setTitleText("characters")
        self.chart.addAxis(x, Qt.AlignmentFlag.AlignBottom)
        self.chart.addAxis(y, Qt.AlignmentFlag.AlignLeft)
        self.chart.addSeries(size)
        size.attachAxis(x)
        size.attachAxis(y)
        self.series["size"] = size
        span = ((t0 - 60) * 1000.0, (t1 + 60) * 1000.0)
        if budget:
            self.series["budget"] = self._level(f"budget {budget:,}", budget, span, (x, y), "#d64541",
                                                Qt.PenStyle.DashLine)
        if what_if is not None:
            self.series["what-if"] = self._level(
                f"what if {what_if:,} (typed in Settings, not applied)" if what_if else
                "what if 0: measure only (typed in Settings, not applied)", what_if, span, (x, y), "#e67e22",
                Qt.PenStyle.DotLine)
        for review in (False, True):
            marks = QScatterSeries()
            marks.setName("review runs" if review else "Dream runs")
            marks.setMarkerSize(11 if review else 8)
            marks.setColor(QColor("#e0a100" if review else "#5b8def"))
            if review:
                marks.setMarkerShape(QScatterSeries.MarkerShape.MarkerShapeRectangle)
            for t, rv in data.runs:
                if rv == review and t0 - 60 <= t <= t1 + 60:
                    marks.append(t * 1000.0, top * 0.03)
            if marks.count():
                self.chart.addSeries(marks)
                marks.attachAxis(x)
                marks.attachAxis(y)
                self.series["review" if review else "dream"] = marks
        self.chart.setTitle(f"{path}: size at each snapshot")
        self.view.viewport().update()
        self.legend.setText(f"{len(points)} snapshot(s)")

    def _draw_tokens(self) -> None:
        """Bars per day: the assistant's Dream tokens beside Dreamdesk's (a plain sentence when
        neither recorded any)."""
        chart = self.tokens_chart
        chart.removeAllSeries()
        for axis in list(chart.axes()):
            chart.removeAxis(axis)
        self.token_sets = {}
        data = self.data
        weekly = self.token_span.currentText() == PER_WEEK
        every = (tokens_by_week(list(data.tokens)) if weekly else list(data.tokens)) if data else []
        limit = MAX_WEEKS if weekly else MAX_DAYS
        days = every[-limit:]
        self.tokens_view.setVisible(bool(days))
        self.tokens_empty.setVisible(not days)
        self.tokens_empty.setText(NO_TOKENS.format(note=data.usage_note) if data else "")
        self.token_totals.setText(f"in all: the assistant's {sum(d.assistant for d in every):,} · "
                                  f"Dreamdesk's {sum(d.dreamdesk for d in every):,}" if days else "")
        if not days:
            return
        dark = self.palette().color(QPalette.ColorRole.Base).lightness() < 128
        chart.setTheme(QChart.ChartTheme.ChartThemeDark if dark else QChart.ChartTheme.ChartThemeLight)
        series = QBarSeries()
        series.setBarWidth(0.6 if len(days) > 3 else 0.3)     # a day or two: slim bars, not slabs
        for key, name, color in (("assistant", "the assistant's Dream", ASSISTANT_COLOR),
                                 ("dreamdesk", "Dreamdesk's Dream", DREAMDESK_COLOR)):
            bars = QBarSet(name)
            bars.setColor(color)
            bars.append([float(getattr(d, key)) for d in days])
            series.append(bars)
            self.token_sets[key] = bars
        x = QBarCategoryAxis()
        x.append([f"{d.monday:%b} {d.monday.day}" if weekly else f"{d.day:%b} {d.day.day}" for d in days])
        y = QValueAxis()
        y.setRange(0, max(max(d.assistant, d.dreamdesk) for d in days) * 1.15 or 100)
        y.applyNiceNumbers()
        y.setLabelFormat("%d")
        y.setTitleText("tokens")
        chart.addSeries(series)
        chart.addAxis(x, Qt.AlignmentFlag.AlignBottom)
        chart.addAxis(y, Qt.AlignmentFlag.AlignLeft)
        series.attachAxis(x)
        series.attachAxis(y)
        left, unit = len(every) - len(days), "weeks" if weekly else "days"
        chart.setTitle(("Dream tokens per week (from Monday)" if weekly else "Dream tokens per day")
                       + (f" (the last {limit} {unit}; {left} earlier not shown)" if left else ""))
        self.tokens_view.viewport().update()
