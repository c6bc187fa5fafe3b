"""File sizes against their budgets. A size is a character count, not bytes: the characters
the assistant injects (textform.prompt_chars: \r\n counts as one, a BOM as one)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

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
class Limit:
    """One limit a file is held to, besides the budget its gauge shows (which is the one that
    bites): the assistant's per-file cap, its total, a budget of its own dreaming."""
    what: str                    # in words ("per-file cap", "promotion budget")
    chars: int
    key: str | None = None       # the config key that sets it, when one does
    note: str = ""               # what passing it does, in words

    def to_json(self) -> dict:
        return {"what": self.what, "chars": self.chars, "key": self.key, "note": self.note}


@dataclass(frozen=True, slots=True)
class CutEntry:
    """An entry the assistant's cut hides from its prompt, wholly or in part. Positions are in
    the assistant's own units (OpenClaw: UTF-16 units of the file, trailing whitespace trimmed)."""
    text: str
    line: int                    # its first line, from 1
    start: int
    end: int
    hidden: tuple[tuple[int, int], ...]
    whole: bool

    def to_json(self) -> dict:
        return {"text": self.text, "line": self.line, "start": self.start, "end": self.end,
                "hidden": [list(h) for h in self.hidden], "whole": self.whole}


@dataclass(frozen=True, slots=True)
class FileSize:
    path: str
    kind: str
    exists: bool
    chars: int
    budget: int
    state: str
    budget_key: str | None
    limits: tuple[Limit, ...] = ()     # every limit that applies (the budget's among them)
    cut: tuple[CutEntry, ...] = ()     # the entries the assistant's cut hides
    note: str = ""                     # how the assistant takes the file, in words

    @property
    def fraction(self) -> float | None:
        return self.chars / self.budget if self.budget > 0 else None

    def to_json(self) -> dict:
        out = {"path": self.path, "kind": self.kind, "exists": self.exists, "chars": self.chars,
               "budget": self.budget, "fraction": None if self.fraction is None else round(self.fraction, 4),
               "state": self.state, "budget_key": self.budget_key}
        if self.limits or self.note:      # an assistant's own limits (the contract's file has none of these)
            out.update(limits=[x.to_json() for x in self.limits], cut=[c.to_json() for c in self.cut], note=self.note)
        return out


@dataclass(frozen=True, slots=True)
class Total:
    """Several files together against one limit (OpenClaw's bootstrapTotalMaxChars)."""
    name: str
    chars: int
    budget: int
    state: str
    key: str | None = None
    note: str = ""

    @property
    def fraction(self) -> float | None:
        return self.chars / self.budget if self.budget > 0 else None

    def to_json(self) -> dict:
        return {"name": self.name, "chars": self.chars, "budget": self.budget, "state": self.state,
                "key": self.key, "note": self.note}


@dataclass(slots=True)
class Sizes:
    """The memory files against their limits, the totals, and what reading them found."""
    files: list[FileSize]
    totals: list[Total] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def measure(ws: Workspace, cfg: Config) -> tuple[list[FileSize], list[Problem]]:
    """The contract's sizes: each memory file against the budget config.json gives it."""
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
