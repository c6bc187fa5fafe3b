"""Precision and recall of memory lint per finding kind, over a labelled set: what
tests/engine/lint/test_lint_labelled.py (the contract's homes) and test_lint_openclaw_labelled.py
(OpenClaw's) count and print."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable


@dataclass
class Tally:
    labelled: int = 0
    found: int = 0
    right: int = 0
    wrong: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)

    @property
    def precision(self) -> float | None:
        return self.right / self.found if self.found else None

    @property
    def recall(self) -> float | None:
        return self.right / self.labelled if self.labelled else None

    @property
    def floor(self) -> float:
        """The precision as rules record it: rounded down to a whole percent (1.0 when nothing was found)."""
        return math.floor((self.precision if self.precision is not None else 1.0) * 100 + 1e-9) / 100


def pct(x: float | None) -> str:
    return "—" if x is None else f"{x:.0%}"


def table(title: str, tallies: dict[str, Tally], shown_as: Callable[[str], str]) -> str:
    rows = [title, f"{'kind':<18}{'labelled':>9}{'found':>7}{'right':>7}{'precision':>11}{'recall':>8}  shown as"]
    for kind, t in tallies.items():
        rows.append(f"{kind:<18}{t.labelled:>9}{t.found:>7}{t.right:>7}{pct(t.precision):>11}"
                    f"{pct(t.recall):>8}  {shown_as(kind)}")
    return "\n".join(rows)
