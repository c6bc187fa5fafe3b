"""Running one user operation from the window (issue 27): the engine's operation (engine/ops) on
the writer lane, its success said (the operation's message, on one line, in the status bar) and
its failure reported (that line; a dialog in words where asked, and for an OS error or a bug as
for any job) in this one place, with who asked passed to the engine as the operation's initiator.

What an operation wrote reaches the views as the lane's change record: the window routes every
job's record (MainWindow.apply, by view_feed.READS_ON), and that record is the operation's own
`OpResult.changes` (both are built from the paths the job wrote, engine/disk/changes.py). Handing
the result's record on again would read it twice; a view used on its own, with no window routing
records (`JobLanes.routed` False), is refreshed here instead."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, TypeVar

from dreamdesk.engine.ops.result import OpResult, one_line

from ..context.worker import BUG, EXPECTED, JobLanes, Job, JobContext

T = TypeVar("T")
Done = Callable[[OpResult[Any]], None]


@dataclass(frozen=True)
class Initiator:
    """Who starts operations and where they hear back: the window, or a view by its tab name."""
    engine: JobLanes
    name: str                                          # "gui" (the window), "files", "snapshots", …
    status: Callable[[str], None]                      # a line in the status bar
    error: Callable[[str, str], None] | None = None    # a dialog (title, text); None: gui/errors.report_error


def run_op(by: Initiator, what: str, op: Callable[[JobContext, str], OpResult[T]], *, failure: str,
           title: str | None = None, done: Done | None = None, failed: Callable[[str], None] | None = None,
           hint: Callable[[OpResult[T]], str] | None = None, refresh: Callable[[], None] | None = None,
           progress: Callable[[dict], None] | None = None, bookkeeping: bool = False) -> Job:
    """Run `op(ctx, initiator)` on the writer lane as the job `what`. Success: the message (and
    `hint`'s words for this front end, a key that undoes it), then `done`. Failure: "`failure`:
    why", then `failed(why)` (what the view shows in place), then with `title` a dialog; without
    one, an OS error's dialog in words and a bug's with its traceback, as any job's (never silent)."""

    def finished(result: OpResult[T]) -> None:
        said = one_line(result.message) + (hint(result) if hint else "")
        if said:
            by.status(said)
        if done is not None:
            done(result)
        if refresh is not None and not by.engine.routed:
            refresh()

    def fail(message: str, tb: str, kind: str) -> None:
        by.status(f"{failure}: {message}")
        if failed is not None:
            failed(message)
        if title is not None:
            dialog(by)(title, message)
        elif kind != EXPECTED:
            from ..app import errors
            errors.report_error(f"{what} failed", message, tb if kind == BUG else "")

    return by.engine.write(what, lambda ctx: op(ctx, by.name), finished, on_progress=progress, failed_kind=fail,
                           bookkeeping=bookkeeping)


def dialog(by: Initiator) -> Callable[[str, str], None]:
    if by.error is not None:
        return by.error
    from ..app import errors                  # (looked up now: tests replace it)
    return errors.report_error
