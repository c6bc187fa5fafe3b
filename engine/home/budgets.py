"""File sizes against their budgets. A size is a character count, not bytes: the characters
the assistant injects (textform.prompt_chars: \r\n counts as one, a BOM as one)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from .config import Config
from ..core.problems import Problem
from ..core.rules import BUDGET_KEYS, budget_state
from ..text.textform import prompt_chars
from .workspace import Workspace


def percent_label(chars: int, budget: int) -> str:
    """"89%" for 2,687 of 3,000: rounded toward the state's side, so the number never reads 90%
    while the state is still ok, nor 100% when the file is over."""
    if budget <= 0:
        return ""
    pct = chars * 100 / budget
    return f"{math.ceil(pct) if chars > budget else math.floor(pct)}%"


@dataclass(frozen=True, slots=True)
class FileSize:
    path: str
    kind: str
    exists: bool
    chars: int
    budget: int
    state: str
    budget_key: str | None

    @property
    def fraction(self) -> float | None:
        return self.chars / self.budget if self.budget > 0 else None

    def to_json(self) -> dict:
        return {"path": self.path, "kind": self.kind, "exists": self.exists, "chars": self.chars,
                "budget": self.budget, "fraction": None if self.fraction is None else round(self.fraction, 4),
                "state": self.state, "budget_key": self.budget_key}


def measure(ws: Workspace, cfg: Config) -> tuple[list[FileSize], list[Problem]]:
    sizes: list[FileSize] = []
    problems: list[Problem] = []
    for mf in ws.memory_files():
        state, probs = ws.read_file(mf.path)
        problems.extend(probs)
        budget = cfg.budget_for(mf.path)
        chars = prompt_chars(state.text)     # what the assistant injects, as every view counts it
        sizes.append(FileSize(mf.path, mf.kind, state.exists, chars, budget,
                              budget_state(chars, budget), BUDGET_KEYS.get(mf.path)))
    return sizes, problems
