"""The one way a benchmark measures: Dreamdesk and its baseline interleaved (A, B, A, B …),
medians and the ratio, a table printed in pytest's terminal summary (no -s needed) and kept in
tests/bench/report.md (or $DREAMDESK_BENCH_REPORT) so README can publish it with the machine."""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

REPORT = Path(os.environ.get("DREAMDESK_BENCH_REPORT", Path(__file__).with_name("report.md")))
TABLES: list[str] = []          # printed by tests/conftest.py pytest_terminal_summary


@dataclass
class Row:
    name: str
    ours: list[float] = field(default_factory=list)
    base: list[float] = field(default_factory=list)
    target: float | None = None      # the ratio (ours / base) the issue asks for, if any
    unit: str = "ms"
    limit: float | None = None       # the median (seconds) the issue asks of ours, where it sets one
    quantile: int = 50               # the row reports this percentile (50: the median; 95: p95)

    @property
    def median(self) -> float:
        """The row's figure for ours: the median, or the percentile the row asks for."""
        return _percentile(self.ours, self.quantile)

    @property
    def ratio(self) -> float:
        return self.median / _percentile(self.base, self.quantile)


def _percentile(values: list[float], q: int) -> float:
    if q == 50 or len(values) < 2:
        return statistics.median(values)
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


def timed(fn: Callable[[], object]) -> tuple[float, object]:
    t0 = time.perf_counter()
    result = fn()
    return time.perf_counter() - t0, result


def interleave(name: str, ours: Callable[[], object], base: Callable[[], object], rounds: int = 7,
               target: float | None = None, setup: Callable[[], object] | None = None,
               limit: float | None = None) -> Row:
    """Run base and ours alternately `rounds` times each (setup before every call, untimed)."""
    row = Row(name, target=target, limit=limit)
    for _ in range(rounds):
        for fn, times in ((base, row.base), (ours, row.ours)):
            if setup:
                setup()
            times.append(timed(fn)[0])
    return row


def machine() -> str:
    """The machine and its load, said with the numbers (other work on the cores slows every row)."""
    git = subprocess.run(["git", "--version"], capture_output=True, text=True).stdout.split()[-1]
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    return f"{os.cpu_count()} cores, load {load}, Python {platform.python_version()}, git {git}"


def _fmt(seconds: float, unit: str) -> str:
    return f"{seconds * 1000:.1f} ms" if unit == "ms" else f"{seconds:.1f} {unit}"


def table(title: str, rows: list[Row], baseline: str = "baseline") -> str:
    """A markdown table: median of ours, median of the baseline, the ratio and the target."""
    lines = [f"### {title}", "", f"{machine()}; medians of interleaved rounds", "",
             f"| measure | Dreamdesk | {baseline} | ratio | target |", "|---|---|---|---|---|"]
    for r in rows:
        target = " and ".join(([f"≤ {r.target:g}×"] if r.target is not None else []) +
                              ([f"≤ {_fmt(r.limit, r.unit)}"] if r.limit is not None else []))
        name = r.name if r.quantile == 50 else f"{r.name} (p{r.quantile})"
        lines.append(f"| {name} | {_fmt(r.median, r.unit)} | "
                     f"{_fmt(_percentile(r.base, r.quantile), r.unit)} | {r.ratio:.2f}× | {target} |")
    return "\n".join(lines)


def publish(text: str) -> None:
    """Shown in the terminal summary and appended to the report file (one table per section)."""
    TABLES.append(text)
    with REPORT.open("a", encoding="utf-8") as f:
        f.write(text + "\n\n")
