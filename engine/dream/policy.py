"""The Dream cursor rule (spec §5.6) as a pure function: what a finished run did in, where the
cursor goes, the hold count, the stuck alarm and the refusal streaks out. No I/O: run.py
gathers the facts and carries the decision out."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from ..core.rules import NEAR_FRACTION, REFUSAL_WARN_RUNS

RETENTION_TAGS = ("[permanent]", "[durable]", "[correction]")
HOLD_LIMIT = 4             # after this many held runs on one batch, advance anyway
STUCK_AT = 3               # the stuck alarm fires on this held run


@dataclass(frozen=True)
class Held:
    """The hold carried across runs: a batch is known by its first cursor (new history arriving
    between held runs extends it, the hold stays)."""
    batch: int = -1
    count: int = 0

    def count_for(self, first: int) -> int:
        return self.count if self.batch == first else 0


@dataclass(frozen=True)
class Sizes:
    """Characters per file: at the run's start, what growth is measured against (after the
    review pass, which shrinks; the start when none ran), and at the end."""
    before: Mapping[str, int]
    after: Mapping[str, int]
    base: Mapping[str, int] | None = None

    def grew(self) -> list[str]:
        base = self.base if self.base is not None else self.before
        return [rel for rel, size in self.after.items() if size > base.get(rel, self.before.get(rel, 0))]


@dataclass(frozen=True)
class Decision:
    status: str                # completed | wrote-nothing | held | failed | cancelled
    cursor_after: int
    held_count: int            # held runs on this batch after this one (0: no hold carried)
    stuck: bool                # the stuck alarm is raised by this run
    gave_up_after: int         # held runs after which it advanced anyway (0: it did not give up)
    near: list[str]            # files at or over NEAR_FRACTION of their budget at the start
    blocked: list[str]         # files whose size refusal is outstanding
    streaks: dict[str, int] = field(default_factory=dict)

    @property
    def gave_up(self) -> bool:
        return self.gave_up_after > 0

    @property
    def held(self) -> bool:
        return self.status == "held"

    @property
    def warn(self) -> list[str]:
        """Files refused by a size budget on REFUSAL_WARN_RUNS or more runs in a row."""
        return sorted(f for f, n in self.streaks.items() if n >= REFUSAL_WARN_RUNS)

    @property
    def clears_stuck(self) -> bool:
        return not self.stuck and self.status in ("completed", "wrote-nothing")


def near_budget(sizes: Mapping[str, int], budgets: Mapping[str, int]) -> list[str]:
    return [rel for rel, budget in budgets.items() if budget and sizes.get(rel, 0) >= NEAR_FRACTION * budget]


def carries_retention(contents: Iterable[str]) -> bool:
    return any(tag in text for text in contents for tag in RETENTION_TAGS)


def next_streaks(streaks: Mapping[str, int], refused: Iterable[str]) -> dict[str, int]:
    """One more for each file a size budget refused this run; back to 0 for the others."""
    refused = set(refused)
    return {f: (streaks.get(f, 0) + 1 if f in refused else 0) for f in set(streaks) | refused}


def decide(batch: Sequence[int], contents: Iterable[str], cursor: int, sizes: Sizes,
           budgets: Mapping[str, int], blocked: Sequence[str], refused_by_size: Iterable[str],
           held: Held, streaks: Mapping[str, int], *, wrote: bool, ended: str | None = None) -> Decision:
    """`batch`: the run's history cursors (oldest first); `contents`: their texts; `cursor`: the
    Dream cursor before the run; `ended`: how the failing pass ended (None: every pass finished)."""
    near = near_budget(sizes.before, budgets)
    common: dict[str, Any] = dict(near=near, blocked=list(blocked), streaks=next_streaks(streaks, refused_by_size))
    count = held.count_for(batch[0])
    advance = "completed" if wrote else "wrote-nothing"
    if ended is not None:           # failed, cancelled or stopped at the token ceiling: the hold count stays
        status = {"cancelled": "cancelled", "ceiling": "stopped"}.get(ended, "failed")
        return Decision(status, cursor, count, False, 0, **common)
    # a blocked run (a size refusal still outstanding: the write never landed and nothing took
    # its place) or the near-budget hold: those entries must come back
    if not (blocked or (near and carries_retention(contents) and not sizes.grew())):
        return Decision(advance, batch[-1], 0, False, 0, **common)
    if count >= HOLD_LIMIT:
        return Decision(advance, batch[-1], 0, True, count, **common)
    return Decision("held", cursor, count + 1, count + 1 >= STUCK_AT, 0, **common)
