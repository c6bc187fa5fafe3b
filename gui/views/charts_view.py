"""Each memory file's size over time (from the snapshot size history) against its budget line,
with Dream and review runs marked."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from PySide6.QtCharts import QChart, QChartView, QDateTimeAxis, QLineSeries, QScatterSeries, QValueAxis

from engine.dream.records import list_runs
from engine.snapshots import SizePoint, SnapshotStore
from engine.workspace import Workspace

from ..qt import QColor, QComboBox, QHBoxLayout, QLabel, QPainter, QPalette, Qt, QVBoxLayout, QWidget, QtCore
from ..worker import Engine, Latest


@dataclass
class ChartData:
    sizes: dict[str, list[SizePoint]]
    budgets: dict[str, int]
    runs: list[tuple[int, bool]]      # (finished, unix seconds; a review pass ran)


def read_chart_data(ws: Workspace, budgets: dict[str, int]) -> ChartData:
    store = SnapshotStore(ws)
    sizes = store.size_history() if store.exists() else {}
    runs = []
    for rec in list_runs(ws)[0]:
        try:
            t = datetime.fromisoformat(rec.get("finished") or rec.get("started") or "")
        except ValueError:
            continue
        runs.append((int(t.timestamp()), bool(rec.get("review"))))
    return ChartData(sizes, budgets, sorted(runs))


EMPTY_TEXT = "No snapshots yet: sizes over time appear after the first Dream run, edit or restore."


class ChartsView(QWidget):
    def __init__(self, engine: Engine, parent: QWidget | None = None):
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
        lay.addWidget(self.empty, 1)
        self.chart = QChart()
        self.chart.legend().setAlignment(Qt.AlignmentFlag.AlignBottom)
        self.view = QChartView(self.chart)
        self.view.setRenderHint(QPainter.RenderHint.Antialiasing)
        lay.addWidget(self.view, 1)
        self.series: dict[str, object] = {}

    def set_workspace(self, ws: Workspace, budgets: dict[str, int]) -> None:
        self.ws = ws
        self.refresh(budgets)

    def refresh(self, budgets: dict[str, int] | None = None) -> None:
        if self.ws is None:
            return
        ws, token = self.ws, self._token.next()
        budgets = budgets if budgets is not None else (self.data.budgets if self.data else {})
        self.engine.read("size history", lambda ctx: read_chart_data(ws, budgets),
                         lambda d: self._loaded(d, token), lambda msg, tb: self._failed(msg, token))

    def _failed(self, msg: str, token: int) -> None:
        if not self._token.current(token):
            return
        self.data = None
        self.empty.setText(f"The size history cannot be read: {msg}")
        self._draw()

    def _loaded(self, data: ChartData, token: int) -> None:
        if not self._token.current(token):
            return
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
        t0 = min(p.time for p in points)
        t1 = max(max(p.time for p in points), t0 + 60)
        x = QDateTimeAxis()
        x.setFormat("MMM d HH:mm")
        x.setRange(QtCore.QDateTime.fromSecsSinceEpoch(t0 - 60), QtCore.QDateTime.fromSecsSinceEpoch(t1 + 60))
        top = max([p.chars for p in points] + [budget]) * 1.15 or 100
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
        if budget:
            line = QLineSeries()
            line.setName(f"budget {budget:,}")
            pen = line.pen()
            pen.setStyle(Qt.PenStyle.DashLine)
            pen.setColor(QColor("#d64541"))
            pen.setWidth(2)
            line.setPen(pen)
            line.append((t0 - 60) * 1000.0, budget)
            line.append((t1 + 60) * 1000.0, budget)
            self.chart.addSeries(line)
            line.attachAxis(x)
            line.attachAxis(y)
            self.series["budget"] = line
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
