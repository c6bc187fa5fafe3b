"""The outcome note of a Dream run (spec §5.8), in one renderer: a dry run says what would
happen with the same facts, so rewording one case rewords both."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ..core.rules import BUDGET_KEYS, REFUSAL_WARN_RUNS
from .policy import HOLD_LIMIT, Decision
from .runtypes import ReviewInfo
from .tools import Refusal


@dataclass(frozen=True)
class RunFacts:
    """What the run did, as the note tells it."""
    duration: float
    first: int                 # the batch's cursors
    last: int
    cursor_before: int
    written: Sequence[str]     # the file of each write, in order
    refused: Sequence[Refusal]
    review: ReviewInfo | None = None
    error: str | None = None   # why the failing pass failed


@dataclass(frozen=True)
class _Words:
    lead: str
    wrote_to: str
    nothing: str
    held: str
    cancelled: str
    failed: str
    stopped: str
    kept: str
    moved: str
    landed: str
    stays: str        # the cursor after a cancel or a failure, and what that means for the batch


_REAL = _Words("Dream completed", "to", "but wrote nothing", "but held", "Dream was cancelled", "Dream failed",
               "Dream stopped", "are kept", "moved", "never landed",
               "the cursor stays at {c} and those entries are retried next run")
_DRY = _Words("Dry run (nothing written)", "would go to", "and would write nothing", "and would hold",
              "Dry run cancelled", "Dry run failed", "Dry run stopped", "would be kept", "would move",
              "would not land", "a dry run changes nothing: the cursor stays at {c}")


def render_outcome(d: Decision, run: RunFacts, dry: bool = False) -> str:
    """The note's first sentences: what happened (or, dry, what would), the review pass, the
    refused writes."""
    w = _DRY if dry else _REAL
    return _status_text(d, run, w) + _review_text(run.review, w, dry) + _refused_text(run, w)


def _status_text(d: Decision, run: RunFacts, w: _Words) -> str:
    secs = f"{run.duration:.0f}s" if run.duration >= 1 else f"{run.duration:.1f}s"
    batch = f"Entries {run.first}–{run.last} come back next run (held {d.held_count} of {HOLD_LIMIT})."
    if d.status == "completed":
        return f"{w.lead} in {secs}: {len(run.written)} write(s) {w.wrote_to} {', '.join(sorted(set(run.written)))}."
    if d.status == "wrote-nothing":
        return f"{w.lead} in {secs} {w.nothing}."
    if d.status == "held" and d.blocked:
        return (f"{w.lead} in {secs} {w.held} the cursor at {run.cursor_before}: a write to {', '.join(d.blocked)} "
                f"was refused by a size budget and nothing took its place. {batch}")
    if d.status == "held":
        were = "was" if len(d.near) == 1 else "were"
        return (f"{w.lead} in {secs} {w.held} the cursor at {run.cursor_before}: {', '.join(d.near)} {were} near "
                f"the budget, the batch carried facts tagged for retention, and no memory file grew. {batch}")
    stays = w.stays.format(c=run.cursor_before)
    if d.status == "cancelled":
        return f"{w.cancelled}; {stays}."
    if d.status == "stopped":
        kept = f"the {len(run.written)} write(s) it made {w.kept}" if run.written else "nothing was written"
        return f"{w.stopped}: {str(run.error).rstrip('.')}. {kept[0].upper()}{kept[1:]}; {stays}."
    error = (run.error or "unknown error").rstrip(".")        # (an error said in words ends its own sentence)
    return f"{w.failed}: {error}. {stays[0].upper()}{stays[1:]}."


def _review_text(review: ReviewInfo | None, w: _Words, dry: bool) -> str:
    if review is None:
        return ""
    ids = [] if dry else review.archived          # a dry run's ids are placeholders
    moved = len(review.archived)
    return (f" Review pass: freed {review.chars_freed:,} characters, "
            f"{w.moved} {moved} fact{'s' if moved != 1 else ''} to memory/archive/"
            + (f" ({', '.join(ids)})" if ids else "")
            + f", {review.refused} of its writes refused by a size budget"
            + (f" ({review.refused_growth} more refused because they would have grown a file)"
               if review.refused_growth else "")
            + (f" ({review.refused_pinned} more refused because they would have removed or changed a "
               "pinned entry)" if review.refused_pinned else "") + ".")


def _refused_text(run: RunFacts, w: _Words) -> str:
    text = ""
    by_size = [r for r in run.refused if r.pass_name != "review" and r.by_size]
    if by_size:
        text += (f" {'Other passes: ' if run.review is not None else ''}{len(by_size)} write(s) refused by a "
                 f"size budget and {w.landed} ({', '.join(sorted({r.file for r in by_size}))}).")
    pinned = [r for r in run.refused if r.pass_name != "review" and r.kind == "pin"]
    if pinned:
        text += (f" {len(pinned)} write(s) refused because they would have removed or changed an entry the user "
                 f"pinned ({', '.join(sorted({r.file for r in pinned}))}); the pinned entries were kept.")
    closed = [r for r in run.refused if r.kind == "scope"]       # (any pass: the person's word on the file)
    if closed:
        text += (f" {len(closed)} write(s) refused because the file is closed to Dream in this workspace "
                 f"({', '.join(sorted({r.file for r in closed}))}); it was left as it is.")
    return text


def _budget_settings(files: Sequence[str]) -> str:
    """Where those files' budgets are set, in config.json's words (the GUI names its own place)."""
    return ", ".join(f"dream.{BUDGET_KEYS[f]}" if f in BUDGET_KEYS else f for f in files)


def render_notes(d: Decision, run: RunFacts, io_errors: Sequence[str]) -> str:
    """What follows the note, the same for a dry run and a real one: file-system refusals, the
    hold given up, the stuck alarm, the refusal-streak warning."""
    text = "".join(" " + e for e in io_errors)
    if d.gave_up:
        text += (f" Gave up on entries {run.first}–{run.last} after {d.gave_up_after} held runs and moved on; "
                 "the stuck alarm is raised.")
    if d.stuck and d.held:
        text += (f" Stuck alarm: entries {run.first}–{run.last} have been held {d.held_count} runs in a row; "
                 "the review pass or a bigger budget would make room.")
    if d.warn:
        text += (f" Writes to {', '.join(d.warn)} have been refused by a size budget on {REFUSAL_WARN_RUNS} or more "
                 f"runs in a row: check its size against its budget ({_budget_settings(d.warn)} in config.json).")
    return text


def snapshot_note(error: str | None, notes: Sequence[str]) -> str:
    """A real run's word on its snapshot before: none taken, or what the snapshot store said."""
    if error:
        return (f" No snapshot was taken before the run ({error}); everything it removed from "
                "USER.md and MEMORY.md is still in memory/archive/.")
    return " Snapshots: " + "; ".join(notes) + "." if notes else ""
